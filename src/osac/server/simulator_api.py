"""The simulator admin API (simulator.md §7): ``osac.private.v1.SimulatorFaults`` and
``osac.private.v1.Simulator``, for provider admins through the private API only, and present
only while a simulator provider is configured (the registry's ``simulator`` runtime).

Endpoint objects follow ``endpoints.py``: an async method per gRPC method taking ``(caller,
request)`` and returning the response message. ``simulator_rest_routes`` gives their REST routes:

=======  ===========================================  ============================
GET      /api/private/v1/simulator/faults             SimulatorFaults.List
POST     /api/private/v1/simulator/faults             SimulatorFaults.Create (body: the fault)
DELETE   /api/private/v1/simulator/faults/{id}        SimulatorFaults.Delete
POST     /api/private/v1/simulator/<method>           Simulator.<Method> (body: the request)
=======  ===========================================  ============================

where ``<method>`` is the snake_case method name (``get_observation``, ``check_reachability``).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC
from typing import TYPE_CHECKING, Any

from google.protobuf import json_format, struct_pb2
from google.protobuf.message import Message
from sqlalchemy import bindparam, select
from starlette.requests import Request

from osac import filters
from osac.api.private.v1 import simulator_fault_type_pb2 as fault_pb
from osac.api.private.v1 import simulator_faults_service_pb2 as faults_pb
from osac.api.private.v1 import simulator_service_pb2 as simulator_pb
from osac.auth import policy
from osac.clock import FakeClock
from osac.model import protos
from osac.model.shape import as_kind
from osac.providers.baremetal import HostRecord
from osac.providers.interfaces import ProviderError
from osac.providers.simulator.baremetal.inventory import InventoryError, check_host_type
from osac.providers.simulator.baremetal.provider import MAX_ADDED, SimulatedBareMetal
from osac.providers.simulator.baremetal.store import HostInUse, UnknownHost
from osac.providers.simulator.runtime.context import InvalidSpeed, SimulatorRuntime
from osac.providers.simulator.runtime.faults import FaultRecord, InvalidFault, validate_fault
from osac.providers.simulator.runtime.settings import PREFIX_PATTERN
from osac.server.clock_steps import ClockSteps
from osac.server.rest import (
    PRIVATE_PREFIX,
    RestRoute,
    bind_create,
    bind_id,
    bind_list,
    parse_message,
    read_json,
    render_list,
    render_message,
    render_object,
)
from osac.services.core import access
from osac.services.core.context import Caller
from osac.services.core.errors import FailedPrecondition, InvalidArgument, NotFound
from osac.store.codec import to_storage
from osac.store.schema import JSONData

if TYPE_CHECKING:
    from osac.store.objects import Store

FAULTS_SERVICE = f"{protos.PRIVATE}.SimulatorFaults"
SIMULATOR_SERVICE = f"{protos.PRIVATE}.Simulator"
SIMULATOR_PREFIX = f"{PRIVATE_PREFIX}/simulator"

DEFAULT_LIMIT = 100
MAX_LIMIT = 1000

OBSERVATION_KINDS = ("cluster", "compute_instance", "host", "fabric")
#: Probe protocols of CheckReachability by enum number (``osac.private.v1.Protocol``).
PROTOCOLS = {1: "tcp", 2: "udp", 3: "icmp", 4: "all"}
NO_INVENTORY = "no bare-metal inventory is configured"

#: ``GetObservation`` source of one kind: key -> the raw observation dict.
Observer = Callable[[str], Awaitable[Mapping[str, Any]]]
#: The HostType catalogue as the inventory needs it: ``{host type: [(interface, role), ...]}``.
HostTypes = Callable[[], Awaitable[Mapping[str, Sequence[tuple[str, str]]]]]


#: ``(target kind, target id)`` after a fault changed: tell the target's reconciler wherever it runs.
FaultChanged = Callable[[str, str], Awaitable[None]]


class SimulatorFaultsEndpoints:
    """``SimulatorFaults``: create, list and clear fault records (simulator.md §5). A change
    reaches the simulated providers of this process at once (``fault_changed``) and, through
    ``elsewhere``, the reconciler of the target in whichever process owns it."""

    def __init__(self, simulator: SimulatorRuntime, store: Store | None = None,
                 elsewhere: FaultChanged | None = None) -> None:
        self.simulator = simulator
        self.store = store
        self.elsewhere = elsewhere

    async def _changed(self, record: FaultRecord) -> None:
        await self.simulator.fault_changed(record.target_kind, record.target_id)
        if self.elsewhere is not None:
            await self.elsewhere(record.target_kind, record.target_id)

    async def Create(self, caller: Caller, request: Message) -> Message:
        access.authorize(caller, "simulator_fault", policy.Method.CREATE)
        fault = as_kind(request, faults_pb.SimulatorFaultsCreateRequest).object
        if fault.id:
            raise InvalidArgument("object.id: must be empty; the service assigns it")
        if fault.remaining:
            raise InvalidArgument("object.remaining: is output only; set params.times instead")
        try:
            new = validate_fault(
                fault.fault,
                fault.target_kind,
                fault.target_id,
                json_format.MessageToDict(fault.params),
                fault.expires_at.ToDatetime(tzinfo=UTC) if fault.HasField("expires_at") else None,
                now=self.simulator.clock.now(),
            )
        except InvalidFault as error:
            raise InvalidArgument(f"object.{error.field}: {error.message}") from None
        record = await self.simulator.faults.create(new)
        await self._changed(record)
        return faults_pb.SimulatorFaultsCreateResponse(object=fault_message(record))

    async def List(self, caller: Caller, request: Message) -> Message:
        access.authorize(caller, "simulator_fault", policy.Method.LIST)
        offset, limit, expression = _page_arguments(request)
        items = [fault_message(record) for record in await self.simulator.faults.all()]
        if expression:
            items = await self._matching(items, expression)
        page = items[offset: offset + limit]
        response = faults_pb.SimulatorFaultsListResponse(size=len(page), total=len(items), revision=await self._revision())
        response.items.extend(page)
        return response

    async def Delete(self, caller: Caller, request: Message) -> Message:
        access.authorize(caller, "simulator_fault", policy.Method.DELETE)
        fault_id = as_kind(request, faults_pb.SimulatorFaultsDeleteRequest).id
        if not fault_id:
            raise InvalidArgument("id: required")
        record = await self.simulator.faults.get(fault_id)
        if record is None or not await self.simulator.faults.delete(fault_id):
            raise NotFound(f"SimulatorFault '{fault_id}' not found")
        await self._changed(record)
        return faults_pb.SimulatorFaultsDeleteResponse()

    async def _matching(self, items: list[fault_pb.SimulatorFault], expression: str) -> list[fault_pb.SimulatorFault]:
        """The faults for which the CEL filter holds, evaluated by the database on each fault's
        storage JSON (the same compiler and SQL as every other List)."""
        engine = self.simulator.reader or self.simulator.engine
        document = bindparam("fault", type_=JSONData)
        root = filters.ObjectRoot(protos.descriptor_of(fault_pb.SimulatorFault), document)
        try:
            predicate = filters.compile_filter(
                expression, root, dialect=engine.dialect.name, now=self.simulator.clock.now()
            )
        except filters.FilterError as error:
            raise InvalidArgument(str(error)) from error
        matching = []
        async with engine.connect() as conn:
            for item in items:
                if (await conn.execute(select(predicate), {"fault": to_storage(item)})).scalar():
                    matching.append(item)
        return matching

    async def _revision(self) -> int:
        if self.store is None:
            return 0
        async with self.store.read() as tx:
            return await tx.revision()


class SimulatorEndpoints:
    """``Simulator``: observations, the fake clock, the speed, the inventory, reachability.

    ``observers`` adds GetObservation kinds (``cluster``, ``compute_instance``, ``host``) as the
    workload simulators arrive; ``fabric`` is built in. ``hosts`` is the simulated bare-metal
    inventory (without it the inventory methods are FAILED_PRECONDITION) and ``host_types``
    reads the HostType catalogue for AddHosts. ``steps`` makes AdvanceClock step through every
    time something happens and wait for the service at each (``clock_steps.py``); without it the
    clock jumps."""

    def __init__(
        self,
        simulator: SimulatorRuntime,
        observers: Mapping[str, Observer] | None = None,
        hosts: SimulatedBareMetal | None = None,
        host_types: HostTypes | None = None,
        steps: ClockSteps | None = None,
    ) -> None:
        self.simulator = simulator
        self.observers: dict[str, Observer] = {"fabric": simulator.fabric_observation, **(observers or {})}
        self.hosts = hosts
        self.host_types = host_types
        self.steps = steps

    def _authorize(self, caller: Caller) -> None:
        access.authorize(caller, "simulator", policy.Method.CALL)

    async def GetObservation(self, caller: Caller, request: Message) -> Message:
        self._authorize(caller)
        asked = as_kind(request, simulator_pb.SimulatorGetObservationRequest)
        kind, key = asked.kind, asked.key
        if kind not in OBSERVATION_KINDS:
            raise InvalidArgument(f"kind: '{kind}' is not one of {', '.join(OBSERVATION_KINDS)}")
        if not key:
            raise InvalidArgument("key: required (an object id, a host name, or for kind fabric a VirtualNetwork id)")
        observer = self.observers.get(kind)
        if observer is None:
            raise FailedPrecondition(f"observation of kind {kind} is not available yet")
        observation = struct_pb2.Struct()
        observation.update(dict(await observer(key)))
        return simulator_pb.SimulatorGetObservationResponse(observation=observation)

    async def GetClock(self, caller: Caller, request: Message) -> Message:
        self._authorize(caller)
        clock = self._fake_clock()
        response = simulator_pb.SimulatorGetClockResponse()
        response.now.FromDatetime(clock.now())
        return response

    async def AdvanceClock(self, caller: Caller, request: Message) -> Message:
        self._authorize(caller)
        clock = self._fake_clock()
        delta = as_kind(request, simulator_pb.SimulatorAdvanceClockRequest).duration.ToTimedelta()
        if delta.total_seconds() < 0:
            raise InvalidArgument(f"duration: must not be negative, got {delta.total_seconds()} s")
        if self.steps is not None:
            await self.steps.advance(delta)
        else:
            clock.advance(delta)
        response = simulator_pb.SimulatorAdvanceClockResponse()
        response.now.FromDatetime(clock.now())
        return response

    async def SetSpeed(self, caller: Caller, request: Message) -> Message:
        self._authorize(caller)
        speed = as_kind(request, simulator_pb.SimulatorSetSpeedRequest).speed.strip()
        if not speed:
            raise InvalidArgument("speed: required; a positive number or 'instant'")
        try:
            self.simulator.speed.set(speed)
        except InvalidSpeed as error:
            raise InvalidArgument(f"speed: {error}") from None
        return simulator_pb.SimulatorSetSpeedResponse(speed=str(self.simulator.speed))

    async def ListHosts(self, caller: Caller, request: Message) -> Message:
        self._authorize(caller)
        hosts = self._inventory()
        host_type = as_kind(request, simulator_pb.SimulatorListHostsRequest).host_type
        found = await hosts.list_hosts(host_type.strip() or None)
        return simulator_pb.SimulatorListHostsResponse(hosts=[host_message(h) for h in found])

    async def AddHosts(self, caller: Caller, request: Message) -> Message:
        self._authorize(caller)
        hosts = self._inventory()
        asked = as_kind(request, simulator_pb.SimulatorAddHostsRequest)
        prefix, host_type = asked.prefix.strip(), asked.host_type.strip()
        count = asked.count
        if not PREFIX_PATTERN.match(prefix):
            raise InvalidArgument(f"prefix: '{prefix}' is not a lowercase name of letters, digits and '-' "
                                  "(at most 50 characters, e.g. bm-std)")
        if not host_type:
            raise InvalidArgument("host_type: required; the name of a bare-metal HostType")
        if not 1 <= count <= MAX_ADDED:
            raise InvalidArgument(f"count: must be from 1 to {MAX_ADDED}, got {count}")
        catalogue = await self.host_types() if self.host_types is not None else {}
        try:
            interfaces = check_host_type(host_type, catalogue.get(host_type))
        except InventoryError as error:
            raise InvalidArgument(f"host_type: {error}") from None
        try:
            added = await hosts.add_hosts(prefix, host_type, count, interfaces)
        except InventoryError as error:
            raise FailedPrecondition(str(error)) from None
        return simulator_pb.SimulatorAddHostsResponse(hosts=[host_message(h) for h in added])

    async def RemoveHost(self, caller: Caller, request: Message) -> Message:
        self._authorize(caller)
        hosts = self._inventory()
        name = as_kind(request, simulator_pb.SimulatorRemoveHostRequest).name.strip()
        if not name:
            raise InvalidArgument("name: required; the name of a simulated host")
        try:
            await hosts.remove_host(name)
        except UnknownHost as error:
            raise NotFound(str(error)) from None
        except HostInUse as error:
            raise FailedPrecondition(f"{error}; release it first") from None
        except ProviderError as error:
            raise FailedPrecondition(f"host '{name}' cannot be removed: {error.message}") from None
        return simulator_pb.SimulatorRemoveHostResponse()

    def _inventory(self) -> SimulatedBareMetal:
        if self.hosts is None:
            raise FailedPrecondition(NO_INVENTORY)
        return self.hosts

    async def CheckReachability(self, caller: Caller, request: Message) -> Message:
        self._authorize(caller)
        asked = as_kind(request, simulator_pb.SimulatorCheckReachabilityRequest)
        src, dst = asked.src.strip(), asked.dst.strip()
        protocol_number, port = asked.protocol, asked.port
        if not src:
            raise InvalidArgument("src: required; <host>/<interface>, an address or 'internet'")
        if not dst:
            raise InvalidArgument("dst: required; <host>/<interface>, an address or 'internet'")
        protocol = PROTOCOLS.get(protocol_number)
        if protocol is None:
            raise InvalidArgument("protocol: required; one of PROTOCOL_TCP, PROTOCOL_UDP, PROTOCOL_ICMP, PROTOCOL_ALL")
        if protocol in ("tcp", "udp") and not 1 <= port <= 65535:
            raise InvalidArgument(f"port: must be 1-65535 for TCP and UDP, got {port}")
        answer = await self.simulator.check_reachability(src, dst, protocol, port if protocol in ("tcp", "udp") else 0)
        return simulator_pb.SimulatorCheckReachabilityResponse(
            allowed=answer.allowed,
            reason=str(answer.reason),
            translated_source=answer.translated_source,
            translated_destination=answer.translated_destination,
        )

    def _fake_clock(self) -> FakeClock:
        clock = self.simulator.clock
        if not isinstance(clock, FakeClock):
            raise FailedPrecondition("the simulator runs on the system clock; GetClock and AdvanceClock need "
                                     "simulator.clock: fake")
        return clock


def host_message(host: HostRecord) -> simulator_pb.SimulatorHost:
    message = simulator_pb.SimulatorHost(
        name=host.name,
        host_type=host.host_type,
        interfaces=[
            simulator_pb.SimulatorHostInterface(name=i.name, role=i.role, mac=i.mac, switch=i.switch, port=i.port)
            for i in host.interfaces
        ],
        bmc=host.bmc,
        power=host.power,
        provisioning_state=host.provisioning_state,
        operational_status=host.operational_status,
    )
    if host.owner is not None:
        message.owner.kind = host.owner.kind
        message.owner.id = host.owner.id
    return message


def fault_message(record: FaultRecord) -> fault_pb.SimulatorFault:
    message = fault_pb.SimulatorFault(
        id=record.id,
        target_kind=record.target_kind,
        target_id=record.target_id,
        fault=record.fault,
        remaining=record.remaining,
    )
    message.params.update(dict(record.params))
    if record.expires_at is not None:
        message.expires_at.FromDatetime(record.expires_at)
    return message


def _page_arguments(request: Message) -> tuple[int, int, str]:
    def optional(name: str) -> Any:
        return getattr(request, name) if request.HasField(name) else None

    if optional("order"):
        raise InvalidArgument("order: ordering is not supported; faults are listed oldest first")
    offset = optional("offset") or 0
    if offset < 0:
        raise InvalidArgument(f"offset: must be >= 0, got {offset}")
    limit = optional("limit")
    limit = DEFAULT_LIMIT if not limit or limit <= 0 else min(limit, MAX_LIMIT)
    return offset, limit, (optional("filter") or "").strip()


# -- REST -----------------------------------------------------------------------------------------


def snake_case(method: str) -> str:
    """``GetObservation`` -> ``get_observation``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", method).lower()


