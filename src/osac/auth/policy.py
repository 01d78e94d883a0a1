"""Who may call what (api.md §4, §9.2) and in which tenants (§9.3).

The rules are a table, `KINDS`: for every resource kind, the methods of the public API with the
role each needs, and the methods of the private API, all of which need the provider admin role.
A method absent from both is not offered on that kind at all (LifecycleEvents are read-only for
everyone, the service writes them). Reading the table answers "can a tenant user delete a subnet?"
without following branches. A registry kind's row comes from the policy class its descriptor
names (`GRANTS`), so adding a kind adds nothing here; the rows of what is not a kind (events, the
simulator) are `SERVICE_METHODS`.

Authorisation does not decide which objects a caller sees: that is tenancy, applied by the store
through `visible_tenants`. Objects outside the visible tenants must look nonexistent (NOT_FOUND), so
callers check visibility with `is_tenant_visible` *before* calling `authorize` on an existing object,
and PERMISSION_DENIED never reveals that something exists.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from osac.auth.errors import PermissionDenied
from osac.auth.subject import SHARED_TENANT, SYSTEM_TENANT, Role, Subject
from osac.model import registry
from osac.model.kinds import Policy

DEFAULT_LABEL = "osac.openshift.io/default"
"""Marks a tenant's default networking objects; tenant users may not update or delete them."""


class Api(Enum):
    PUBLIC = "public"
    PRIVATE = "private"


class Method(Enum):
    """API methods; the value is the gRPC method name."""

    LIST = "List"
    GET = "Get"
    CREATE = "Create"
    UPDATE = "Update"
    DELETE = "Delete"
    SIGNAL = "Signal"
    WATCH = "Watch"
    GET_KUBECONFIG = "GetKubeconfig"
    GET_PASSWORD = "GetPassword"
    CALL = "Call"
    """A kind-specific method without a standard meaning: the simulator admin methods."""

    @property
    def verb(self) -> str:
        """The method as a verb for messages: `only provider admins can create HostType objects`."""
        return _VERBS.get(self, self.value)


_VERBS = {
    Method.LIST: "list",
    Method.GET: "get",
    Method.CREATE: "create",
    Method.UPDATE: "update",
    Method.DELETE: "delete",
    Method.SIGNAL: "signal",
    Method.WATCH: "watch",
    Method.GET_KUBECONFIG: "get the kubeconfig of",
    Method.GET_PASSWORD: "get the password of",
    Method.CALL: "call the admin methods of",
}


class Grant(Enum):
    """Who may call a public method; tenancy still limits which objects."""

    ANY_ROLE = "any role"
    ANY_ROLE_EXCEPT_DEFAULTS = "any role; tenant users not on objects labelled osac.openshift.io/default=true"
    PROVIDER_ADMIN = "provider admin"


@dataclass(frozen=True)
class KindPolicy:
    """The methods of one kind. `type_name` is the API message name used in messages."""

    type_name: str
    public: Mapping[Method, Grant] = field(default_factory=dict)
    private: frozenset[Method] = frozenset()


_READ = {Method.LIST: Grant.ANY_ROLE, Method.GET: Grant.ANY_ROLE}
_TENANT_OWNED = {
    **_READ,
    Method.CREATE: Grant.ANY_ROLE,
    Method.UPDATE: Grant.ANY_ROLE_EXCEPT_DEFAULTS,
    Method.DELETE: Grant.ANY_ROLE_EXCEPT_DEFAULTS,
}
_PROVIDER_WRITES = {
    **_READ,
    Method.CREATE: Grant.PROVIDER_ADMIN,
    Method.UPDATE: Grant.PROVIDER_ADMIN,
    Method.DELETE: Grant.PROVIDER_ADMIN,
}
_CLUSTER = {**_TENANT_OWNED, Method.GET_KUBECONFIG: Grant.ANY_ROLE, Method.GET_PASSWORD: Grant.ANY_ROLE}
_STANDARD = frozenset({Method.LIST, Method.GET, Method.CREATE, Method.UPDATE, Method.DELETE, Method.SIGNAL})

#: The public grants of each policy class a kind's descriptor names (``Kind.policy``).
GRANTS: Mapping[Policy, Mapping[Method, Grant]] = {
    Policy.TENANT_OWNED: _TENANT_OWNED,
    Policy.TENANT_OWNED_WITH_CREDENTIALS: _CLUSTER,
    Policy.PROVIDER_WRITES: _PROVIDER_WRITES,
    Policy.READ_ONLY: _READ,
    Policy.PRIVATE_ONLY: {},
}

#: The methods that are not a registry kind's: lifecycle events, the Watch, the simulator.
SERVICE_METHODS: Mapping[str, KindPolicy] = {
    "lifecycle_event": KindPolicy("LifecycleEvent", _READ, frozenset({Method.LIST, Method.GET})),
    "event": KindPolicy("Event", {Method.WATCH: Grant.ANY_ROLE}, frozenset({Method.WATCH})),
    "simulator": KindPolicy("Simulator", {}, frozenset({Method.CALL})),
    "simulator_fault": KindPolicy(
        "SimulatorFault", {}, frozenset({Method.LIST, Method.CREATE, Method.DELETE})
    ),
}

