"""Process wiring: one asyncio process serving gRPC, HTTP, controllers and maintenance."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Awaitable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from osac.auth.dev_issuer import DevIssuer
from osac.auth.issuers import load_trusted_issuers
from osac.auth.verifier import TokenVerifier
from osac.clock import FakeClock
from osac.model import protos, registry
from osac.providers.baremetal import BareMetalProvider
from osac.providers.interfaces import ProviderError
from osac.providers.registry import load_managers, wants_simulator
from osac.providers.simulator.runtime.schema_upgrade import upgrade_simulator_async
from osac.server import bootstrap
from osac.server.authn import Authenticator
from osac.server.clock_steps import ClockSteps
from osac.server.endpoints import EventEndpoints, KindEndpoints, LifecycleEventEndpoints
from osac.server.grpc_api import service_handler
from osac.server.identity import CapabilitiesEndpoints, JsonWebKeySetEndpoints
from osac.server.settings import Settings
from osac.server.simulated_workloads import (
    host_type_interfaces,
    load_simulated_inventory,
    simulated_hosts,
    workload_observers,
)
from osac.server.simulator_api import Observer, SimulatorEndpoints, SimulatorFaultsEndpoints
from osac.services.core.catalog import CredentialUnavailable, Services
from osac.services.core.context import Caller
from osac.services.core.errors import NotFound
from osac.services.kinds import BEHAVIOURS
from osac.services.streams.events import EventsService
from osac.services.streams.lifecycle_events import LifecycleEventsService
from osac.store import outbox
from osac.store.engine import Engines, create_engines, migrate_async
from osac.store.objects import Store
from osac.store.sign_ins import DatabaseSignIns
from osac.store.wakeup import Wakeup, listen_postgres
from osac.tasks import raise_if_cancelled

log = logging.getLogger(__name__)

MAINTENANCE_INTERVAL = 60.0
#: How long a stop lets the gRPC and HTTP requests in flight finish before cancelling them.
DRAIN_GRACE = 5
#: Seconds an idle HTTP keep-alive connection stays open. Longer than the clients' own expiry
#: (httpx drops idle connections after 5 s; browsers retry a request on a connection they find
#: closed): at uvicorn's default of 5 s a client sending on a connection just as the server
#: closes it sees a read error instead of an answer.
KEEP_ALIVE = 75


@dataclass(frozen=True)
class ProviderInventory:
    """``Services.host_inventory`` answered by the bare-metal provider."""

    provider: BareMetalProvider

    async def host_names(self, host_type: str) -> list[str]:
        return [host.name for host in await self.provider.list_hosts(host_type)]

    def configured_by(self, host_type: str) -> list[str]:
        return self.provider.configured_by(host_type)


@dataclass
class Endpoints:
    """Every API endpoint by full gRPC service name, with whether it is the private API."""

    by_service: dict[str, tuple[Any, bool]] = field(default_factory=dict)

    def add(self, full_name: str, endpoints: Any, private: bool) -> None:
        if protos.has_service(full_name):
            self.by_service[full_name] = (endpoints, private)


class Application:
    """Everything ``osac serve`` runs. ``start()`` binds the ports (``:0`` picks free ones,
    see ``grpc_port`` / ``http_port``), ``stop()`` shuts down in reverse order."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.clock = settings.clock
        self.engines: Engines | None = None
        self.store: Store
        self.wakeup = Wakeup()
        self.grpc_port = 0
        self.http_port = 0
        self._grpc_server: grpc.aio.Server | None = None
        self._http_server: Any = None
        self._http_task: asyncio.Task[Any] | None = None
        self._tasks: list[asyncio.Task[Any]] = []
        self._health = health.aio.HealthServicer()
        self.controllers: Any = None

    # -- construction --------------------------------------------------------------------------

    async def open_store(self) -> None:
        settings = self.settings
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        url = settings.database_url()
        if wants_simulator(settings.config):
            await upgrade_simulator_async(url)
        await migrate_async(url)
        self.engines = create_engines(url)
        self.store = Store(self.engines, self.clock, on_commit=self.wakeup.notify)
        #: The console's sessions, sign-in codes and pending OIDC sign-ins (every process shares them).
        self.sign_ins = DatabaseSignIns(self.engines, self.clock)
        self.services = Services(self.store, BEHAVIOURS, settings.config)
        self.managers = load_managers(
            settings.config, clock=self.clock, engine=self.engines.writer, reader=self.engines.statements
        )
        self.services.credential_source = self._credential
        if self.managers.baremetal_provider is not None:
            self.services.host_inventory = ProviderInventory(self.managers.baremetal_provider)
        self.events = EventsService(self.store, self.wakeup)
        self.lifecycle_events = LifecycleEventsService(self.store)
        self.dev_issuer = DevIssuer(settings.data_dir, clock=self.clock) if settings.dev_issuer else None
        self.trusted_issuers = load_trusted_issuers(settings.config)
        self.verifier = TokenVerifier(self.trusted_issuers, dev_issuer=self.dev_issuer, clock=self.clock)
        self.authenticator = Authenticator(self.verifier)
        self.endpoints = self._endpoints()

    def _endpoints(self) -> Endpoints:
        endpoints = Endpoints()
        for private in (False, True):
            pkg = protos.PRIVATE if private else protos.PUBLIC
            for kind in registry.KINDS:
                if (kind.private_methods if private else kind.public_methods):
                    endpoints.add(f"{pkg}.{kind.service}", KindEndpoints(self.services[kind.name], private), private)
            endpoints.add(f"{pkg}.Events", EventEndpoints(self.events, private), private)
            endpoints.add(f"{pkg}.LifecycleEvents", LifecycleEventEndpoints(self.lifecycle_events, private), private)
        endpoints.add(f"{protos.PUBLIC}.Capabilities", CapabilitiesEndpoints(self.verifier), False)
        endpoints.add(f"{protos.PUBLIC}.JsonWebKeySet", JsonWebKeySetEndpoints(self.dev_issuer), False)
        if self.managers.simulator is not None:
            endpoints.add(f"{protos.PRIVATE}.SimulatorFaults",
                          SimulatorFaultsEndpoints(self.managers.simulator, self.store, self._fault_elsewhere), True)
            observers: dict[str, Observer] = {}
            observers["cluster"] = self.managers.simulator.clusters.raw_observation
            observers.update(workload_observers(self))
            steps = None
            if isinstance(self.clock, FakeClock):
                steps = ClockSteps(self.clock, self.managers.simulator, lambda: self.controllers)
            endpoints.add(f"{protos.PRIVATE}.Simulator", SimulatorEndpoints(
                self.managers.simulator, observers, simulated_hosts(self), partial(host_type_interfaces, self.store),
                steps,
            ), True)
        return endpoints

    # -- lifecycle -----------------------------------------------------------------------------

    async def start(self) -> None:
        await self.open_store()
        async with self.store.read() as tx:
            self.wakeup.notify(await tx.revision())
        await bootstrap.seed_if_new(self)
        await load_simulated_inventory(self)
        if self.store.dialect == "postgresql":
            self._tasks.append(asyncio.create_task(listen_postgres(self.settings.database_url(), self.wakeup)))
        if self.settings.serve_api:
            await self._start_grpc()
        await self._start_http()
        if self.settings.run_controllers:
            from osac.server.controllers import start_controllers

            self.controllers = await start_controllers(self)
        self._tasks.append(asyncio.create_task(self._maintenance()))

    async def _start_grpc(self) -> None:
        # SO_REUSEPORT only between the workers of one `osac serve --workers N`: a second server
        # on a busy port must fail, not split the traffic.
        server = grpc.aio.server(options=[
            ("grpc.so_reuseport", 1 if self.settings.reuse_port else 0),
            ("grpc.max_receive_message_length", self.settings.max_request_bytes),
        ])
        names = []
        for full_name, (endpoints, private) in self.endpoints.by_service.items():
            server.add_generic_rpc_handlers((service_handler(
                full_name, endpoints, self.authenticator, private, self.settings.watch_stall_seconds),))
            names.append(full_name)
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        names.append(health.SERVICE_NAME)
        names.append(reflection.SERVICE_NAME)
        _add_reflection(server, names)
        self.grpc_port = server.add_insecure_port(self.settings.grpc_address)
        await server.start()
        await _set_serving(self._health)
        self._grpc_server = server
        log.info("gRPC listening on %s", _with_port(self.settings.grpc_address, self.grpc_port))

    async def _start_http(self) -> None:
        import uvicorn

        from osac.server.http_app import build_http_app, build_operations_app

        host, _, port = self.settings.http_address.rpartition(":")
        family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
        # IPPROTO_TCP (not 0): asyncio enables TCP_NODELAY only on sockets it knows are TCP, and
        # without it every keep-alive response waits for the client's delayed ACK (~40 ms).
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if self.settings.reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((host.strip("[]"), int(port)))
        self.http_port = sock.getsockname()[1]
        http_app = build_http_app(self) if self.settings.serve_api else build_operations_app(self)
        config = uvicorn.Config(http_app, log_level="warning", lifespan="off", access_log=False,
                                timeout_graceful_shutdown=DRAIN_GRACE, timeout_keep_alive=KEEP_ALIVE)
        self._http_server = uvicorn.Server(config)
        self._http_task = asyncio.create_task(self._http_server.serve(sockets=[sock]))
        while not self._http_server.started:
            await asyncio.sleep(0.01)
        log.info("HTTP listening on %s", _with_port(self.settings.http_address, self.http_port))

    async def _maintenance(self) -> None:
        """Retention of the outbox and of lifecycle events; expired console sign-ins."""
        from osac.store import lifecycle

        while True:
            try:
                await outbox.prune(self.store, self.clock.now() - self.settings.retention)
                async with self.store.write() as tx:
                    await lifecycle.prune(tx, self.settings.lifecycle_retention)
                await self.sign_ins.prune()
            except Exception as error:  # the next round tries again
                raise_if_cancelled(error)
                log.warning("pruning the outbox, lifecycle events and console sign-ins failed", exc_info=True)
            await asyncio.sleep(MAINTENANCE_INTERVAL)

    async def _fault_elsewhere(self, kind_name: str, object_id: str) -> None:
        """A simulator fault on an API object changed. The simulated providers of this process
        sent their notices; when another process reconciles the object (this one runs no
        controllers, or another owns its shard), a SIGNALED event reaches it through the change
        feed, as any change of the object would (docs/deploy.md)."""
        if object_id == "*" or not registry.has(kind_name):
            return  # every cluster, or a simulated host or fabric: only this process's notices
        if self.controllers is not None and self.controllers.owns(object_id):
            return
        with contextlib.suppress(NotFound):  # a fault may name an object that does not exist (yet)
            await self.services[kind_name].signal(Caller.system(), object_id)

    async def _credential(self, kind_name: str, object_id: str, name: str) -> str:
        """Credentials of a workload, read from its provider."""
        provider = self.managers.cluster_provider if kind_name == "cluster" else None
        if provider is None:
            raise CredentialUnavailable(f"no provider serves {kind_name} credentials")
        try:
            if name == "kubeconfig":
                return (await provider.get_kubeconfig(object_id)).decode()
            return await provider.get_admin_password(object_id)
        except ProviderError as error:
            raise CredentialUnavailable(error.message) from error

    def spawn(self, work: Any) -> None:
        """Run a background coroutine for the life of the process (cancelled by ``stop``)."""
        self._tasks.append(asyncio.create_task(work))

    async def stop(self) -> None:
        """Stop gracefully, all parts at once: watch streams end at once (UNAVAILABLE, they
        never finish by themselves); the gRPC and HTTP servers take no new requests and let
        those in flight finish within ``DRAIN_GRACE``; the controllers finish their passes
        within ``Settings.controller_stop_grace``. Then the background tasks are cancelled. An idle
        server is stopped within milliseconds (docs/architecture.md "Stopping")."""
        self.wakeup.close()
        drains: list[Awaitable[Any]] = []
        if self.controllers is not None:
            drains.append(self.controllers.stop(self.settings.controller_stop_grace))
        if self._grpc_server is not None:
            drains.append(self._grpc_server.stop(grace=DRAIN_GRACE))
        if self._http_server is not None:
            self._http_server.should_exit = True
            if self._http_task is not None:
                drains.append(self._drain_http(self._http_task))
        await asyncio.gather(*drains)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self.engines is not None:
            await self.engines.dispose()

    @staticmethod
    async def _drain_http(task: asyncio.Task[Any]) -> None:
        """uvicorn closes its listener and idle connections, waits up to ``DRAIN_GRACE`` for
        the requests in flight (``timeout_graceful_shutdown``), then cancels them."""
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task

    async def serve_forever(self) -> None:
        try:
            await self.start()
            await asyncio.Event().wait()
        finally:
            await self.stop()


def _with_port(address: str, port: int) -> str:
    host, _, _ = address.rpartition(":")
    return f"{host}:{port}"


REFLECTION_V1 = "grpc.reflection.v1.ServerReflection"


def _add_reflection(server: grpc.aio.Server, names: list[str]) -> None:
    """Reflection for every service, as ``grpc.reflection.v1`` and the older ``v1alpha``.

    The v1 protocol is the v1alpha one under a new package name (identical messages on the
    wire), so one servicer answers both.
    """
    from grpc_reflection.v1alpha import _async, reflection_pb2

    all_names = [*names, REFLECTION_V1]
    reflection.enable_server_reflection(all_names, server)
    servicer = _async.ReflectionServicer(all_names)
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(REFLECTION_V1, {"ServerReflectionInfo": handler}),)
    )


async def _set_serving(servicer: Any) -> None:
    result = servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    if asyncio.iscoroutine(result):
        await result
