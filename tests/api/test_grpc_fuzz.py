"""Random and mutated messages to every gRPC method: never INTERNAL or UNKNOWN (issue #16).

For each method of every served service, as a provider admin and as a tenant admin: garbage
bytes, random bytes (hypothesis), and the serialised request with values out of bounds and then
truncated or with bytes flipped. Any answer is fine except a server error. The budget is small
(``EXAMPLES`` per method); ``OSAC_FUZZ_EXAMPLES=200`` runs a longer one (docs/testing.md).
"""

from __future__ import annotations

import asyncio
import os
import random

import grpc
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

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


async def _server_errors(channel: grpc.aio.Channel, token: str, services: list[str], rng: random.Random) -> list[str]:
    metadata = (("authorization", f"Bearer {token}"),)
    found = []
    for service in services:
        for method in protos.service_descriptor(service).methods:
            cls = protos.message_class(method.input_type.full_name)
            path = f"/{service}/{method.name}"
            for payload in _mutations(cls, rng):
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
                        found.append(f"{path} {payload[:40]!r}: {error.code().name} {error.details()}")
                except asyncio.CancelledError:
                    pass
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
