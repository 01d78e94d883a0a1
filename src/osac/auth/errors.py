"""Errors of the auth package.

    Exception
    ├── AuthError                 a request is refused; `code` names the API status
    │   ├── Unauthenticated       code "UNAUTHENTICATED": token missing, malformed, expired,
    │   │                         badly signed or from an untrusted issuer (gRPC 16, HTTP 401)
    │   └── PermissionDenied      code "PERMISSION_DENIED": the subject is known but its role or
    │                             tenants do not allow the call (gRPC 7, HTTP 403)
    └── AuthConfigError (ValueError)
                                  the auth configuration or the development issuer's key file is
                                  unusable; raised at startup, never while serving a request

The server maps `AuthError.code` to its gRPC and HTTP status and sends `message` as is, so messages
are stable (tests compare them) and never name objects of other tenants.
"""

from __future__ import annotations

from typing import ClassVar


class AuthError(Exception):
    """A refused request. Not raised directly: use one of the subclasses."""

    code: ClassVar[str]

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Unauthenticated(AuthError):
    """The caller has not proved who it is; fix: send a valid bearer token."""

    code = "UNAUTHENTICATED"


class PermissionDenied(AuthError):
    """The caller is known but not allowed; the message says which role or tenant is needed."""

    code = "PERMISSION_DENIED"


class AuthConfigError(ValueError):
    """The auth section of the configuration or the dev issuer key is unusable.

    The message names the offending configuration path or file and the fix.
    """
