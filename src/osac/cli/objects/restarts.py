"""``osac restart``: ask for a restart through the spec, as the API defines it (compute.md §2.5,
§3.3); there is no restart verb, the reconcilers act on the changed field.

- A compute instance gets ``spec.restart_requested_at = now``: an Update of that one path. The
  server accepts it only for a running (or paused, or restarting) instance and otherwise answers
  FAILED_PRECONDITION ``restart requires a running instance: …``, which is printed as is.
- A bare-metal instance gets ``spec.restart_trigger`` one above the highest value seen in its spec
  and status, under the version lock (re-read and retried when another writer got in between), so
  two concurrent restarts never ask for the same value.
"""

from __future__ import annotations

from datetime import UTC, datetime

from google.protobuf.message import Message

from osac.api.public.v1.bare_metal_instance_type_pb2 import BareMetalInstance
from osac.api.public.v1.compute_instance_type_pb2 import ComputeInstance
from osac.cli.connection.client import KindClient
from osac.cli.connection.shape import as_kind, id_of
from osac.cli.errors import ApiError, CliError
from osac.cli.objects.kinds import plural_words
from osac.model.kinds import Kind

#: Read-modify-write attempts of a bare-metal restart when another writer changes the instance.
TRIGGER_ATTEMPTS = 3
RESTARTABLE = ("compute_instance", "bare_metal_instance")


def require_restartable(kind: Kind) -> None:
    """:raises CliError: ``subnets cannot be restarted; …`` for a kind without a restart field."""
    if kind.name not in RESTARTABLE:
        raise CliError(f"{plural_words(kind)} cannot be restarted; restart a compute or bare-metal instance")


def request_restart(client: KindClient, word: str, now: datetime | None = None) -> Message:
    """Request a restart of the instance ``word`` names; returns the updated instance.

    :raises CliError: the kind cannot be restarted.
    :raises ApiError: the server refused (FAILED_PRECONDITION for a compute instance that is not
        running, NOT_FOUND, ...).
    """
    require_restartable(client.kind)
    if client.kind.name == "compute_instance":
        return _request_compute_restart(client, word, now or datetime.now(UTC))
    return _increment_restart_trigger(client, word)


def _request_compute_restart(client: KindClient, word: str, now: datetime) -> Message:
    stored = client.find(word)
    request = as_kind(client.message_class(), ComputeInstance)
    request.id = id_of(stored)
    request.spec.restart_requested_at.FromDatetime(now)
    return client.update(request, ["spec.restart_requested_at"], lock=False)


def _increment_restart_trigger(client: KindClient, word: str) -> Message:
    for attempt in range(1, TRIGGER_ATTEMPTS + 1):
        stored = as_kind(client.find(word), BareMetalInstance)
        spec, status = stored.spec, stored.status
        spec.restart_trigger = max(spec.restart_trigger, status.restart_trigger) + 1
        try:
            return client.update(stored, ["spec.restart_trigger"], lock=True)
        except ApiError as error:
            if error.code != "ABORTED" or attempt == TRIGGER_ATTEMPTS:
                raise
    raise AssertionError("unreachable: the last attempt returns or raises")
