"""The role x method x API truth table of api.md §4 and §9.2, and tenancy of §9.3.

The table below is written from the spec, independently of `osac.auth.policy.KINDS`: each cell is
`public/private`, with
    A  any role (tenancy still decides which objects)
    D  any role, but tenant users not on objects labelled osac.openshift.io/default=true
    P  provider admins only
    -  not on this API, only on the other one
    r  a write to a read-only kind
    x  not a method of the kind
"""

from __future__ import annotations

from typing import Any

import pytest

from osac.auth import (
    Api,
    Method,
    PermissionDenied,
    Role,
    Subject,
    authorize,
    is_tenant_visible,
    resolve_create_tenant,
    visible_tenants,
)

COLUMNS = (
    Method.LIST,
    Method.GET,
    Method.CREATE,
    Method.UPDATE,
    Method.DELETE,
    Method.SIGNAL,
    Method.WATCH,
    Method.GET_KUBECONFIG,
    Method.GET_PASSWORD,
    Method.CALL,
)

# fmt: off
TABLE = {
    #                            List Get  Create Update Delete Signal Watch Kubecfg Passwd Call
    "tenant":                   "A/P  A/P  P/P    P/P    P/P    -/P    x/x   x/x     x/x    x/x",
    "network_class":            "A/P  A/P  -/P    -/P    -/P    -/P    x/x   x/x     x/x    x/x",
    "virtual_network":          "A/P  A/P  A/P    D/P    D/P    -/P    x/x   x/x     x/x    x/x",
    "subnet":                   "A/P  A/P  A/P    D/P    D/P    -/P    x/x   x/x     x/x    x/x",
    "security_group":           "A/P  A/P  A/P    D/P    D/P    -/P    x/x   x/x     x/x    x/x",
    "external_ip_pool":         "A/P  A/P  -/P    -/P    -/P    -/P    x/x   x/x     x/x    x/x",
    "external_ip":              "A/P  A/P  A/P    D/P    D/P    -/P    x/x   x/x     x/x    x/x",
    "external_ip_attachment":   "A/P  A/P  A/P    D/P    D/P    -/P    x/x   x/x     x/x    x/x",
    "nat_gateway":              "A/P  A/P  A/P    D/P    D/P    -/P    x/x   x/x     x/x    x/x",
    "host_type":                "A/P  A/P  P/P    P/P    P/P    -/P    x/x   x/x     x/x    x/x",
    "cluster_template":         "A/P  A/P  P/P    P/P    P/P    -/P    x/x   x/x     x/x    x/x",
    "cluster":                  "A/P  A/P  A/P    D/P    D/P    -/P    x/x   A/x     A/x    x/x",
    "compute_instance_template":"A/P  A/P  P/P    P/P    P/P    -/P    x/x   x/x     x/x    x/x",
    "instance_type":            "A/P  A/P  P/P    P/P    P/P    -/P    x/x   x/x     x/x    x/x",
    "compute_instance":         "A/P  A/P  A/P    D/P    D/P    -/P    x/x   x/x     x/x    x/x",
    "bare_metal_instance":      "A/P  A/P  A/P    D/P    D/P    -/P    x/x   x/x     x/x    x/x",
    "hub":                      "-/P  -/P  -/P    -/P    -/P    -/P    x/x   x/x     x/x    x/x",
    "lifecycle_event":          "A/P  A/P  r/r    r/r    r/r    x/x    x/x   x/x     x/x    x/x",
    "event":                    "x/x  x/x  r/r    r/r    r/r    x/x    A/P   x/x     x/x    x/x",
    "simulator":                "x/x  x/x  x/x    x/x    x/x    x/x    x/x   x/x     x/x    -/P",
    "simulator_fault":          "-/P  x/x  -/P    x/x    -/P    x/x    x/x   x/x     x/x    x/x",
}
# fmt: on

TYPE_NAMES = {
    "tenant": "Tenant",
    "network_class": "NetworkClass",
    "virtual_network": "VirtualNetwork",
    "subnet": "Subnet",
    "security_group": "SecurityGroup",
    "external_ip_pool": "ExternalIPPool",
    "external_ip": "ExternalIP",
    "external_ip_attachment": "ExternalIPAttachment",
    "nat_gateway": "NATGateway",
    "host_type": "HostType",
    "cluster_template": "ClusterTemplate",
    "cluster": "Cluster",
    "compute_instance_template": "ComputeInstanceTemplate",
    "instance_type": "InstanceType",
    "compute_instance": "ComputeInstance",
    "bare_metal_instance": "BareMetalInstance",
    "hub": "Hub",
    "lifecycle_event": "LifecycleEvent",
    "event": "Event",
    "simulator": "Simulator",
    "simulator_fault": "SimulatorFault",
}

