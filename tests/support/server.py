"""Running a real server in-process for tests, and clients that speak to it like users do."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import httpx
from google.protobuf.message import Message

from osac.auth.subject import Role
from osac.clock import Clock, SystemClock
from osac.model import protos
from osac.server.app import Application
from osac.server.settings import Settings
from osac.store.wakeup import Wakeup


@dataclass
class ServerHandle:
    app: Application
    data_dir: Path
    db_url: str

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.app.http_port}"

    @property
    def grpc_target(self) -> str:
        return f"127.0.0.1:{self.app.grpc_port}"

    def token(self, role: Role | str = Role.TENANT_ADMIN, tenants: tuple[str, ...] = (), user: str = "user") -> str:
        assert self.app.dev_issuer is not None
        return self.app.dev_issuer.mint(user, list(tenants), Role(role) if isinstance(role, str) else role)

    def rest(self, token: str | None) -> RestClient:
        return RestClient(self.http_url, token, self.app.wakeup)

    def grpc(self, token: str | None) -> GrpcClient:
        return GrpcClient(self.grpc_target, token)


#: Configuration making every controller safety net an hour long (``controllers.safety_nets``,
#: docs/controllers.md): whatever converges within a test's timeouts was queued by a change.
SAFETY_NETS_AN_HOUR = {"controllers": {"safety_nets": {
    "wait": 3600, "compute_resync": 3600, "tenant_recheck": 3600, "attachment_recheck": 3600}}}


@asynccontextmanager
async def running_server(
    data_dir: Path, db_url: str, *, controllers: bool = False, clock: Clock | None = None, **settings: Any
) -> AsyncIterator[ServerHandle]:
    app = Application(
        Settings(
            data_dir=data_dir,
            db_url=db_url,
            grpc_address="127.0.0.1:0",
            http_address="127.0.0.1:0",
            run_controllers=controllers,
            clock=clock or SystemClock(),
            **settings,
        )
    )
    await app.start()
    try:
        yield ServerHandle(app, data_dir, db_url)
    finally:
        await app.stop()


class RestClient:
    """HTTP+JSON client of the REST gateway."""

    def __init__(self, base_url: str, token: str | None, wakeup: Wakeup | None = None) -> None:
        headers = {"authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.AsyncClient(base_url=base_url, headers=headers, timeout=30)
        #: The wake-up of the server's change stream, when it runs in this process
        #: (``tests/support/waiting.py`` waits on it).
        self.wakeup = wakeup

    async def __aenter__(self) -> RestClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.http.aclose()

    async def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return await self.http.request(method, path, **kwargs)


class GrpcError(Exception):
    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.message = message


class GrpcClient:
    """Generic gRPC client: ``await client.call("osac.public.v1.Subnets", "Get", id=...)``."""

    def __init__(self, target: str, token: str | None) -> None:
        self.channel = grpc.aio.insecure_channel(target)
        self.metadata = (("authorization", f"Bearer {token}"),) if token else ()

    async def __aenter__(self) -> GrpcClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.channel.close()

    def _method(self, service: str, method: str) -> tuple[str, type[Message], type[Message]]:
        descriptor = protos.service_descriptor(service).methods_by_name[method]
        return (
            f"/{service}/{method}",
            protos.message_class(descriptor.input_type.full_name),
            protos.message_class(descriptor.output_type.full_name),
        )

    async def call(self, service: str, method: str, request: Message | None = None,
                   metadata: tuple[tuple[str, str], ...] = (), **fields: Any) -> Message:
        path, request_cls, response_cls = self._method(service, method)
        stub = self.channel.unary_unary(
            path, request_serializer=request_cls.SerializeToString, response_deserializer=response_cls.FromString
        )
        message = request if request is not None else request_cls(**fields)
        try:
            return await stub(message, metadata=self.metadata + metadata)
        except grpc.aio.AioRpcError as error:
            raise GrpcError(error.code(), error.details() or "") from None

    def stream(self, service: str, method: str, **fields: Any) -> Any:
        path, request_cls, response_cls = self._method(service, method)
        stub = self.channel.unary_stream(
            path, request_serializer=request_cls.SerializeToString, response_deserializer=response_cls.FromString
        )
        return stub(request_cls(**fields), metadata=self.metadata)
