"""Turning request credentials into a Caller (api.md §9.1)."""

from __future__ import annotations

from osac.auth import errors as auth_errors
from osac.auth.verifier import TokenVerifier
from osac.services.core.context import Caller
from osac.services.core.errors import Unauthenticated

DRY_RUN_KEY = "x-dry-run"


class Authenticator:
    def __init__(self, verifier: TokenVerifier) -> None:
        self.verifier = verifier

    async def caller(self, authorization: str | None, *, private: bool, dry_run: str | None = None) -> Caller:
        try:
            subject = await self.verifier.verify(authorization)
        except auth_errors.AuthError as error:
            raise Unauthenticated(str(error)) from error
        return Caller(subject, private=private, dry_run=(dry_run or "").strip().lower() == "true")
