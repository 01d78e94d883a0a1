"""Lifecycle events as the cluster views show them: the newest first, ages, Normal / Warning.

``LifecycleEvents.List`` returns events oldest first (ascending id) and has no ordering option,
so the newest N are read by counting first and then asking for the last page. The same reading
serves ``describe cluster`` (its EVENTS section, the object's last 10) and ``osac events``
(any object, or every visible one). Events outlive their objects (30 days), so an object is
named by its kind and name when it can still be read, else by its id.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime

from osac.api.public.v1.lifecycle_event_type_pb2 import LifecycleEvent
from osac.api.public.v1.lifecycle_events_service_pb2 import LifecycleEventsListResponse
from osac.cli.connection.channel import Connection
from osac.cli.connection.client import PAGE_SIZE, KindClient
from osac.cli.connection.shape import as_kind, id_of
from osac.cli.errors import ApiError, CliError
from osac.cli.objects.kinds import cel_string, looks_like_id, resolve_kind
from osac.cli.output.fields import descriptor_of, enum_label
from osac.cli.output.render import EMPTY, age
from osac.model import registry
from osac.model.kinds import Kind, Method
from osac.model.protos import enum_type_of

SERVICE = "LifecycleEvents"
#: How many events ``describe cluster`` shows.
DESCRIBE_LIMIT = 10
#: Tries to read a consistent newest page while events keep arriving between the two calls.
READ_ATTEMPTS = 3

EVENT_HEADERS = ("AGE", "TYPE", "REASON", "MESSAGE")
LIST_HEADERS = ("AGE", "OBJECT", "TYPE", "REASON", "MESSAGE")


def object_filter(object_id: str) -> str:
    return f"this.object_id == {cel_string(object_id)}"


def newest_events(connection: Connection, limit: int, filter: str | None = None) -> list[LifecycleEvent]:
    """The ``limit`` most recent lifecycle events matching ``filter``, newest first.

    :raises ApiError: the server refused the List.
    """
    if limit <= 0:
        return []
    total = _count(connection, filter)
    items: list[LifecycleEvent] = []
    for _ in range(READ_ATTEMPTS):
        items, seen_total = _read(connection, filter, max(0, total - limit), limit)
        if seen_total == total:
            break
        total = seen_total  # events arrived (or expired) meanwhile: read the new tail
    return list(reversed(items[-limit:]))


def _count(connection: Connection, filter: str | None) -> int:
    request = connection.request(SERVICE, "List", limit=1, **({"filter": filter} if filter else {}))
    return int(as_kind(connection.call(SERVICE, "List", request), LifecycleEventsListResponse).total)


def _read(
    connection: Connection, filter: str | None, offset: int, limit: int
) -> tuple[list[LifecycleEvent], int]:
    """Events ``offset`` to ``offset + limit`` (paging through the server's page size), and the
    total of the first page's snapshot."""
    items: list[LifecycleEvent] = []
    total: int | None = None
    while len(items) < limit:
        fields: dict[str, object] = {"offset": offset + len(items), "limit": min(PAGE_SIZE, limit - len(items))}
        if filter:
            fields["filter"] = filter
        request = connection.request(SERVICE, "List", **fields)
        page = as_kind(connection.call(SERVICE, "List", request), LifecycleEventsListResponse)
        if total is None:
            total = int(page.total)
        items.extend(page.items)
        if not page.items:
            break
    return items, total or 0


def object_events_filter(connection: Connection, reference: str) -> str:
    """The filter selecting the events of the object ``KIND/NAME`` (or ``KIND/ID``).

    A name is resolved through the API. Events are kept after their object was deleted, so when
    no live object matches, an id is taken as it is, and a name selects the newest object of
    that kind whose events were written under that name (an archived one).

    :raises CliError: not ``KIND/NAME``, an unknown kind, or no such object.
    :raises ApiError: NOT_FOUND when neither a live object nor any event carries that name.
    """
    kind_word, slash, word = reference.partition("/")
    if not slash or not kind_word or not word:
        raise CliError(f"--object '{reference}': expected KIND/NAME, e.g. cluster/gpu-lab")
    kind = resolve_kind(kind_word, private=connection.is_private, method=Method.GET)
    try:
        found = KindClient(connection, kind).find(word)
    except ApiError as error:
        if error.code != "NOT_FOUND":
            raise
        if looks_like_id(word):
            return object_filter(word)
        archived = newest_events(connection, 1, archived_name_filter(kind, word))
        if not archived:
            raise
        return object_filter(archived[0].object_id)
    return object_filter(id_of(found))


def archived_name_filter(kind: Kind, name: str) -> str:
    """The events written about objects of ``kind`` named ``name``, live or archived."""
    return f"this.object_type == {cel_string(kind.message)} && this.object_name == {cel_string(name)}"


def type_label(event: LifecycleEvent) -> str:
    """``Normal`` or ``Warning``; an unknown number raw, none ``-``."""
    number = event.type
    if not number:
        return EMPTY
    label = enum_label(enum_type_of(descriptor_of(event).fields_by_name["type"]), number)
    return label.capitalize() if not label.isdigit() else label


def event_age(event: LifecycleEvent, now: datetime) -> str:
    if not event.HasField("timestamp"):
        return EMPTY
    return age(now - event.timestamp.ToDatetime(tzinfo=UTC))


def event_rows(events: Sequence[LifecycleEvent], now: datetime) -> list[list[str]]:
    """AGE TYPE REASON MESSAGE per event (``describe cluster``)."""
    return [
        [event_age(e, now), type_label(e), e.reason or EMPTY, e.message]
        for e in events
    ]


def object_names(connection: Connection, events: Iterable[LifecycleEvent]) -> dict[tuple[str, str], str]:
    """``kind/name`` of the objects the events are about, by (object type, object id), for the
    objects that can still be read; the others are left out."""
    ids_by_kind: dict[Kind, set[str]] = {}
    for event in events:
        kind = _kind_of(event.object_type)
        if kind is not None:
            ids_by_kind.setdefault(kind, set()).add(event.object_id)
    names: dict[tuple[str, str], str] = {}
    for kind, ids in ids_by_kind.items():
        methods = kind.private_methods if connection.is_private else kind.public_methods
        if Method.LIST not in methods:
            continue
        for object_id, name in KindClient(connection, kind).names(ids).items():
            names[(kind.message, object_id)] = f"{kind.name}/{name}"
    return names


def object_label(event: LifecycleEvent, names: Mapping[tuple[str, str], str]) -> str:
    """``cluster/gpu-lab``, else ``cluster/<id>`` (the object is gone or invisible)."""
    object_type, object_id = event.object_type, event.object_id
    if (object_type, object_id) in names:
        return names[(object_type, object_id)]
    kind = _kind_of(object_type)
    return f"{kind.name if kind else object_type or '?'}/{object_id or EMPTY}"


def listed_rows(
    events: Sequence[LifecycleEvent], names: Mapping[tuple[str, str], str], now: datetime
) -> list[list[str]]:
    """AGE OBJECT TYPE REASON MESSAGE per event (``osac events``)."""
    return [
        [event_age(e, now), object_label(e, names), type_label(e), e.reason or EMPTY, e.message]
        for e in events
    ]


def _kind_of(message_name: str) -> Kind | None:
    try:
        return registry.by_message(message_name)
    except KeyError:
        return None
