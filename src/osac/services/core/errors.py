"""API errors raised by the service layer. Each maps to exactly one gRPC code and HTTP status.

ServiceError
 +-- InvalidArgument     INVALID_ARGUMENT     400
 |    +-- UnsupportedMediaType INVALID_ARGUMENT 415 (a REST body that is not JSON)
 +-- NotFound            NOT_FOUND            404
 +-- AlreadyExists       ALREADY_EXISTS       409
 +-- FailedPrecondition  FAILED_PRECONDITION  400
 +-- ResourceExhausted   RESOURCE_EXHAUSTED   429
 |    +-- PayloadTooLarge RESOURCE_EXHAUSTED   413 (a REST body over the size bound)
 +-- Aborted             ABORTED              409
 +-- OutOfRange          OUT_OF_RANGE         400
 +-- PermissionDenied    PERMISSION_DENIED    403
 +-- Unauthenticated     UNAUTHENTICATED      401
 +-- Unavailable         UNAVAILABLE          503

Messages name the field path or the object and, where there is one, the fix.
"""

from __future__ import annotations

import grpc

from osac.store.errors import DatabaseUnavailable, WriteContention


class ServiceError(Exception):
    code: grpc.StatusCode = grpc.StatusCode.INTERNAL
    http_status: int = 500

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidArgument(ServiceError):
    code = grpc.StatusCode.INVALID_ARGUMENT
    http_status = 400


class NotFound(ServiceError):
    code = grpc.StatusCode.NOT_FOUND
    http_status = 404


class AlreadyExists(ServiceError):
    code = grpc.StatusCode.ALREADY_EXISTS
    http_status = 409


class FailedPrecondition(ServiceError):
    code = grpc.StatusCode.FAILED_PRECONDITION
    http_status = 400


class ResourceExhausted(ServiceError):
    code = grpc.StatusCode.RESOURCE_EXHAUSTED
    http_status = 429


class PayloadTooLarge(ResourceExhausted):
    http_status = 413


class UnsupportedMediaType(InvalidArgument):
    http_status = 415


class Aborted(ServiceError):
    code = grpc.StatusCode.ABORTED
    http_status = 409


class OutOfRange(ServiceError):
    code = grpc.StatusCode.OUT_OF_RANGE
    http_status = 400


class PermissionDenied(ServiceError):
    code = grpc.StatusCode.PERMISSION_DENIED
    http_status = 403


class Unauthenticated(ServiceError):
    code = grpc.StatusCode.UNAUTHENTICATED
    http_status = 401


class Unavailable(ServiceError):
    code = grpc.StatusCode.UNAVAILABLE
    http_status = 503


#: gRPC code → HTTP status, for errors that do not come from this module (e.g. grpc aborts).
HTTP_STATUS = {cls.code: cls.http_status for cls in ServiceError.__subclasses__()}


#: What ``api_error`` turns into an API status: the service's errors and the store's failures
#: that a client retries on (ABORTED / UNAVAILABLE).
API_ERRORS: tuple[type[Exception], ...] = (ServiceError, WriteContention, DatabaseUnavailable)


def api_error(error: Exception) -> ServiceError | None:
    """The API error an exception stands for: service errors as they are, the store's transient
    failures as the code a client retries on; None for an unexpected exception (a bug)."""
    if isinstance(error, ServiceError):
        return error
    if isinstance(error, WriteContention):
        return Aborted(f"{error}; nothing was changed, retry the request")
    if isinstance(error, DatabaseUnavailable):
        return Unavailable(str(error))
    return None
