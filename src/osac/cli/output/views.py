"""``osac describe``: the view of one object, and the view kept live (``-w``).

A cluster has its fixed layout (``clusters/describe.py``); every other kind the generic view of
``describe.py`` with the objects it references, those referring to it and its events.
"""

from __future__ import annotations

import sys

import typer
from google.protobuf.message import Message

from osac.api.public.v1.cluster_type_pb2 import Cluster
from osac.api.public.v1.lifecycle_event_type_pb2 import LifecycleEvent
from osac.cli.clusters.clock import reference_now
from osac.cli.clusters.describe import cluster_lines
from osac.cli.clusters.follow import changes, snapshot
from osac.cli.clusters.lookups import look_up
from osac.cli.connection.channel import Connection
from osac.cli.connection.client import KindClient, auto_provisioned, lifecycle_events, references, referrers
from osac.cli.connection.shape import as_kind, id_of
from osac.cli.errors import CliError
from osac.cli.objects.kinds import describe_object
from osac.cli.output.describe import AUTO_PARENTS, Related, describe_lines
from osac.cli.output.printer import print_lines
from osac.model.kinds import Kind


def view(connection: Connection, kind: Kind, obj: Message) -> list[str]:
    """The lines of ``osac describe`` for one object."""
    if kind.name == "cluster":
        cluster = as_kind(obj, Cluster)
        return cluster_lines(cluster, look_up(connection, cluster, reference_now()))
    object_id = id_of(obj)
    children = auto_provisioned(connection, object_id) if kind.name in AUTO_PARENTS else []
    related = Related(
        referrers(connection, kind, object_id),
        _events_of(connection, object_id),
        references=references(connection, kind, obj),
        auto_provisioned=children,
    )
    return describe_lines(kind, obj, related)


def describe_live(connection: Connection, client: KindClient, word: str, max_events: int | None) -> None:
    """The view, then the view again after each change (on a terminal in place of the last
    one), until the object is deleted, ``max_events`` changes, or Ctrl-C."""
    found = client.find(word)
    found_id = id_of(found)
    first = snapshot(client, found_id)
    if first.obj is None:
        raise CliError(f"{describe_object(client.kind, found)} was deleted")
    is_terminal = sys.stdout.isatty()
    print_lines(view(connection, client.kind, first.obj))
    for count, obj in enumerate(changes(client, found_id, first.revision), start=1):
        if obj is None:
            typer.echo(f"{describe_object(client.kind, found)} deleted")
            return
        typer.echo("\x1b[H\x1b[2J" if is_terminal else "", nl=not is_terminal)
        print_lines(view(connection, client.kind, obj))
        if max_events is not None and count >= max_events:
            return


def _events_of(connection: Connection, object_id: str) -> list[LifecycleEvent]:
    try:
        return lifecycle_events(connection, object_id)
    except CliError:  # events are an extra: a failing lookup must not hide the object
        return []
