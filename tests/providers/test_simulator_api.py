"""The simulator admin API (simulator.md §7): endpoints called like the gRPC layer calls them,
and the REST routes through a running server."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest
from google.protobuf import json_format

from osac.api.private.v1 import simulator_fault_type_pb2 as fault_pb
from osac.api.private.v1 import simulator_faults_service_pb2 as faults_pb
from osac.api.private.v1 import simulator_service_pb2 as simulator_pb
from osac.auth.subject import Role, Subject
from osac.clock import FakeClock, SystemClock
from osac.providers.simulator.fabric.provider import SimulatedFabric
from osac.providers.simulator.runtime.context import SimulatorRuntime, Speed
from osac.server.http_app import build_http_app
from osac.server.simulator_api import (
    FAULTS_SERVICE,
    SIMULATOR_SERVICE,
    SimulatorEndpoints,
    SimulatorFaultsEndpoints,
)
from osac.services.core.context import Caller
from osac.services.core.errors import FailedPrecondition, InvalidArgument, NotFound, PermissionDenied
from tests.providers.conftest import START, attachment, everything, network, subnet, tcp

ADMIN = Caller(Subject("admin", (), frozenset({Role.PROVIDER_ADMIN})), private=True)
TENANT_ADMIN = Caller(Subject("alice", ("acme",), frozenset({Role.TENANT_ADMIN})), private=True)


def fault_request(fault: str, params: dict[str, Any] | None = None, **fields: Any) -> Message:
    message = fault_pb.SimulatorFault(fault=fault, **fields)
    message.params.update(params or {})
    return faults_pb.SimulatorFaultsCreateRequest(object=message)


Message = Any


@pytest.fixture
def faults_api(runtime: SimulatorRuntime) -> SimulatorFaultsEndpoints:
    return SimulatorFaultsEndpoints(runtime)


@pytest.fixture
def api(runtime: SimulatorRuntime) -> SimulatorEndpoints:
    return SimulatorEndpoints(runtime)


async def test_faults_create_list_delete(faults_api: SimulatorFaultsEndpoints, fabric: SimulatedFabric) -> None:
    created = (await faults_api.Create(
        ADMIN, fault_request("fabric_fail", {"operation": "create_subnet", "times": 3, "terminal": False})
    )).object
    assert created.id and (created.target_kind, created.target_id, created.remaining) == ("fabric", "*", 3)
    assert json_format.MessageToDict(created.params) == {"operation": "create_subnet", "times": 3.0, "terminal": False}

    await faults_api.Create(ADMIN, fault_request("dhcp_fail", target_kind="subnet", target_id="s-1"))
    listed = await faults_api.List(ADMIN, faults_pb.SimulatorFaultsListRequest())
    assert (listed.size, listed.total) == (2, 2)
    assert [item.fault for item in listed.items] == ["fabric_fail", "dhcp_fail"]
    page = await faults_api.List(ADMIN, faults_pb.SimulatorFaultsListRequest(offset=1, limit=5))
    assert [item.fault for item in page.items] == ["dhcp_fail"] and page.total == 2

    await faults_api.Delete(ADMIN, faults_pb.SimulatorFaultsDeleteRequest(id=created.id))
    with pytest.raises(NotFound, match=f"SimulatorFault '{created.id}' not found"):
        await faults_api.Delete(ADMIN, faults_pb.SimulatorFaultsDeleteRequest(id=created.id))
    assert (await faults_api.List(ADMIN, faults_pb.SimulatorFaultsListRequest())).total == 1


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("this.fault == 'dhcp_fail'", ["dhcp_fail"]),
        ("this.target_kind == 'fabric' && this.remaining > 1", ["fabric_fail"]),
        ("this.target_id == 's-1'", ["dhcp_fail"]),
        ("this.fault.startsWith('fabric')", ["fabric_fail", "fabric_latency"]),
    ],
)
async def test_faults_list_filter(faults_api: SimulatorFaultsEndpoints, expression: str, expected: list[str]) -> None:
    await faults_api.Create(ADMIN, fault_request("fabric_fail", {"operation": "create_subnet", "times": 3}))
    await faults_api.Create(ADMIN, fault_request("fabric_latency", {"operation": "create_subnet", "seconds": 5}))
    await faults_api.Create(ADMIN, fault_request("dhcp_fail", target_kind="subnet", target_id="s-1"))
    listed = await faults_api.List(ADMIN, faults_pb.SimulatorFaultsListRequest(filter=expression))
    assert [item.fault for item in listed.items] == expected


INVALID = [
    (fault_request("nope"), "object.fault: 'nope' is not a simulator fault"),
    (fault_request("stall", {"stage": "X"}, target_kind="host"), "object.target_kind: fault 'stall' targets cluster"),
    (fault_request("fabric_fail"), "object.params.operation: required for fault 'fabric_fail'"),
    (fault_request("fabric_fail", {"operation": "create_subnet", "times": -1}), "object.params.times: must be at least 1"),
    (fault_request("dhcp_fail", id="x", target_kind="subnet"), "object.id: must be empty"),
    (fault_request("dhcp_fail", target_kind="subnet", remaining=2), "object.remaining: is output only"),
]


@pytest.mark.parametrize(("request_message", "message"), INVALID, ids=[m.split(":")[0] + str(i) for i, (_, m) in enumerate(INVALID)])
async def test_faults_create_rejects_with_the_field(
    faults_api: SimulatorFaultsEndpoints, request_message: Message, message: str
) -> None:
    with pytest.raises(InvalidArgument) as caught:
        await faults_api.Create(ADMIN, request_message)
    assert message in caught.value.message


async def test_faults_list_rejects_order_and_bad_filters(faults_api: SimulatorFaultsEndpoints) -> None:
    with pytest.raises(InvalidArgument, match="order: ordering is not supported"):
        await faults_api.List(ADMIN, faults_pb.SimulatorFaultsListRequest(order="id"))
    with pytest.raises(InvalidArgument, match="filter: "):
        await faults_api.List(ADMIN, faults_pb.SimulatorFaultsListRequest(filter="this.colour == 1"))


async def test_only_provider_admins(faults_api: SimulatorFaultsEndpoints, api: SimulatorEndpoints) -> None:
    with pytest.raises(PermissionDenied):
        await faults_api.List(TENANT_ADMIN, faults_pb.SimulatorFaultsListRequest())
    with pytest.raises(PermissionDenied):
        await api.GetObservation(TENANT_ADMIN, simulator_pb.SimulatorGetObservationRequest(kind="fabric", key="vn"))


async def test_fabric_observation_and_reachability(api: SimulatorEndpoints, fabric: SimulatedFabric) -> None:
    await network(fabric, "vn")
    await fabric.create_subnet(subnet("s", "vn"))
    await fabric.apply_security_group("sg", "vn", [tcp(22, "10.0.0.0/16")], [everything()])
    await fabric.create_network_attachment(attachment("ci/a", "nic-0", "s", "10.0.1.5", ("sg",)))
    await fabric.create_network_attachment(attachment("ci/b", "nic-0", "s", "10.0.1.6", ("sg",)))

    response = await api.GetObservation(ADMIN, simulator_pb.SimulatorGetObservationRequest(kind="fabric", key="vn"))
    observation = json_format.MessageToDict(response.observation)
    assert observation == {**await fabric.fabric_observation("vn"), "observed_at": observation["observed_at"]}
    assert [p["host_name"] for p in observation["ports"]] == ["ci/a", "ci/b"]

    answer = await api.CheckReachability(ADMIN, simulator_pb.SimulatorCheckReachabilityRequest(
        src="ci/a/nic-0", dst="10.0.1.6", protocol=1, port=22))
    assert (answer.allowed, answer.reason, answer.translated_source, answer.translated_destination) == (
        True, "OK", "10.0.1.5", "10.0.1.6")
    answer = await api.CheckReachability(ADMIN, simulator_pb.SimulatorCheckReachabilityRequest(
        src="ci/a/nic-0", dst="internet", protocol=1, port=443))
    assert (answer.allowed, answer.reason) == (False, "NO_SNAT")


@pytest.mark.parametrize(
    ("request_message", "error", "message"),
    [
        (simulator_pb.SimulatorGetObservationRequest(kind="cluster", key="x"), FailedPrecondition,
         "observation of kind cluster is not available yet"),
        (simulator_pb.SimulatorGetObservationRequest(kind="vm", key="x"), InvalidArgument, "kind: 'vm' is not one of"),
        (simulator_pb.SimulatorGetObservationRequest(kind="fabric"), InvalidArgument, "key: required"),
        (simulator_pb.SimulatorCheckReachabilityRequest(dst="internet", protocol=1, port=1), InvalidArgument, "src: required"),
        (simulator_pb.SimulatorCheckReachabilityRequest(src="a/b", dst="internet"), InvalidArgument, "protocol: required"),
        (simulator_pb.SimulatorCheckReachabilityRequest(src="a/b", dst="internet", protocol=2), InvalidArgument,
         "port: must be 1-65535 for TCP and UDP, got 0"),
        (simulator_pb.SimulatorSetSpeedRequest(speed="fast"), InvalidArgument, "speed: 'fast' is not a positive number"),
        (simulator_pb.SimulatorListHostsRequest(), FailedPrecondition, "no bare-metal inventory is configured"),
        (simulator_pb.SimulatorAddHostsRequest(prefix="bm", host_type="t", count=1), FailedPrecondition,
         "no bare-metal inventory is configured"),
        (simulator_pb.SimulatorRemoveHostRequest(name="bm-001"), FailedPrecondition, "no bare-metal inventory"),
    ],
    ids=["kind-not-yet", "kind-unknown", "key", "src", "protocol", "port", "speed", "list-hosts", "add-hosts",
         "remove-host"],
)
async def test_simulator_errors(api: SimulatorEndpoints, request_message: Message, error: type[Exception],
                                message: str) -> None:
    method = type(request_message).__name__.removeprefix("Simulator").removesuffix("Request")
    with pytest.raises(error) as caught:
        await getattr(api, method)(ADMIN, request_message)
    assert message in str(caught.value)


async def test_clock_and_speed(api: SimulatorEndpoints, runtime: SimulatorRuntime, clock: FakeClock) -> None:
    now = (await api.GetClock(ADMIN, simulator_pb.SimulatorGetClockRequest())).now.ToDatetime()
    assert now == START.replace(tzinfo=None)
    request = simulator_pb.SimulatorAdvanceClockRequest()
    request.duration.FromTimedelta(timedelta(minutes=3))
    advanced = await api.AdvanceClock(ADMIN, request)
    assert clock.now() == START + timedelta(minutes=3)
    assert advanced.now.ToDatetime() == (START + timedelta(minutes=3)).replace(tzinfo=None)
    assert (await api.SetSpeed(ADMIN, simulator_pb.SimulatorSetSpeedRequest(speed="120"))).speed == "120"
    assert runtime.speed.scale(2.0) == pytest.approx(2 / 120)
    assert (await api.SetSpeed(ADMIN, simulator_pb.SimulatorSetSpeedRequest(speed="instant"))).speed == "instant"


async def test_clock_methods_need_a_fake_clock(runtime: SimulatorRuntime) -> None:
    api = SimulatorEndpoints(SimulatorRuntime(runtime.engine, SystemClock(), Speed.of(60)))
    with pytest.raises(FailedPrecondition, match="GetClock and AdvanceClock need"):
        await api.GetClock(ADMIN, simulator_pb.SimulatorGetClockRequest())


async def test_extra_observers_plug_in(runtime: SimulatorRuntime) -> None:
    async def clusters(key: str) -> dict[str, Any]:
        return {"readable": True, "hosted_cluster": {"name": key}}

    api = SimulatorEndpoints(runtime, observers={"cluster": clusters})
    response = await api.GetObservation(ADMIN, simulator_pb.SimulatorGetObservationRequest(kind="cluster", key="c1"))
    assert json_format.MessageToDict(response.observation) == {"readable": True, "hosted_cluster": {"name": "c1"}}


async def test_rest_routes(server: Any) -> None:
    app = server.app
    runtime = SimulatorRuntime(app.engines.writer, FakeClock(START), Speed.of("instant"), reader=app.engines.reader)
    app.endpoints.add(FAULTS_SERVICE, SimulatorFaultsEndpoints(runtime, app.store), True)
    app.endpoints.add(SIMULATOR_SERVICE, SimulatorEndpoints(runtime), True)
    fabric = SimulatedFabric("sim-fabric", {}, runtime)
    await network(fabric, "vn")
    http = build_http_app(app)
    token = server.token(Role.PROVIDER_ADMIN, user="admin")
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=http), base_url="http://test",
                                 headers={"authorization": f"Bearer {token}"}) as client:
        base = "/api/private/v1/simulator"
        created = await client.post(f"{base}/faults", json={
            "fault": "fabric_fail", "params": {"operation": "create_subnet", "times": 2}})
        assert created.status_code == 200, created.text
        fault = created.json()
        assert (fault["target_kind"], fault["remaining"]) == ("fabric", 2)

        listed = await client.get(f"{base}/faults", params={"filter": "this.fault == 'fabric_fail'"})
        assert listed.status_code == 200 and listed.json()["total"] == 1
        bad = await client.post(f"{base}/faults", json={"fault": "nope"})
        assert bad.status_code == 400 and "object.fault" in bad.json()["message"]

        observation = await client.post(f"{base}/get_observation", json={"kind": "fabric", "key": "vn"})
        assert observation.json()["observation"]["virtual_network"]["vn_id"] == "vn"
        reach = await client.post(f"{base}/check_reachability",
                                  json={"src": "internet", "dst": "203.0.113.9", "protocol": "PROTOCOL_TCP", "port": 22})
        assert reach.json() == {"reason": "NO_ROUTE"}
        speed = await client.post(f"{base}/set_speed", json={"speed": "30"})
        assert speed.json() == {"speed": "30"}
        assert (await client.post(f"{base}/list_hosts", json={})).status_code == 400

        deleted = await client.delete(f"{base}/faults/{fault['id']}")
        assert deleted.status_code == 200 and deleted.json() == {}
        assert (await client.delete(f"{base}/faults/{fault['id']}")).status_code == 404

    tenant = server.token(Role.TENANT_ADMIN, tenants=("acme",))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=http), base_url="http://test",
                                 headers={"authorization": f"Bearer {tenant}"}) as client:
        assert (await client.get("/api/private/v1/simulator/faults")).status_code == 403
