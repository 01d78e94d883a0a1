"""The resource descriptor: everything generic code needs to know about one API kind."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from functools import cached_property

from google.protobuf.descriptor import Descriptor, EnumDescriptor
from google.protobuf.message import Message

from osac.model import protos
from osac.model.columns import Column
from osac.model.flags import Flag


class Scope(enum.Enum):
    """Where objects of a kind live."""

    #: Tenant-owned objects (networks, workloads).
    TENANT = "tenant"
    #: Provider catalogue objects, always in tenant ``shared`` and readable by everybody.
    SHARED = "shared"
    #: Tenant objects themselves: ``metadata.tenant`` is the object's own name.
    SELF = "self"
    #: Internal objects in tenant ``system`` (hubs), private API only.
    SYSTEM = "system"


class Group(enum.Enum):
    """The part of the service a kind belongs to: what the metrics, the console's navigation and
    the documentation group it under."""

    #: The provider's offer: host types, templates, instance types.
    CATALOGUE = "catalogue"
    #: Network classes, networks and everything that routes traffic (networking.md).
    NETWORKING = "networking"
    #: What tenants run: clusters, virtual machines, bare-metal instances.
    WORKLOAD = "workload"
    #: Tenants themselves.
    TENANCY = "tenancy"
    #: The service's own objects (hubs), private API only.
    SYSTEM = "system"


class Policy(enum.Enum):
    """Who may call the public methods of a kind (api.md §4); every private method needs the
    provider admin role. ``osac.auth.policy`` turns each class into its grants."""

    #: Tenants create, update and delete their own objects (not those labelled default).
    TENANT_OWNED = "tenant-owned"
    #: A tenant-owned workload that also serves its credentials (GetKubeconfig, GetPassword).
    TENANT_OWNED_WITH_CREDENTIALS = "tenant-owned-with-credentials"
    #: Everybody reads; only provider admins write.
    PROVIDER_WRITES = "provider-writes"
    #: Everybody reads; the public API has no writes (the private API does).
    READ_ONLY = "read-only"
    #: No public method at all.
    PRIVATE_ONLY = "private-only"


class Method(enum.Enum):
    LIST = "List"
    GET = "Get"
    CREATE = "Create"
    UPDATE = "Update"
    DELETE = "Delete"
    SIGNAL = "Signal"


#: Fields every kind's List can be ordered by (api.md §6, docs/filters.md "List order").
ORDER_FIELDS = ("id", "metadata.name", "metadata.creation_timestamp")
#: The ordering field of kinds with a lifecycle state enum (ordered by the enum number).
STATE_ORDER_FIELD = "status.state"

STANDARD = frozenset({Method.LIST, Method.GET, Method.CREATE, Method.UPDATE, Method.DELETE})
READ_ONLY = frozenset({Method.LIST, Method.GET})


#: How a write-only value is shown, and the input that means "keep the stored value" (api.md §11.6).
WRITE_ONLY_MASK = "***"


@dataclass(frozen=True)
class Reference:
    """A reference field. ``path`` uses ``[]`` for repeated and ``{}`` for map values:
    ``spec.compute_network_attachments[].security_groups[]``, ``spec.node_sets{}.host_type``."""

    path: str
    target: str
    #: A live referrer blocks the target's delete (networking.md §4); workload targets of
    #: external IP attachments do not block (the attachment is detached instead).
    blocks_delete: bool = True


@dataclass(frozen=True)
class Kind:
    name: str
    message: str
    service: str
    collection: str
    #: Where the kind belongs (metrics, console navigation).
    group: Group = field(kw_only=True)
    #: What a person calls one object and several (``NAT gateway``, ``NAT gateways``).
    noun: str = field(kw_only=True)
    plural: str = field(kw_only=True)
    #: Who may call its public methods.
    policy: Policy = field(default=Policy.TENANT_OWNED, kw_only=True)
    #: A reconciler drives the kind's objects; the controllers refuse to start without one
    #: registered for it.
    reconciled: bool = field(default=False, kw_only=True)
    #: The kind's own columns of ``osac get`` (between the identity and the state columns).
    columns: tuple[Column, ...] = field(default=(), kw_only=True)
    #: The kind's own options of ``osac create`` and ``osac edit``.
    flags: tuple[Flag, ...] = field(default=(), kw_only=True)
    scope: Scope = Scope.TENANT
    flat: bool = False
    public_methods: frozenset[Method] = STANDARD
    private_methods: frozenset[Method] = STANDARD | {Method.SIGNAL}
    immutable: tuple[str, ...] = ()
    references: tuple[Reference, ...] = ()
    #: Objects of this kind are torn down by a reconciler before they are archived.
    has_teardown: bool = False
    aliases: tuple[str, ...] = field(default=())
    #: String fields that are stored and used but never shown: masked in every answer and
    #: refused in filters (a filter would reveal them one guess at a time).
    write_only: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.has_teardown and not self.reconciled:
            raise ValueError(f"kind {self.name}: a teardown needs a reconciler (reconciled=True)")

    @property
    def title(self) -> str:
        """The plural as a heading: ``NAT gateways``, ``External IPs``."""
        return self.plural[:1].upper() + self.plural[1:]

    @property
    def table(self) -> str:
        return self.collection

    @property
    def private_name(self) -> str:
        return f"{protos.PRIVATE}.{self.message}"

    @property
    def public_name(self) -> str:
        return f"{protos.PUBLIC}.{self.message}"

    @property
    def has_public_api(self) -> bool:
        return bool(self.public_methods)

    def private_class(self) -> type[Message]:
        return protos.message_class(self.private_name)

    def public_class(self) -> type[Message]:
        return protos.message_class(self.public_name)

    def message_class(self, private: bool) -> type[Message]:
        return self.private_class() if private else self.public_class()

    @cached_property
    def private_descriptor(self) -> Descriptor:
        return protos.message_descriptor(self.private_name)

    def mask_write_only(self, obj: Message) -> Message:
        """``obj`` (changed in place) with every set write-only field shown as ``WRITE_ONLY_MASK``."""
        for path in self.write_only:
            *parents, leaf = path.split(".")
            holder = obj
            for name in parents:
                holder = getattr(holder, name)
            if getattr(holder, leaf):
                setattr(holder, leaf, WRITE_ONLY_MASK)
        return obj

    @cached_property
    def write_only_fields(self) -> frozenset[str]:
        """Full protobuf names of the ``write_only`` fields, in both API shapes."""
        names = set()
        for path in self.write_only:
            for message in (self.private_name, self.public_name):
                descriptor = protos.message_descriptor(message)
                *parents, leaf = path.split(".")
                for name in parents:
                    descriptor = protos.message_type_of(descriptor.fields_by_name[name])
                names.add(descriptor.fields_by_name[leaf].full_name)
        return frozenset(names)

    @cached_property
    def state_enum(self) -> EnumDescriptor | None:
        """The lifecycle state enum (``status.state``, or ``status.state`` of a flat kind)."""
        status = self.private_descriptor.fields_by_name.get("status")
        if status is None or status.message_type is None:
            return None
        state = status.message_type.fields_by_name.get("state")
        return state.enum_type if state is not None else None

    @property
    def order_fields(self) -> tuple[str, ...]:
        """The fields a List of this kind can be ordered by: ``status.state`` only where the
        kind has a state enum."""
        return ORDER_FIELDS + ((STATE_ORDER_FIELD,) if self.state_enum is not None else ())

    def state_value(self, suffix: str) -> int | None:
        """The number of ``<PREFIX>_<suffix>`` in the state enum, if the enum has it."""
        enum_type = self.state_enum
        if enum_type is None:
            return None
        for value in enum_type.values:
            if value.name.endswith(f"_STATE_{suffix}"):
                return int(value.number)
        return None

    def state_name(self, number: int) -> str:
        enum_type = self.state_enum
        if enum_type is None:
            return str(number)
        value = enum_type.values_by_number.get(number)
        return value.name if value is not None else str(number)

    @property
    def is_catalogue(self) -> bool:
        return self.scope is Scope.SHARED
