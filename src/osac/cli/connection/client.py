"""The API operations the commands need, on top of a ``Connection``.

``KindClient`` is List / Get / Create / Update / Delete / Signal for one kind, plus finding an
object by id or name. ``watch_events`` follows the change stream. Nothing here prints.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from osac.api.public.v1.event_type_pb2 import Event
from osac.api.public.v1.events_service_pb2 import EventsWatchResponse
from osac.api.public.v1.lifecycle_event_type_pb2 import LifecycleEvent
from osac.api.public.v1.lifecycle_events_service_pb2 import LifecycleEventsListResponse
from osac.cli.connection.channel import Connection
from osac.cli.connection.shape import M, as_kind, id_of, metadata_of, object_of, page_of, update_mask_of
from osac.cli.errors import ApiError, CliError
from osac.cli.objects.kinds import (
    cel_string,
    ids_filter,
    looks_like_id,
    name_filter,
    plural_words,
    reference_filter,
)
from osac.cli.output.fields import (
    ABSENT,
    descriptor_of,
    enum_label,
    enum_type_of,
    lookup_field,
    value_at,
    values_along,
)
from osac.model import registry
from osac.model.kinds import Kind, Method
from osac.model.labels import AUTO_FOR_LABEL

#: Items asked for per List call; the server's maximum.
PAGE_SIZE = 1000


@dataclass(frozen=True)
class Listing(Generic[M]):
    """Every matching object, with the revision of the first page's snapshot (resume point)."""

    items: list[M]
    total: int
    revision: int


class KindClient:
    def __init__(self, connection: Connection, kind: Kind) -> None:
        self.connection = connection
        self.kind = kind
        #: The warnings of the Creates and Updates sent so far (a cluster's node set that the
        #: bare-metal inventory can never fill), for the command to print.
        self.warnings: list[str] = []

    @property
    def message_class(self) -> type[Message]:
        return self.kind.message_class(self.connection.is_private)

    def _call(self, method: str, *, dry_run: bool = False, **fields: object) -> Message:
        request = self.connection.request(self.kind.service, method, **fields)
        return self.connection.call(self.kind.service, method, request, dry_run=dry_run)

    def list(self, filter: str | None = None, order: str | None = None) -> Listing[Message]:
        """All matching objects, paging through them, in ``order`` (the List ``order``; default:
        creation order)."""
        items: list[Message] = []
        total = 0
        revision: int | None = None
        while True:
            fields: dict[str, object] = {"offset": len(items), "limit": PAGE_SIZE}
            if filter:
                fields["filter"] = filter
            if order:
                fields["order"] = order
            request = self.connection.request(self.kind.service, "List", **fields)
            page = page_of(self.connection.call(self.kind.service, "List", request))
            if revision is None:
                revision = page.revision
            total = page.total
            items.extend(page.items)
            if not page.items or len(items) >= total:
                break
        return Listing(items=items, total=total, revision=revision or 0)

    def get(self, object_id: str) -> Message:
        return object_of(self._call("Get", id=object_id))

    def find(self, word: str) -> Message:
        """The object ``word`` names: an id, else a ``metadata.name``.

        :raises ApiError: NOT_FOUND when nothing visible matches.
        :raises CliError: the name is ambiguous (objects in several tenants share it).
        """
        if looks_like_id(word):
            try:
                return self.get(word)
            except ApiError as error:
                if error.code != "NOT_FOUND":
                    raise
                not_found = error
        else:
            not_found = ApiError("NOT_FOUND", f"{self.kind.message} '{word}' not found")
        matches = self.list(name_filter(word)).items
        if not matches:
            raise not_found
        if len(matches) > 1:
            tenants = ", ".join(sorted({metadata_of(m).tenant for m in matches}))
            raise CliError(
                f"{len(matches)} {plural_words(self.kind)} are named '{word}' "
                f"(tenants {tenants}); use the id"
            )
        return matches[0]

    def create(self, obj: Message, *, dry_run: bool = False) -> Message:
        return self._written(self._call("Create", object=obj, dry_run=dry_run))

    def update(self, obj: Message, paths: Sequence[str] | None, *, lock: bool) -> Message:
        request = self.connection.request(self.kind.service, "Update", object=obj, lock=lock)
        if paths:
            update_mask_of(request).paths.extend(paths)
        return self._written(self.connection.call(self.kind.service, "Update", request))

    def _written(self, response: Message) -> Message:
        self.warnings.extend(getattr(response, "warnings", ()))
        return object_of(response)

    def delete(self, object_id: str) -> None:
        self._call("Delete", id=object_id)

    def signal(self, object_id: str) -> None:
        self._call("Signal", id=object_id)

    def names(self, ids: Iterable[str]) -> dict[str, str]:
        """Names of the objects with ``ids`` (those without a name are left out). Cosmetic: a
        failing lookup gives an empty answer rather than an error."""
        return {i: name for i, name in self.texts(ids, "metadata.name").items() if name}

    def texts(self, ids: Iterable[str], path: str) -> dict[str, str]:
        """The field at ``path`` of the objects with ``ids``, as text ("" when empty), for the
        objects found. Cosmetic: a failing lookup gives an empty answer rather than an error."""
        return {id_of(obj): field_text(obj, path) for obj in self.objects(ids)}

    def objects(self, ids: Iterable[str]) -> Sequence[Message]:
        """The visible objects among ``ids``; a failing lookup gives none (cosmetic callers)."""
        wanted = sorted({i for i in ids if i})
        if not wanted:
            return []
        try:
            return self.list(ids_filter(wanted)).items
        except CliError:
            return []