async def bind_body(request: Request, cls: type[Message]) -> Message:
    """The whole JSON body is the request message."""
    return parse_message(await read_json(request), cls, "request")


def simulator_rest_routes(by_service: Mapping[str, tuple[Any, bool]]) -> list[RestRoute]:
    """The REST routes of the simulator services present in ``by_service`` (the application's
    endpoint table); none when no simulator is configured."""
    routes: list[RestRoute] = []
    if FAULTS_SERVICE in by_service:
        endpoint = by_service[FAULTS_SERVICE][0]
        collection = f"{SIMULATOR_PREFIX}/faults"
        routes += [
            RestRoute("GET", collection, FAULTS_SERVICE, "List", True, endpoint, bind_list, render_list,
                      summary="List simulator faults"),
            RestRoute("POST", collection, FAULTS_SERVICE, "Create", True, endpoint, bind_create, render_object,
                      summary="Record a simulator fault"),
            RestRoute("DELETE", f"{collection}/{{id}}", FAULTS_SERVICE, "Delete", True, endpoint, bind_id,
                      render_message, summary="Clear a simulator fault"),
        ]
    if SIMULATOR_SERVICE in by_service:
        endpoint = by_service[SIMULATOR_SERVICE][0]
        for method in protos.service_descriptor(SIMULATOR_SERVICE).methods:
            if hasattr(endpoint, method.name):
                routes.append(RestRoute("POST", f"{SIMULATOR_PREFIX}/{snake_case(method.name)}", SIMULATOR_SERVICE,
                                        method.name, True, endpoint, bind_body, render_message,
                                        summary=f"Simulator {method.name}", is_body_the_request=True))
    return routes
