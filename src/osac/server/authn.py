"""Turning request credentials into a Caller (api.md §9.1)."""

from __future__ import annotations

from osac.auth import errors as auth_errors
from osac.auth.verifier import TokenVerifier
from osac.services.core.context import Caller
from osac.services.core.errors import InvalidArgument, PermissionDenied, Unauthenticated

DRY_RUN_KEY = "x-dry-run"


class Authenticator:
    def __init__(self, verifier: TokenVerifier) -> None:
        self.verifier = verifier

    async def caller(self, authorization: str | None, *, private: bool, dry_run: str | None = None) -> Caller:
        try:
            subject = await self.verifier.verify(authorization)
        except auth_errors.AuthError as error:
            raise Unauthenticated(str(error)) from error
        return Caller(subject, private=private, dry_run=is_dry_run(dry_run))

    async def provider_admin(self, authorization: str | None, what: str) -> Caller:
        """The caller of ``what`` (an endpoint outside the API, e.g. ``/metrics``), which only
        provider admins may read.

        :raises Unauthenticated: no token, or one that does not verify.
        :raises PermissionDenied: a verified token of someone else than a provider admin.
        """
        try:
            caller = await self.caller(authorization, private=False)
        except Unauthenticated as error:
            raise Unauthenticated(f"{what} requires a provider-admin bearer token: {error.message}") from None
        subject = caller.subject
        if not subject.is_provider_admin:
            tenants = f" of {', '.join(subject.tenants)}" if subject.tenants else ""
            raise PermissionDenied(
                f"{what} requires a provider-admin token; '{subject.user}' is a {subject.role.value}{tenants}"
            )
        return caller


def is_dry_run(value: str | None) -> bool:
    """The ``x-dry-run`` header (REST) or metadata (gRPC): absent, blank, ``true`` or ``false``.
    Anything else is refused, since reading it as false would carry out a request its caller
    meant only to check."""
    text = (value or "").strip().lower()
    if text not in ("", "true", "false"):
        raise InvalidArgument(f"{DRY_RUN_KEY}: '{(value or '')[:40]}' is not a boolean; use true or false")
    return text == "true"