def field_text(obj: Message, path: str) -> str:
    """A scalar field (or a list of them) as plain text, enums by their short name ("IPV4");
    "" when absent or empty."""
    value = value_at(obj, path)
    field = lookup_field(descriptor_of(obj), path)
    if value is ABSENT or value in ("", None) or not isinstance(field, FieldDescriptor):
        return ""
    values = list(value) if field.is_repeated else [value]
    if field.enum_type is not None:
        return ",".join(enum_label(enum_type_of(field), number) for number in values if number)
    return ",".join(str(item) for item in values)


def watch_events(connection: Connection, filter: str | None, after_revision: int) -> Iterator[Event]:
    """The change stream: events after ``after_revision`` (0: from now on), then live ones."""
    fields: dict[str, object] = {"after_revision": after_revision}
    if filter:
        fields["filter"] = filter
    request = connection.request("Events", "Watch", **fields)
    for response in connection.stream("Events", "Watch", request):
        yield as_kind(response, EventsWatchResponse).event


@dataclass(frozen=True)
class Link:
    """One reference between two objects, seen from one of them: the reference field ``path``
    (on the referring object), the other object's kind and id, and the other object itself
    (None when it cannot be read)."""

    path: str
    kind: Kind
    object_id: str
    obj: Message | None


def referrers(connection: Connection, kind: Kind, object_id: str) -> list[Link]:
    """Objects whose references (per the registry) point at ``object_id`` of ``kind``, among the
    kinds the API in use lists. Cosmetic: kinds whose lookup fails are left out."""
    found: list[Link] = []
    seen: set[tuple[str, str]] = set()
    for other in registry.kinds():
        methods = other.private_methods if connection.is_private else other.public_methods
        if Method.LIST not in methods:
            continue
        for reference in other.references:
            expression = reference_filter(reference.path, object_id) if reference.target == kind.name else None
            if expression is None:
                continue
            try:
                items = KindClient(connection, other).list(expression).items
            except CliError:
                continue
            for item in items:
                item_id = id_of(item)
                if (other.name, item_id) not in seen:
                    seen.add((other.name, item_id))
                    found.append(Link(reference.path, other, item_id, item))
    return found


#: The kinds the service creates on a workload's behalf: an instance's automatic external IP and
#: its attachment (networking.md §8), labelled ``AUTO_FOR_LABEL``.
AUTO_PROVISIONED_KINDS = ("external_ip", "external_ip_attachment")


def auto_provisioned(connection: Connection, object_id: str) -> list[Link]:
    """The objects auto-provisioned for ``object_id`` (labelled ``AUTO_FOR_LABEL``), external
    IPs before attachments, each ``Link`` with the label as its path. Cosmetic like
    ``referrers``: kinds whose lookup fails are left out."""
    expression = f"this.metadata.labels[{cel_string(AUTO_FOR_LABEL)}] == {cel_string(object_id)}"
    found: list[Link] = []
    for kind_name in AUTO_PROVISIONED_KINDS:
        kind = registry.get(kind_name)
        try:
            items = KindClient(connection, kind).list(expression).items
        except CliError:
            continue
        found += [Link(AUTO_FOR_LABEL, kind, id_of(item), item) for item in items]
    return found


def references(connection: Connection, kind: Kind, obj: Message) -> list[Link]:
    """The objects ``obj`` references (per the registry), in the order of its reference fields.
    Cosmetic: an object that cannot be read is given without it (``obj`` None)."""
    links: list[Link] = []
    for reference in kind.references:
        ids = list(dict.fromkeys(str(v) for v in values_along(obj, reference.path) if v))
        if not ids:
            continue
        target = registry.get(reference.target)
        methods = target.private_methods if connection.is_private else target.public_methods
        found = {id_of(o): o for o in KindClient(connection, target).objects(ids)} if Method.LIST in methods else {}
        links += [Link(reference.path, target, i, found.get(i)) for i in ids]
    return links


def lifecycle_events(connection: Connection, object_id: str) -> list[LifecycleEvent]:
    """The lifecycle events recorded about one object, oldest first."""
    request = connection.request(
        "LifecycleEvents", "List", filter=f"this.object_id == {cel_string(object_id)}", limit=PAGE_SIZE
    )
    response = as_kind(connection.call("LifecycleEvents", "List", request), LifecycleEventsListResponse)
    return list(response.items)


def check_server(connection: Connection) -> None:
    """One cheap authenticated call (a List of tenants with limit 1).

    :raises ApiError: the server is unreachable or refuses the token.
    """
    request = connection.request("Tenants", "List", limit=1)
    connection.call("Tenants", "List", request)