VERBS = {
    Method.CREATE: "create",
    Method.UPDATE: "update",
    Method.DELETE: "delete",
}

SUBJECTS = {
    Role.PROVIDER_ADMIN: Subject("root", (), frozenset({Role.PROVIDER_ADMIN})),
    Role.TENANT_ADMIN: Subject("ann", ("acme",), frozenset({Role.TENANT_ADMIN})),
    Role.TENANT_USER: Subject("bob", ("acme",), frozenset({Role.TENANT_USER})),
}

DEFAULT_LABELS = {"osac.openshift.io/default": "true"}


def expected_outcome(
    cell: str, api: Api, role: Role, kind: str, method: Method, labelled: bool
) -> str | None:
    """None for allowed, else the PERMISSION_DENIED message, straight from the legend."""
    type_name = TYPE_NAMES[kind]
    if api is Api.PRIVATE and role is not Role.PROVIDER_ADMIN:
        return "the private API requires the provider admin role"
    if cell == "A":
        return None
    if cell == "D":
        if role is Role.TENANT_USER and labelled:
            return f"tenant users cannot {VERBS[method]} objects labelled osac.openshift.io/default=true"
        return None
    if cell == "P":
        return (
            None
            if role is Role.PROVIDER_ADMIN
            else f"only provider admins can {VERBS[method]} {type_name} objects"
        )
    if cell == "-":
        return f"{method.value} on {type_name} objects requires the private API"
    if cell == "r":
        return f"{type_name} objects are read-only; only the service writes them"
    assert cell == "x", cell
    return f"{method.value} is not a method of {type_name} objects"


def truth_table_rows() -> list[Any]:
    rows = []
    for kind, line in TABLE.items():
        cells = line.split()
        assert len(cells) == len(COLUMNS), kind
        for method, cell in zip(COLUMNS, cells, strict=True):
            for api, api_cell in zip((Api.PUBLIC, Api.PRIVATE), cell.split("/"), strict=True):
                for role in Role:
                    for labelled in (False, True) if api_cell == "D" else (False,):
                        expected = expected_outcome(api_cell, api, role, kind, method, labelled)
                        row_id = f"{api.value}-{kind}-{method.value}-{role.value}" + (
                            "-default" if labelled else ""
                        )
                        rows.append(pytest.param(api, kind, method, role, labelled, expected, id=row_id))
    return rows


@pytest.mark.parametrize(("api", "kind", "method", "role", "labelled", "expected"), truth_table_rows())
def test_role_method_api_truth_table(
    api: Api, kind: str, method: Method, role: Role, labelled: bool, expected: str | None
) -> None:
    subject = SUBJECTS[role]
    labels = DEFAULT_LABELS if labelled else {"env": "prod"}
    if expected is None:
        authorize(subject, api=api, kind=kind, method=method, labels=labels)
    else:
        with pytest.raises(PermissionDenied) as raised:
            authorize(subject, api=api, kind=kind, method=method, labels=labels)
        assert raised.value.message == expected
        assert raised.value.code == "PERMISSION_DENIED"


def test_every_kind_of_the_policy_is_in_the_truth_table() -> None:
    from osac.auth import KINDS

    assert set(KINDS) == set(TABLE)


def test_the_system_subject_has_provider_admin_rights() -> None:
    authorize(Subject.system(), api=Api.PRIVATE, kind="hub", method=Method.SIGNAL)


def test_default_label_rule_waits_for_the_stored_labels() -> None:
    """Before the object is loaded the label rule cannot apply; with the labels it does."""
    user = SUBJECTS[Role.TENANT_USER]
    authorize(user, api=Api.PUBLIC, kind="security_group", method=Method.UPDATE)
    with pytest.raises(PermissionDenied):
        authorize(user, api=Api.PUBLIC, kind="security_group", method=Method.UPDATE, labels=DEFAULT_LABELS)


@pytest.mark.parametrize(
    ("role", "tenant", "expected"),
    [
        pytest.param(Role.TENANT_ADMIN, "acme", None, id="tenant-admin-own-tenant"),
        pytest.param(
            Role.TENANT_ADMIN,
            "shared",
            "only provider admins can delete Subnet objects in tenant 'shared'",
            id="tenant-admin-shared-object",
        ),
        pytest.param(
            Role.TENANT_USER,
            "beta",
            "Subnet objects outside your tenants cannot be changed",
            id="tenant-user-foreign-tenant-names-no-tenant",
        ),
        pytest.param(Role.PROVIDER_ADMIN, "beta", None, id="provider-admin-any-tenant"),
        pytest.param(Role.PROVIDER_ADMIN, "shared", None, id="provider-admin-shared"),
    ],
)
def test_changes_need_a_tenant_the_subject_may_assign(role: Role, tenant: str, expected: str | None) -> None:
    subject = SUBJECTS[role]
    if expected is None:
        authorize(subject, api=Api.PUBLIC, kind="subnet", method=Method.DELETE, tenant=tenant)
    else:
        with pytest.raises(PermissionDenied, match=f"^{expected}$"):
            authorize(subject, api=Api.PUBLIC, kind="subnet", method=Method.DELETE, tenant=tenant)


