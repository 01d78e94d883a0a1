"""Scenario 15's fleet at its full size: 50 clusters of two tenants in every situation, made by
the reconcilers and the simulated HyperShift at instant speed, with simulator faults through the
admin API (as the caas scenario tests do):

- progressing: held in PreparingInfrastructure (a ``stall`` fault; its 15 m threshold is far away);
- stalled: held in ControlPlaneStarting past its threshold (configured 2 s);
- ready, degraded (``node_pool_failure``), stage unknown (``unreadable``);
- deleting: held in DestroyingCloudResources by a teardown ``stall``;
- the rest of the 50 ready (``app-…``, both tenants; the default network class's VIP block is
  widened to a /26 first, room for 31 clusters per tenant subnet);
- and one running VM (``web-vm``, acme) with automatic external access.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from osac.auth.subject import Role
from osac.server.settings import merge_config
from tests.caas.conftest import PULL_SECRET, RELEASE_IMAGE, ssh_key
from tests.console.conftest import PRIVATE, PUBLIC, ConsoleServer
from tests.support.onboarding import INSTANT

CONFIG = merge_config(INSTANT, {"cluster_status": {"stall_thresholds": {"ControlPlaneStarting": "2s"}}})
TENANTS = ("acme", "beta")
READY = "CLUSTER_STATE_READY"
#: Scenario 15's size: every cluster of the fleet, both tenants.
FLEET_SIZE = 50


def wait_for(client: httpx.Client, path: str, predicate: Callable[[Any], bool], timeout: float = 60) -> Any:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        response = client.get(path)
        last = response.json() if response.headers.get("content-type", "").startswith("application/json") else None
        if response.status_code == 200 and predicate(last):
            return last
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting on {path}; last: {last}")


def condition(cluster: dict[str, Any], name: str) -> dict[str, Any]:
    return next((c for c in cluster.get("status", {}).get("conditions", [])
                 if c["type"] == f"CLUSTER_CONDITION_TYPE_{name}"), {})


def reason_is(name: str, value: str) -> Callable[[Any], bool]:
    return lambda cluster: condition(cluster, name).get("reason") == value


@dataclass
class Fleet:
    server: ConsoleServer
    admin: httpx.Client
    tenants: dict[str, httpx.Client]
    #: situation -> [(tenant, cluster id)]
    situations: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    def ids(self, situation: str, tenant: str | None = None) -> set[str]:
        return {i for t, i in self.situations.get(situation, []) if tenant is None or t == tenant}

    def fault(self, name: str, target: str = "*", **params: Any) -> str:
        response = self.admin.post(f"{PRIVATE}/simulator/faults",
                                   json={"fault": name, "target_kind": "cluster", "target_id": target, "params": params})
        assert response.status_code == 200, response.text
        return str(response.json()["id"])

    def clear(self, fault_id: str) -> None:
        assert self.admin.delete(f"{PRIVATE}/simulator/faults/{fault_id}").status_code == 200

    def create(self, tenant: str, name: str) -> str:
        body = {"metadata": {"name": name},
                "spec": {"template": "ocp-small", "release_image": RELEASE_IMAGE, "pull_secret": PULL_SECRET,
                         "ssh_public_key": ssh_key()}}
        response = self.tenants[tenant].post(f"{PUBLIC}/clusters", json=body)
        assert response.status_code == 200, response.text
        return str(response.json()["id"])

    def cluster(self, cluster_id: str) -> dict[str, Any]:
        response = self.admin.get(f"{PRIVATE}/clusters/{cluster_id}")
        assert response.status_code == 200, response.text
        return dict(response.json())

    def wait(self, cluster_id: str, predicate: Callable[[Any], bool], timeout: float = 60) -> Any:
        return wait_for(self.admin, f"{PRIVATE}/clusters/{cluster_id}", predicate, timeout)


def build_fleet(server: ConsoleServer) -> Fleet:
    admin = server.api(server.token(Role.PROVIDER_ADMIN, user="root"))
    wait_for(admin, f"{PRIVATE}/network_classes",
             lambda page: page["items"][0].get("status", {}).get("state") == "NETWORK_CLASS_STATE_READY")
    wait_for(admin, f"{PRIVATE}/external_ip_pools",
             lambda page: page["items"][0].get("status", {}).get("state") == "EXTERNAL_IP_POOL_STATE_READY")
    [network_class] = admin.get(f"{PRIVATE}/network_classes").json()["items"]
    widened = admin.patch(f"{PRIVATE}/network_classes/{network_class['id']}", params={"update_mask": "spec.vip_prefix_length"},
                          json={"spec": {"vip_prefix_length": 26}})
    assert widened.status_code == 200, widened.text
    wait_for(admin, f"{PRIVATE}/network_classes",
             lambda page: page["items"][0].get("status", {}).get("state") == "NETWORK_CLASS_STATE_READY")
    clients = {}
    for tenant in TENANTS:
        created = admin.post(f"{PUBLIC}/tenants", json={"metadata": {"name": tenant}})
        assert created.status_code == 200, created.text
        wait_for(admin, f"{PUBLIC}/tenants/{created.json()['id']}",
                 lambda t: t["status"]["state"] == "TENANT_STATE_READY")
        clients[tenant] = server.api(server.token(Role.TENANT_ADMIN, (tenant,), user=f"{tenant}-admin"))
    fleet = Fleet(server, admin, clients)
    add = fleet.situations.setdefault

    # Progressing: held in PreparingInfrastructure, each by its own fault once created.
    hold = fleet.fault("stall", stage="PreparingInfrastructure")
    for tenant, name in (("acme", "prep-a"), ("beta", "prep-b")):
        cluster_id = fleet.create(tenant, name)
        fleet.wait(cluster_id, lambda c: c.get("status", {}).get("stage") == "PreparingInfrastructure")
        fleet.fault("stall", cluster_id, stage="PreparingInfrastructure")
        add("progressing", []).append((tenant, cluster_id))
    fleet.clear(hold)

    # Stalled: held in ControlPlaneStarting past its 2 s threshold.
    hold = fleet.fault("stall", stage="ControlPlaneStarting")
    stalled = [(t, fleet.create(t, n)) for t, n in (("acme", "stuck-a1"), ("acme", "stuck-a2"), ("beta", "stuck-b"))]
    for _, cluster_id in stalled:
        fleet.wait(cluster_id, lambda c: c.get("status", {}).get("stage") == "ControlPlaneStarting")
        fleet.fault("stall", cluster_id, stage="ControlPlaneStarting")
    fleet.clear(hold)
    for tenant, cluster_id in stalled:
        fleet.wait(cluster_id, reason_is("PROGRESSING", "Stalled"), timeout=30)
        add("stalled", []).append((tenant, cluster_id))

    # Ready ones, then some of them degraded, unknown or deleting.
    ready = [(t, fleet.create(t, n)) for t, n in (("acme", "prod"), ("beta", "web"), ("acme", "gpu"), ("acme", "live"),
                                                   ("acme", "old"), ("beta", "edge"), ("beta", "lab"))]
    for _, cluster_id in ready:
        fleet.wait(cluster_id, lambda c: c.get("status", {}).get("state") == READY)
    by_name = dict(zip(("prod", "web", "gpu", "live", "old", "edge", "lab"), ready, strict=True))
    for name in ("web", "lab"):
        fleet.fault("node_pool_failure", by_name[name][1], node_set="workers", count=1, mode="unhealthy")
    fleet.fault("unreadable", by_name["gpu"][1])
    fleet.fault("stall", by_name["old"][1], stage="DestroyingCloudResources")
    assert fleet.tenants["acme"].delete(f"{PUBLIC}/clusters/{by_name['old'][1]}").status_code == 200
    for name in ("web", "lab"):
        fleet.wait(by_name[name][1], reason_is("DEGRADED", "NodeSetDegraded:workers"))
        add("degraded", []).append(by_name[name])
    fleet.wait(by_name["gpu"][1], reason_is("PROGRESSING", "StageUnknown"))
    add("unknown", []).append(by_name["gpu"])
    fleet.wait(by_name["old"][1], lambda c: c["status"].get("stage") == "DestroyingCloudResources"
               and c["status"]["state"] == "CLUSTER_STATE_DELETING")
    add("deleting", []).append(by_name["old"])
    for name in ("prod", "live", "edge"):
        add("ready", []).append(by_name[name])

    # The rest of the fleet: ready, half in each tenant.
    named = len({cluster_id for ids in fleet.situations.values() for _, cluster_id in ids})
    bulk = [(t, fleet.create(t, f"app-{t[0]}{n:02d}"))
            for n in range((FLEET_SIZE - named) // 2) for t in TENANTS]
    for _, cluster_id in bulk:
        fleet.wait(cluster_id, lambda c: c.get("status", {}).get("state") == READY)
    fleet.situations["ready"] += bulk

    # One running VM with automatic external access.
    vm = fleet.tenants["acme"].post(f"{PUBLIC}/compute_instances", json={
        "metadata": {"name": "web-vm"}, "spec": {"template": "fedora", "auto_external_ip_attachment": True}})
    assert vm.status_code == 200, vm.text
    wait_for(fleet.admin, f"{PRIVATE}/compute_instances/{vm.json()['id']}",
             lambda v: v.get("status", {}).get("state") == "COMPUTE_INSTANCE_STATE_RUNNING"
             and bool(v["status"].get("external_ip_address")))
    add("vm", []).append(("acme", str(vm.json()["id"])))
    return fleet
