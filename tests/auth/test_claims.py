"""Claim shapes of api.md §9.1: user name fallbacks, organization as list or object, realm roles,
the `admins` group and per-issuer configured subjects."""

from __future__ import annotations

from typing import Any

import pytest

from osac.auth import Role, Subject, Unauthenticated, subject_from_claims

PA, TA, TU = Role.PROVIDER_ADMIN, Role.TENANT_ADMIN, Role.TENANT_USER


@pytest.mark.parametrize(
    ("claims", "user", "tenants", "roles"),
    [
        pytest.param(
            {"preferred_username": "alice", "username": "al", "sub": "u-1"},
            "alice",
            (),
            {TU},
            id="preferred-username-wins",
        ),
        pytest.param({"username": "al", "sub": "u-1"}, "al", (), {TU}, id="username-fallback"),
        pytest.param({"sub": "u-1"}, "u-1", (), {TU}, id="sub-fallback"),
        pytest.param({"preferred_username": "", "sub": "u-1"}, "u-1", (), {TU}, id="empty-name-skipped"),
        pytest.param(
            {"sub": "u", "organization": ["acme", "beta"]}, "u", ("acme", "beta"), {TU}, id="org-list"
        ),
        pytest.param(
            {"sub": "u", "organization": {"zeta": {"id": "1"}, "acme": {}}},
            "u",
            ("zeta", "acme"),
            {TU},
            id="org-object-keys-in-claim-order",
        ),
        pytest.param(
            {"sub": "u", "organization": ["acme", "acme"]}, "u", ("acme",), {TU}, id="org-duplicates"
        ),
        pytest.param({"sub": "u", "organization": []}, "u", (), {TU}, id="org-empty"),
        pytest.param(
            {"sub": "u", "realm_access": {"roles": ["cloud-provider-admin"]}},
            "u",
            (),
            {PA},
            id="realm-provider-admin",
        ),
        pytest.param(
            {"sub": "u", "realm_access": {"roles": ["tenant-admin"]}}, "u", (), {TA}, id="realm-tenant-admin"
        ),
        pytest.param(
            {"sub": "u", "realm_access": {"roles": ["offline_access", "uma_authorization"]}},
            "u",
            (),
            {TU},
            id="realm-other-roles-tenant-user",
        ),
        pytest.param(
            {"sub": "u", "realm_access": {"roles": ["tenant-admin", "offline_access"]}},
            "u",
            (),
            {TA},
            id="realm-admin-plus-default-roles",
        ),
        pytest.param(
            {"sub": "u", "realm_access": {"roles": ["tenant-admin", "cloud-provider-admin"]}},
            "u",
            (),
            {PA, TA},
            id="realm-both-admin-roles",
        ),
        pytest.param({"sub": "u", "realm_access": {}}, "u", (), {TU}, id="realm-without-roles"),
        pytest.param({"sub": "u", "groups": ["admins"]}, "u", (), {PA}, id="group-admins"),
        pytest.param({"sub": "u", "groups": ["/admins"]}, "u", (), {PA}, id="group-admins-keycloak-path"),
        pytest.param({"sub": "u", "groups": ["developers"]}, "u", (), {TU}, id="group-other"),
    ],
)
def test_claim_shapes(claims: dict[str, Any], user: str, tenants: tuple[str, ...], roles: set[Role]) -> None:
    subject = subject_from_claims(claims, issuer="https://idp.example")
    assert (subject.user, subject.tenants, subject.roles) == (user, tenants, frozenset(roles))
    assert subject.issuer == "https://idp.example"


