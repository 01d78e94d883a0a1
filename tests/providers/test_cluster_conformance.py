"""Conformance of the cluster provider (simulator.md §1, §9.1): every emitted HostedCluster and
NodePool validates against the committed JSON schemas of the fields the status derivation reads,
through provisioning, scaling, faults and teardown; the interface is complete; the admin API
serves the raw observation."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import jsonschema
from google.protobuf import json_format

from osac.api.private.v1 import simulator_service_pb2 as simulator_pb
from osac.auth.subject import Role, Subject
from osac.clock import FakeClock
from osac.providers.clusters import CLUSTER_UUID_LABEL, NODE_SET_LABEL, ClusterObservation, ClusterProvider
from osac.providers.registry import contract_methods
from osac.providers.simulator.clusters.provider import SimulatedClusterProvider
from osac.providers.simulator.fabric.provider import SimulatedFabric
from osac.providers.simulator.runtime.faults import validate_fault
from osac.server.simulator_api import SimulatorEndpoints
from osac.services.core.context import Caller
from osac.store.engine import Engines
from tests.providers.cluster_support import (
    INTERFACE,
    cluster_fabric,
    cluster_spec,
    follow,
    make_runtime,
    pool_spec,
    settle_instant,
)
from tests.providers.conftest import START

SCHEMAS = Path(__file__).parent / "schemas"
MAC = re.compile(r"^[0-9a-f]{2}(:[0-9a-f]{2}){5}$")


def _schema(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((SCHEMAS / f"{name}.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


HOSTED_CLUSTER = _schema("hosted_cluster")
NODE_POOL = _schema("node_pool")


def check(observation: ClusterObservation, cluster_id: str) -> None:
    """One observation conforms: shapes, labels, unique condition types, node assignments."""
    json.dumps([observation.hosted_cluster, observation.node_pools])  # plain JSON
    if observation.hosted_cluster is not None:
        jsonschema.validate(observation.hosted_cluster, HOSTED_CLUSTER)
        assert observation.hosted_cluster["metadata"]["labels"][CLUSTER_UUID_LABEL] == cluster_id
        _unique_types(observation.hosted_cluster)
    keys = []
    for node_pool in observation.node_pools:
        jsonschema.validate(node_pool, NODE_POOL)
        assert node_pool["metadata"]["labels"][CLUSTER_UUID_LABEL] == cluster_id
        keys.append(node_pool["metadata"]["labels"][NODE_SET_LABEL])
        _unique_types(node_pool)
        assert node_pool["status"]["replicas"] <= max(node_pool["spec"]["replicas"], len(observation.nodes))
    assert len(keys) == len(set(keys))
    for node in observation.nodes:
        assert node.node_set_key in keys and node.ordinal >= 0 and node.host_name and MAC.match(node.mac)
    if not observation.readable:
        assert observation.error and observation.hosted_cluster is None and not observation.node_pools


def _unique_types(obj: dict[str, Any]) -> None:
    types = [c["type"] for c in obj["status"].get("conditions", [])]
    assert len(types) == len(set(types)), types


async def test_every_emitted_dict_validates_against_the_schemas(engines: Engines, clock: FakeClock) -> None:
    runtime = make_runtime(engines, clock, speed=60)
    fabric = SimulatedFabric("sim-fabric", {}, runtime)
    await cluster_fabric(fabric)
    await runtime.fabric_store.register_host_ports("bm-1", [(INTERFACE, "fabric", "0c:c4:7a:00:00:01")])
    provider = runtime.clusters
    seen: list[ClusterObservation] = []

    async def run(minutes: float) -> None:
        seen.extend(await follow(provider, clock, "c1", clock.now() + timedelta(minutes=minutes), fabric))

    async def with_fault(fault: str, **params: Any) -> None:
        record = await runtime.faults.create(validate_fault(fault, "cluster", "c1", params, now=clock.now()))
        seen.append(await provider.observe_cluster("c1"))
        await runtime.faults.delete(record.id)

    await provider.apply_hosted_cluster("c1", cluster_spec())
    await provider.apply_node_pool("c1", "workers", pool_spec(2))
    await provider.apply_node_pool("c1", "gpu", pool_spec(1, hosts=("bm-1",), host_type="bm"))
    await provider.apply_node_pool("c1", "empty", pool_spec(0))
    await run(0.5)
    for fault, params in [("hc_degraded", {}), ("signal_override", {"condition": "Available", "status": "Unknown"}),
                          ("signal_override", {"condition": "Degraded", "status": "absent"}),
                          ("conditions_absent", {}), ("vanish", {}), ("unreadable", {}),
                          ("node_pool_failure", {"node_set": "workers", "count": 2, "mode": "unhealthy"})]:
        await with_fault(fault, **params)
    await provider.apply_node_pool("c1", "workers", pool_spec(4))
    await run(0.2)
    await provider.apply_node_pool("c1", "workers", pool_spec(1))
    await provider.delete_node_pool("c1", "empty")
    await run(0.2)
    await provider.delete_hosted_cluster("c1")
    await run(0.2)
    assert len(seen) > 30
    for observation in seen:
        check(observation, "c1")
    assert seen[-1].hosted_cluster is None


def test_the_simulator_implements_the_whole_interface() -> None:
    methods = contract_methods(ClusterProvider)
    assert set(methods) == {
        "apply_hosted_cluster", "apply_node_pool", "delete_node_pool", "delete_hosted_cluster", "observe_cluster",
        "get_kubeconfig", "get_admin_password", "subscribe"}
    assert all(callable(getattr(SimulatedClusterProvider, name)) for name in methods)


async def test_get_observation_serves_the_raw_observation(engines: Engines, clock: FakeClock) -> None:
    runtime = make_runtime(engines, clock)
    provider = runtime.clusters
    await provider.apply_hosted_cluster("c1", cluster_spec())
    await provider.apply_node_pool("c1", "workers", pool_spec(1))
    await settle_instant(provider, "c1")
    api = SimulatorEndpoints(runtime, observers={"cluster": provider.raw_observation})
    admin = Caller(Subject("admin", (), frozenset({Role.PROVIDER_ADMIN})), private=True)
    response = await api.GetObservation(admin, simulator_pb.SimulatorGetObservationRequest(kind="cluster", key="c1"))
    raw = json_format.MessageToDict(response.observation)
    assert raw["readable"] is True and raw["observed_at"] == "2026-12-01T09:00:00.000000Z"
    jsonschema.validate(raw["hosted_cluster"], HOSTED_CLUSTER)
    assert raw["hosted_cluster"]["metadata"]["labels"][CLUSTER_UUID_LABEL] == "c1"
    assert [n["host_name"] for n in raw["nodes"]] == ["node/c1/workers/0"]
    assert raw["next_change_at"] is None
    unknown = json_format.MessageToDict((await api.GetObservation(
        admin, simulator_pb.SimulatorGetObservationRequest(kind="cluster", key="nope"))).observation)
    assert unknown["hosted_cluster"] is None and unknown["node_pools"] == [] and unknown["readable"] is True


async def test_an_unknown_cluster_is_readable_and_not_found(engines: Engines, clock: FakeClock) -> None:
    provider = make_runtime(engines, clock).clusters
    observation = await provider.observe_cluster("never")
    assert (observation.readable, observation.hosted_cluster, observation.node_pools, observation.nodes,
            observation.next_change_at, observation.observed_at) == (True, None, [], [], None, START)
    await provider.delete_hosted_cluster("never")
    await provider.delete_node_pool("never", "workers")