KINDS: Mapping[str, KindPolicy] = {
    **{kind.name: KindPolicy(kind.message, GRANTS[kind.policy], _STANDARD) for kind in registry.KINDS},
    **SERVICE_METHODS,
}
"""Snake_case kind name → its methods. Every private method needs the provider admin role."""

_CHANGES = frozenset({Method.UPDATE, Method.DELETE, Method.SIGNAL})
_WRITES = frozenset({Method.CREATE, Method.UPDATE, Method.DELETE})
_READS = frozenset({Method.LIST, Method.GET, Method.WATCH})


def authorize(
    subject: Subject,
    *,
    api: Api,
    kind: str,
    method: Method,
    labels: Mapping[str, str] | None = None,
    tenant: str | None = None,
) -> None:
    """Allow the call or raise PermissionDenied saying which role or API it needs.

    :param labels: the *stored* labels of the object an Update or Delete targets; None while the
        object is not loaded yet, in which case the default-label rule is not checked: call again
        with the labels once the object is loaded.
    :param tenant: the stored tenant of the object an Update, Delete or Signal targets (Create
        uses `resolve_create_tenant`). The caller has already answered NOT_FOUND if the tenant is
        not visible.
    :raises PermissionDenied: the subject's role, the API or the object's tenant does not allow it.
    :raises ValueError: `kind` is not a kind of `KINDS` (a programming error).
    """
    policy = KINDS.get(kind)
    if policy is None:
        raise ValueError(f"unknown kind '{kind}'; expected one of {', '.join(KINDS)}")

    if api is Api.PRIVATE:
        if not subject.is_provider_admin:
            raise PermissionDenied("the private API requires the provider admin role")
        if method not in policy.private:
            raise PermissionDenied(_not_offered(policy, method))
        return

    grant = policy.public.get(method)
    if grant is None:
        if method in policy.private:
            raise PermissionDenied(f"{method.value} on {policy.type_name} objects requires the private API")
        raise PermissionDenied(_not_offered(policy, method))
    if grant is Grant.PROVIDER_ADMIN and not subject.is_provider_admin:
        raise PermissionDenied(f"only provider admins can {method.verb} {policy.type_name} objects")
    if tenant is not None and method in _CHANGES and not _is_assignable(subject, tenant):
        if is_tenant_visible(subject, tenant):
            raise PermissionDenied(
                f"only provider admins can {method.verb} {policy.type_name} objects in tenant '{tenant}'"
            )
        raise PermissionDenied(f"{policy.type_name} objects outside your tenants cannot be changed")
    if (
        grant is Grant.ANY_ROLE_EXCEPT_DEFAULTS
        and subject.role is Role.TENANT_USER
        and labels is not None
        and labels.get(DEFAULT_LABEL) == "true"
    ):
        raise PermissionDenied(f"tenant users cannot {method.verb} objects labelled {DEFAULT_LABEL}=true")


def resolve_create_tenant(subject: Subject, requested: str | None) -> str:
    """The tenant a new object goes to (api.md §9.3).

    Defaults to the first tenant of the token's `organization`, or `shared` for a provider admin.
    The message for a tenant the caller may not use is the same whether or not that tenant
    exists. Whether it exists and is not being deleted is the service's check (FAILED_PRECONDITION).

    :raises PermissionDenied: the caller may not create objects in `requested`, or in any tenant.
    """
    requested = requested or None
    if subject.is_provider_admin:
        return requested or SHARED_TENANT
    own = [name for name in subject.tenants if _is_assignable(subject, name)]
    if not own:
        reserved = [name for name in subject.tenants if name in (SYSTEM_TENANT, SHARED_TENANT)]
        if reserved:
            raise PermissionDenied(
                f"token organization '{reserved[0]}' is reserved for the service's own objects and names no "
                "tenant; cannot create objects; use a token whose organization is your tenant"
            )
        raise PermissionDenied("token carries no organization; cannot create objects")
    if requested is None:
        return own[0]
    if requested in own:
        return requested
    if requested == SHARED_TENANT:
        raise PermissionDenied(f"only provider admins can create objects in tenant '{SHARED_TENANT}'")
    raise PermissionDenied(f"tenant '{requested}' is not one of your tenants")


def visible_tenants(subject: Subject) -> frozenset[str] | None:
    """The tenants store queries are limited to; None means no limit (provider admins)."""
    return subject.visible_tenants


def is_tenant_visible(subject: Subject, tenant: str) -> bool:
    """Whether objects of `tenant` exist for this subject. The one place that answers it."""
    visible = subject.visible_tenants
    return visible is None or tenant in visible


def _is_assignable(subject: Subject, tenant: str) -> bool:
    assignable = subject.assignable_tenants
    return assignable is None or tenant in assignable


def _not_offered(policy: KindPolicy, method: Method) -> str:
    offered = set(policy.public) | policy.private
    if method in _WRITES and offered <= _READS:
        return f"{policy.type_name} objects are read-only; only the service writes them"
    return f"{method.value} is not a method of {policy.type_name} objects"