@pytest.mark.parametrize(
    ("claims", "message"),
    [
        pytest.param(
            {"iss": "x"},
            "token names no user; expected claim 'preferred_username', 'username' or 'sub'",
            id="no-user",
        ),
        pytest.param(
            {"preferred_username": 42}, "claim 'preferred_username' must be a string, got int", id="user-int"
        ),
        pytest.param(
            {"sub": "u", "organization": "acme"},
            "claim 'organization' must be a list of tenant names or an object keyed by tenant name",
            id="org-string",
        ),
        pytest.param(
            {"sub": "u", "organization": ["acme", 7]},
            "claim 'organization' must be a list of tenant names or an object keyed by tenant name",
            id="org-list-of-int",
        ),
        pytest.param(
            {"sub": "u", "organization": [""]},
            "claim 'organization' contains an empty tenant name",
            id="org-empty-name",
        ),
        pytest.param(
            {"sub": "u", "realm_access": ["tenant-admin"]},
            "claim 'realm_access' must be an object with a 'roles' list",
            id="realm-access-list",
        ),
        pytest.param(
            {"sub": "u", "realm_access": {"roles": "tenant-admin"}},
            "claim 'realm_access.roles' must be a list of strings",
            id="realm-roles-string",
        ),
        pytest.param(
            {"sub": "u", "groups": "admins"}, "claim 'groups' must be a list of strings", id="groups-string"
        ),
    ],
)
def test_malformed_claims_are_refused_by_name(claims: dict[str, Any], message: str) -> None:
    with pytest.raises(Unauthenticated) as raised:
        subject_from_claims(claims, issuer="https://idp.example")
    assert raised.value.message == message


SERVICE_ACCOUNT = {"iss": "https://k8s", "sub": "system:serviceaccount:metering:reader"}


@pytest.mark.parametrize(
    ("claims", "config", "roles", "tenants"),
    [
        pytest.param(
            SERVICE_ACCOUNT,
            {"admin_subjects": frozenset({"system:serviceaccount:metering:reader"})},
            {PA},
            (),
            id="admin-subject",
        ),
        pytest.param(
            {**SERVICE_ACCOUNT, "preferred_username": "root"},
            {"admin_subjects": frozenset({"root"})},
            {TU},
            (),
            id="admin-subjects-match-sub-not-user-name",
        ),
        pytest.param(
            {**SERVICE_ACCOUNT, "realm_access": {"roles": ["cloud-provider-admin"]}, "organization": ["x"]},
            {
                "subject_roles": {"system:serviceaccount:metering:reader": TA},
                "subject_tenants": {"system:serviceaccount:metering:reader": ("acme",)},
            },
            {TA},
            ("acme",),
            id="configured-role-and-tenants-replace-claims",
        ),
        pytest.param(
            {**SERVICE_ACCOUNT, "organization": ["x"]},
            {"subject_roles": {"someone-else": PA}, "subject_tenants": {"someone-else": ("acme",)}},
            {TU},
            ("x",),
            id="other-subjects-unaffected",
        ),
        pytest.param(
            SERVICE_ACCOUNT,
            {
                "admin_subjects": frozenset({"system:serviceaccount:metering:reader"}),
                "subject_roles": {"system:serviceaccount:metering:reader": TU},
            },
            {PA},
            (),
            id="admin-subject-wins-over-configured-role",
        ),
    ],
)
def test_configured_subjects(
    claims: dict[str, Any], config: dict[str, Any], roles: set[Role], tenants: tuple[str, ...]
) -> None:
    subject = subject_from_claims(claims, issuer="https://k8s", **config)
    assert subject.roles == frozenset(roles)
    assert subject.tenants == tenants


def test_system_subject() -> None:
    system = Subject.system()
    assert system.user == "system"
    assert system.is_provider_admin
    assert system.visible_tenants is None
    assert system.assignable_tenants is None


@pytest.mark.parametrize(
    ("roles", "strongest"),
    [
        pytest.param(set(), TU, id="none-is-tenant-user"),
        pytest.param({TU, TA}, TA, id="tenant-admin-over-user"),
        pytest.param({TA, PA}, PA, id="provider-admin-over-all"),
    ],
)
def test_strongest_role(roles: set[Role], strongest: Role) -> None:
    assert Subject("u", (), frozenset(roles)).role is strongest
