"""gRPC servicers generated from the service descriptors: one generic handler per service.

Every method of every service in ``osac.public.v1`` / ``osac.private.v1`` is bound to the
endpoint object's attribute of the same name; a method without an endpoint answers
UNIMPLEMENTED. Authentication happens here, authorisation in the service layer.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

import grpc
from google.protobuf.message import DecodeError, Message
from google.protobuf.message_factory import GetMessageClass

from osac.model import protos
from osac.server.authn import DRY_RUN_KEY, Authenticator
from osac.server.metrics import observe
from osac.services.core import limits
from osac.services.core.errors import InvalidArgument, api_error

log = logging.getLogger(__name__)

#: Services answered without a token (api.md §8, §9.1).
ANONYMOUS_SERVICES = frozenset({"Capabilities", "JsonWebKeySet"})


def _metadata(context: grpc.aio.ServicerContext, key: str) -> str | None:
    for item in context.invocation_metadata() or ():
        if item.key == key:
            return item.value if isinstance(item.value, str) else item.value.decode()
    return None


async def _abort(context: grpc.aio.ServicerContext, error: Exception) -> None:
    known = api_error(error)
    if known is not None:
        await context.abort(known.code, known.message)
    log.exception("internal error", exc_info=error)
    await context.abort(grpc.StatusCode.INTERNAL, "internal error; see the server log")


def service_handler(
    full_name: str, endpoints: Any, authenticator: Authenticator, private: bool,
    stall_seconds: float = limits.DEFAULT_WATCH_STALL_SECONDS,
) -> grpc.GenericRpcHandler:
    """A handler for the service ``full_name`` whose methods call ``endpoints`` (a stream's
    client that reads nothing for ``stall_seconds`` is disconnected)."""
    descriptor = protos.service_descriptor(full_name)
    anonymous = descriptor.name in ANONYMOUS_SERVICES
    handlers: dict[str, grpc.RpcMethodHandler] = {}
    for method in descriptor.methods:
        function = getattr(endpoints, method.name, None)
        if function is None:
            continue
        request_cls = GetMessageClass(method.input_type)
        response_cls = GetMessageClass(method.output_type)
        labels = (full_name, method.name)
        if method.server_streaming:
            handlers[method.name] = grpc.unary_stream_rpc_method_handler(
                _streaming(function, authenticator, private, anonymous, request_cls, stall_seconds),
                response_serializer=_serialized(response_cls),
            )
        else:
            handlers[method.name] = grpc.unary_unary_rpc_method_handler(
                _unary(function, authenticator, private, anonymous, labels, request_cls),
                response_serializer=response_cls.SerializeToString,
            )
    return grpc.method_handlers_generic_handler(full_name, handlers)


def decode(request_cls: type[Message], data: bytes) -> Message:
    """The request message of ``data``, within the request bounds (api.md §10, limits.md):
    bytes that are not a message of the method's request type are INVALID_ARGUMENT."""
    try:
        request = request_cls.FromString(data)
    except (DecodeError, ValueError, RuntimeError):
        raise InvalidArgument(
            f"request: the bytes are not a valid {request_cls.DESCRIPTOR.full_name} message"
        ) from None
    limits.check_request(request)
    return request


def _unary(
    function: Callable[..., Any], authenticator: Authenticator, private: bool, anonymous: bool,
    labels: tuple[str, str], request_cls: type[Message],
) -> Any:
    async def handle(data: bytes, context: grpc.aio.ServicerContext) -> Message:
        with observe("grpc", private, *labels) as outcome:
            try:
                if anonymous:
                    return await function(None, decode(request_cls, data))
                caller = await authenticator.caller(
                    _metadata(context, "authorization"), private=private, dry_run=_metadata(context, DRY_RUN_KEY)
                )
                return await function(caller, decode(request_cls, data))
            except Exception as error:  # every error becomes a status
                known = api_error(error)
                outcome.code = known.code.name if known is not None else "INTERNAL"
                await _abort(context, error)
                raise

    return handle


def _serialized(response_cls: type[Message]) -> Callable[[bytes | Message], bytes]:
    """A stream's serializer: its endpoint may send a response already serialised (a watch
    event's, made once for every stream that sends it)."""
    serialize = response_cls.SerializeToString

    def serialized(item: bytes | Message) -> bytes:
        return item if isinstance(item, bytes) else serialize(item)

    return serialized


class _Stalled(Exception):
    """The client of a stream read nothing for the stall limit."""


class _StallWatch:
    """Cancels its task when one write has waited ``seconds``: one timer per stream that looks
    at the write under way, not a timeout made and cancelled for every message."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        assert task is not None  # made by the stream's handler, inside its task
        self.task = task
        #: When the write under way began (``loop.time()``), None between writes.
        self.writing_since: float | None = None
        self.stalled = False
        self._timer = self.loop.call_later(seconds, self._look)

    def _look(self) -> None:
        since, now = self.writing_since, self.loop.time()
        if since is not None and now - since >= self.seconds:
            self.stalled = True
            self.task.cancel()
            return
        self._timer = self.loop.call_later(self.seconds if since is None else since + self.seconds - now, self._look)

    def close(self) -> None:
        self._timer.cancel()


def _streaming(
    function: Callable[..., Any], authenticator: Authenticator, private: bool, anonymous: bool,
    request_cls: type[Message], stall_seconds: float,
) -> Any:
    """A server-streaming method whose client must keep reading: a message that waits longer
    than ``stall_seconds`` for the client's flow-control window ends the stream with
    RESOURCE_EXHAUSTED, so a client that stopped reading holds no more than HTTP/2's window and
    one message (docs/watch.md "Memory"). The endpoint is a coroutine that checks the request
    and returns the stream of its responses."""

    async def handle(data: bytes, context: grpc.aio.ServicerContext) -> None:
        try:
            caller = None if anonymous else await authenticator.caller(
                _metadata(context, "authorization"), private=private
            )
            stream = await function(caller, decode(request_cls, data))
            # The headers say the stream is established: a live-only Watch has read the revision
            # it starts after, so every later commit is in it (docs/watch.md "Semantics").
            await context.send_initial_metadata(())
            watch = _StallWatch(stall_seconds)
            loop = watch.loop
            try:
                async for item in stream:
                    watch.writing_since = loop.time()
                    await context.write(item)
                    watch.writing_since = None
            except asyncio.CancelledError:
                if not watch.stalled:
                    raise
                watch.task.uncancel()
                raise _Stalled from None
            finally:
                watch.close()
                await stream.aclose()
        except _Stalled:
            log.warning("a stream client read nothing for %gs; ending its stream", stall_seconds)
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, limits.watch_stalled(stall_seconds))
        except Exception as error:
            await _abort(context, error)
            raise

    return handle
