"""One gRPC channel to the server and generic calls on it.

Every command talks to the API the same way: a method is named by service and method
(``Subnets``, ``List``) in the public package, or the private one with ``--private``; request
and response classes come from the service descriptor, so no generated stub is needed. Each call
carries ``authorization: Bearer <token>``; a gRPC status becomes an ``ApiError``.

Where and as whom it connects is the ``Target`` of ``target.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import TracebackType

import grpc
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from osac.cli.connection.target import NOT_LOGGED_IN, Target
from osac.cli.errors import ApiError, CliError
from osac.model import protos

#: Seconds a unary call may take before it fails with DEADLINE_EXCEEDED.
DEFAULT_TIMEOUT = 30.0
DRY_RUN_KEY = "x-dry-run"


class Connection:
    """A channel to ``target`` and generic unary and streaming calls through it."""

    def __init__(self, target: Target, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.target = target
        self.timeout = timeout
        self.package = protos.PRIVATE if target.is_private else protos.PUBLIC
        if target.is_plaintext:
            self._channel = grpc.insecure_channel(target.address)
        else:
            self._channel = grpc.secure_channel(target.address, grpc.ssl_channel_credentials())

    def __enter__(self) -> Connection:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self._channel.close()

    @property
    def is_private(self) -> bool:
        return self.target.is_private

    def method(self, service: str, method: str) -> MethodDescriptor:
        """The descriptor of ``service.method`` in this connection's API.

        :raises CliError: the API has no such service or method.
        """
        full_name = f"{self.package}.{service}"
        if not protos.has_service(full_name):
            raise CliError(f"the {self._api_name()} API has no service {service}")
        found = protos.service_descriptor(full_name).methods_by_name.get(method)
        if found is None:
            raise CliError(f"the {self._api_name()} API has no method {service}.{method}")
        return found

    def request(self, service: str, method: str, **fields: object) -> Message:
        """A request message of ``service.method`` with ``fields`` set."""
        return GetMessageClass(self.method(service, method).input_type)(**fields)

    def call(self, service: str, method: str, request: Message, *, dry_run: bool = False) -> Message:
        """Call a unary method.

        :raises ApiError: the server answered with an error status.
        :raises CliError: no token is known for the target.
        """
        descriptor = self.method(service, method)
        stub = self._channel.unary_unary(
            self._path(descriptor),
            request_serializer=_serialize,
            response_deserializer=GetMessageClass(descriptor.output_type).FromString,
        )
        try:
            return stub(request, metadata=self._metadata(dry_run), timeout=self.timeout)
        except grpc.RpcError as error:
            raise self._api_error(error) from None

    def stream(self, service: str, method: str, request: Message) -> Iterator[Message]:
        """Call a server-streaming method and yield its messages; the stream is cancelled when
        the caller stops iterating.

        :raises ApiError: the server ended the stream with an error status.
        """
        descriptor = self.method(service, method)
        stub = self._channel.unary_stream(
            self._path(descriptor),
            request_serializer=_serialize,
            response_deserializer=GetMessageClass(descriptor.output_type).FromString,
        )
        call = stub(request, metadata=self._metadata(False))
        try:
            yield from call
        except grpc.RpcError as error:
            raise self._api_error(error) from None
        finally:
            call.cancel()

    def _path(self, descriptor: MethodDescriptor) -> str:
        return f"/{descriptor.containing_service.full_name}/{descriptor.name}"

    def _metadata(self, dry_run: bool) -> list[tuple[str, str]]:
        if not self.target.token:
            raise CliError(NOT_LOGGED_IN.format(address=self.target.address))
        metadata = [("authorization", f"Bearer {self.target.token}")]
        if dry_run:
            metadata.append((DRY_RUN_KEY, "true"))
        return metadata

    def _api_error(self, error: grpc.RpcError) -> ApiError:
        code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
        details = (error.details() if hasattr(error, "details") else None) or str(error)
        if code is grpc.StatusCode.UNAVAILABLE:
            details = f"{details} (is the server running at {self.target.address}?)"
        return ApiError(code.name, details)

    def _api_name(self) -> str:
        return "private" if self.is_private else "public"


def _serialize(message: Message) -> bytes:
    return message.SerializeToString()