def test_unknown_kind_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown kind 'subnets'"):
        authorize(SUBJECTS[Role.PROVIDER_ADMIN], api=Api.PUBLIC, kind="subnets", method=Method.GET)


ADMIN = Subject("root", ("acme",), frozenset({Role.PROVIDER_ADMIN}))
TWO_TENANTS = Subject("ann", ("acme", "beta"), frozenset({Role.TENANT_ADMIN}))
NO_ORGANIZATION = Subject("eve", (), frozenset({Role.TENANT_USER}))
RESERVED_FIRST = Subject("rex", ("shared", "system", "acme"), frozenset({Role.TENANT_USER}))


@pytest.mark.parametrize(
    ("subject", "requested", "expected"),
    [
        pytest.param(ADMIN, None, "shared", id="admin-defaults-to-shared"),
        pytest.param(ADMIN, "", "shared", id="admin-empty-means-default"),
        pytest.param(ADMIN, "beta", "beta", id="admin-any-tenant"),
        pytest.param(ADMIN, "shared", "shared", id="admin-shared"),
        pytest.param(TWO_TENANTS, None, "acme", id="member-defaults-to-first-in-claim-order"),
        pytest.param(TWO_TENANTS, "beta", "beta", id="member-second-own-tenant"),
        pytest.param(
            TWO_TENANTS,
            "shared",
            PermissionDenied("only provider admins can create objects in tenant 'shared'"),
            id="member-shared-denied",
        ),
        pytest.param(
            TWO_TENANTS,
            "gamma",
            PermissionDenied("tenant 'gamma' is not one of your tenants"),
            id="member-foreign-tenant-denied",
        ),
        pytest.param(
            TWO_TENANTS,
            "system",
            PermissionDenied("tenant 'system' is not one of your tenants"),
            id="member-system-denied",
        ),
        pytest.param(
            NO_ORGANIZATION,
            None,
            PermissionDenied("token carries no organization; cannot create objects"),
            id="no-organization-default",
        ),
        pytest.param(
            NO_ORGANIZATION,
            "acme",
            PermissionDenied("token carries no organization; cannot create objects"),
            id="no-organization-explicit",
        ),
        pytest.param(RESERVED_FIRST, None, "acme", id="reserved-claims-skipped-for-default"),
        pytest.param(
            RESERVED_FIRST,
            "shared",
            PermissionDenied("only provider admins can create objects in tenant 'shared'"),
            id="shared-in-claims-still-denied",
        ),
    ],
)
def test_resolve_create_tenant(
    subject: Subject, requested: str | None, expected: str | PermissionDenied
) -> None:
    if isinstance(expected, str):
        assert resolve_create_tenant(subject, requested) == expected
    else:
        with pytest.raises(PermissionDenied) as raised:
            resolve_create_tenant(subject, requested)
        assert raised.value.message == expected.message


@pytest.mark.parametrize(
    ("subject", "tenant", "visible"),
    [
        pytest.param(ADMIN, "beta", True, id="admin-any-tenant"),
        pytest.param(ADMIN, "system", True, id="admin-system"),
        pytest.param(TWO_TENANTS, "acme", True, id="member-own"),
        pytest.param(TWO_TENANTS, "shared", True, id="member-shared"),
        pytest.param(TWO_TENANTS, "gamma", False, id="member-foreign"),
        pytest.param(TWO_TENANTS, "system", False, id="member-system"),
        pytest.param(NO_ORGANIZATION, "shared", True, id="no-organization-shared"),
        pytest.param(NO_ORGANIZATION, "acme", False, id="no-organization-other"),
        pytest.param(RESERVED_FIRST, "system", False, id="system-in-claims-stays-hidden"),
    ],
)
def test_tenant_visibility(subject: Subject, tenant: str, visible: bool) -> None:
    assert is_tenant_visible(subject, tenant) is visible


def test_visible_tenants_for_store_queries() -> None:
    assert visible_tenants(ADMIN) is None
    assert visible_tenants(TWO_TENANTS) == frozenset({"acme", "beta", "shared"})
    assert visible_tenants(NO_ORGANIZATION) == frozenset({"shared"})
