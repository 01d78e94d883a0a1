"""Random and mutated messages to every gRPC method: never INTERNAL or UNKNOWN (issue #16).

For each method of every served service, as a provider admin and as a tenant admin: garbage
bytes, random bytes, and the serialised request with values out of bounds and then truncated or
with bytes flipped (a seeded sweep, ``EXAMPLES`` per method). Then hypothesis draws the method,
the role and the message (random bytes, or a request of awkward values that it may truncate or
flip a bit of) and shrinks whatever server error it finds to a minimal example. Any answer is
fine except a server error. The budgets are small; ``OSAC_FUZZ_EXAMPLES=200`` runs longer ones
(docs/testing.md).
"""

from __future__ import annotations

import asyncio
import os
import random

import grpc
from google.protobuf.descriptor import FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from osac.auth.subject import Role
from osac.model import protos

EXAMPLES = int(os.environ.get("OSAC_FUZZ_EXAMPLES", "4"))
SERVER_ERRORS = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}


def _filled(cls: type[Message], rng: random.Random) -> Message:
    """A request whose every top-level string and integer holds an awkward value."""
    message = cls()
    for field in cls.DESCRIPTOR.fields:
        if field.is_repeated or field.type == FieldDescriptor.TYPE_MESSAGE:
            continue
        if field.type == FieldDescriptor.TYPE_STRING:
            setattr(message, field.name, rng.choice(["\x00", "a" * 5000, "this.id == 1/0", "é\x07", ""]))
        elif field.type in (FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64):
            setattr(message, field.name, rng.choice([-1, 0, 1001, 2**31 - 1]))
        elif field.type == FieldDescriptor.TYPE_BOOL:
            setattr(message, field.name, True)
    return message


def _mutations(cls: type[Message], rng: random.Random) -> list[bytes]:
    payloads = [b"\xff\xff\xff\xff\x0f", b"\x0a\x05abc"]
    for _ in range(EXAMPLES):
        data = bytearray(_filled(cls, rng).SerializeToString())
        if data and rng.random() < 0.5:
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        elif data:
            del data[rng.randrange(len(data)):]
        payloads.append(bytes(data))
        payloads.append(rng.randbytes(rng.randrange(1, 64)))
    return payloads


async def _server_error(channel: grpc.aio.Channel, method: MethodDescriptor, payload: bytes, token: str) -> str | None:
    """Send ``payload`` to ``method``: the server error it answered, described, or None."""
    path = f"/{method.containing_service.full_name}/{method.name}"
    metadata = (("authorization", f"Bearer {token}"),)
    try:
        if method.server_streaming:
            call = channel.unary_stream(path)(payload, metadata=metadata, timeout=0.5)
            async for _ in call:
                break
            call.cancel()
        else:
            await channel.unary_unary(path)(payload, metadata=metadata, timeout=10)
    except grpc.aio.AioRpcError as error:
        if error.code() in SERVER_ERRORS:
            return f"{path} {payload[:40]!r}: {error.code().name} {error.details()}"
    except asyncio.CancelledError:
        pass
    return None


async def _server_errors(channel: grpc.aio.Channel, token: str, services: list[str], rng: random.Random) -> list[str]:
    found = []
    for service in services:
        for method in protos.service_descriptor(service).methods:
            for payload in _mutations(protos.message_class(method.input_type.full_name), rng):
                if (error := await _server_error(channel, method, payload, token)) is not None:
                    found.append(error)
    return found


async def test_no_grpc_method_answers_a_server_error(server) -> None:
    admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
    assert (await admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": "acme"}})).status_code == 200
    services = sorted(server.app.endpoints.by_service)
    rng = random.Random(16)
    async with grpc.aio.insecure_channel(server.grpc_target) as channel:
        found = await _server_errors(channel, server.token(Role.TENANT_ADMIN, ("acme",), user="alice"), services, rng)
        found += await _server_errors(channel, server.token(Role.PROVIDER_ADMIN, user="root"), services, rng)
    assert found == []


#: Values hypothesis puts in a request's top-level fields, beside its own.
AWKWARD_STRINGS = st.one_of(st.sampled_from(["\x00", "a" * 5000, "this.id == 1/0", "é\x07", ""]), st.text(max_size=40))
AWKWARD_INTEGERS = st.one_of(st.sampled_from([-1, 0, 1001, 2**31 - 1, -(2**31)]), st.integers(-(2**31), 2**31 - 1))


@st.composite
def _payload(draw: st.DrawFn, method: MethodDescriptor) -> bytes:
    if draw(st.booleans()):
        return draw(st.binary(min_size=1, max_size=64))
    cls = protos.message_class(method.input_type.full_name)
    message = cls()
    for field in cls.DESCRIPTOR.fields:
        if field.is_repeated or field.type == FieldDescriptor.TYPE_MESSAGE or not draw(st.booleans()):
            continue
        if field.type == FieldDescriptor.TYPE_STRING:
            setattr(message, field.name, draw(AWKWARD_STRINGS))
        elif field.type in (FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64):
            setattr(message, field.name, draw(AWKWARD_INTEGERS))
        elif field.type == FieldDescriptor.TYPE_BOOL:
            setattr(message, field.name, draw(st.booleans()))
    data = bytearray(message.SerializeToString())
    if data:
        cut = draw(st.sampled_from(["none", "flip", "truncate"]))
        at = draw(st.integers(0, len(data) - 1))
        if cut == "flip":
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif cut == "truncate":
            del data[at:]
    return bytes(data)


@st.composite
def _requests(draw: st.DrawFn, services: list[str]) -> tuple[MethodDescriptor, str, bytes]:
    service = draw(st.sampled_from(services))
    method = draw(st.sampled_from(list(protos.service_descriptor(service).methods)))
    return method, draw(st.sampled_from(["tenant", "provider"])), draw(_payload(method))


@settings(max_examples=max(EXAMPLES * 25, 100), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
async def test_hypothesis_finds_no_grpc_server_error(server, data: st.DataObject) -> None:
    services = sorted(server.app.endpoints.by_service)
    method, role, payload = data.draw(_requests(services))
    token = (server.token(Role.TENANT_ADMIN, ("acme",), user="alice") if role == "tenant"
             else server.token(Role.PROVIDER_ADMIN, user="root"))
    async with grpc.aio.insecure_channel(server.grpc_target) as channel:
        assert await _server_error(channel, method, payload, token) is None
