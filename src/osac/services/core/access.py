"""The service layer's view of the authorisation policy (``osac.auth.policy``)."""

from __future__ import annotations

from collections.abc import Mapping

from osac.auth import errors as auth_errors
from osac.auth import policy
from osac.model.kinds import Kind, Method
from osac.services.core.context import Caller
from osac.services.core.errors import PermissionDenied


def api_of(caller: Caller) -> policy.Api:
    return policy.Api.PRIVATE if caller.private else policy.Api.PUBLIC


def authorize(
    caller: Caller,
    kind: Kind | str,
    method: Method | policy.Method,
    labels: Mapping[str, str] | None = None,
    tenant: str | None = None,
) -> None:
    """Allow the call or raise PermissionDenied (api.md §4, §9.2)."""
    name = kind if isinstance(kind, str) else kind.name
    verb = method if isinstance(method, policy.Method) else policy.Method(method.value)
    try:
        policy.authorize(caller.subject, api=api_of(caller), kind=name, method=verb, labels=labels, tenant=tenant)
    except auth_errors.PermissionDenied as error:
        raise PermissionDenied(str(error)) from error


def creation_tenant(caller: Caller, requested: str | None) -> str:
    try:
        return policy.resolve_create_tenant(caller.subject, requested)
    except auth_errors.PermissionDenied as error:
        raise PermissionDenied(str(error)) from error
