"""The `auth.issuers` configuration section (docs/auth.md)."""

from __future__ import annotations

from typing import Any

import pytest

from osac.auth import AuthConfigError, Role, TrustedIssuer, load_trusted_issuers

KEYCLOAK = {
    "issuer": "https://keycloak.example.com/realms/osac",
    "jwks_url": "https://keycloak.example.com/realms/osac/protocol/openid-connect/certs",
    "admin_subjects": ["5d1c0b5e"],
}
KUBERNETES = {
    "issuer": "https://kubernetes.default.svc",
    "jwks_url": "https://kubernetes.default.svc/openid/v1/jwks",
    "subjects": {
        "system:serviceaccount:metering:reader": {"role": "provider-admin"},
        "system:serviceaccount:acme:ci": {"role": "tenant-admin", "tenants": ["acme"]},
        "system:serviceaccount:acme:viewer": {"tenants": ["acme"]},
    },
}


def test_documented_example_loads() -> None:
    issuers = load_trusted_issuers({"auth": {"issuers": [KEYCLOAK, KUBERNETES]}, "providers": {}})
    assert issuers == [
        TrustedIssuer(
            issuer="https://keycloak.example.com/realms/osac",
            jwks_url="https://keycloak.example.com/realms/osac/protocol/openid-connect/certs",
            admin_subjects=frozenset({"5d1c0b5e"}),
        ),
        TrustedIssuer(
            issuer="https://kubernetes.default.svc",
            jwks_url="https://kubernetes.default.svc/openid/v1/jwks",
            subject_roles={
                "system:serviceaccount:metering:reader": Role.PROVIDER_ADMIN,
                "system:serviceaccount:acme:ci": Role.TENANT_ADMIN,
            },
            subject_tenants={
                "system:serviceaccount:acme:ci": ("acme",),
                "system:serviceaccount:acme:viewer": ("acme",),
            },
        ),
    ]


@pytest.mark.parametrize(
    "config",
    [
        pytest.param({}, id="no-auth-section"),
        pytest.param({"auth": None}, id="empty-auth-section"),
        pytest.param({"auth": {"issuers": []}}, id="no-issuers"),
    ],
)
def test_nothing_configured_trusts_nobody_extra(config: dict[str, Any]) -> None:
    assert load_trusted_issuers(config) == []


@pytest.mark.parametrize(
    ("auth", "message"),
    [
        pytest.param([], "auth: must be a mapping", id="auth-list"),
        pytest.param({"issuer": []}, "auth: unknown key issuer; expected issuers", id="misspelt-issuers"),
        pytest.param({"issuers": {}}, "auth.issuers: must be a list of issuers", id="issuers-mapping"),
        pytest.param(
            {"issuers": [{"jwks_url": "https://x/certs"}]},
            "auth.issuers[0].issuer: required, must be a non-empty string",
            id="missing-issuer",
        ),
        pytest.param(
            {"issuers": [{"issuer": "https://x"}]},
            "auth.issuers[0].jwks_url: required, must be a non-empty string",
            id="missing-jwks-url",
        ),
        pytest.param(
            {"issuers": [{"issuer": "https://x", "jwks_url": "file:///etc/keys"}]},
            "auth.issuers[0].jwks_url: 'file:///etc/keys' is not an http(s) URL",
            id="jwks-url-not-http",
        ),
        pytest.param(
            {"issuers": [{**KEYCLOAK, "admins": ["x"]}]},
            "auth.issuers[0]: unknown key admins; expected admin_subjects, audience, console, issuer, jwks_url, max_token_lifetime, subjects",
            id="unknown-issuer-key",
        ),
        pytest.param(
            {"issuers": [{**KEYCLOAK, "admin_subjects": "root"}]},
            "auth.issuers[0].admin_subjects: must be a list of non-empty strings",
            id="admin-subjects-string",
        ),
        pytest.param(
            {"issuers": [KEYCLOAK, {**KUBERNETES, "subjects": {"ci": {"role": "admin"}}}]},
            "auth.issuers[1].subjects.ci.role: unknown role 'admin'; expected one of "
            "provider-admin, tenant-admin, tenant-user",
            id="unknown-role",
        ),
        pytest.param(
            {"issuers": [{**KUBERNETES, "subjects": {"ci": {"rol": "tenant-admin"}}}]},
            "auth.issuers[0].subjects.ci: unknown key rol; expected role, tenants",
            id="misspelt-role",
        ),
        pytest.param(
            {"issuers": [{**KUBERNETES, "subjects": {"ci": {"tenants": "acme"}}}]},
            "auth.issuers[0].subjects.ci.tenants: must be a list of non-empty strings",
            id="tenants-string",
        ),
        pytest.param(
            {"issuers": [KEYCLOAK, KEYCLOAK]},
            "auth.issuers[1].issuer: 'https://keycloak.example.com/realms/osac' is listed twice",
            id="duplicate-issuer",
        ),
    ],
)
def test_configuration_errors_name_the_path(auth: Any, message: str) -> None:
    with pytest.raises(AuthConfigError) as raised:
        load_trusted_issuers({"auth": auth})
    assert str(raised.value) == message
