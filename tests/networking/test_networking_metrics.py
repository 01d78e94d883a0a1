"""The networking metrics of networking.md §13, read from a running server's /metrics (scenario 41
and the metrics the other scenarios leave behind).

The Prometheus registry is process-wide, so counters and histograms are compared before and
after; the gauges are cleared before each server starts and must then show exactly what the
database holds."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from ipaddress import ip_address, ip_network
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from osac.auth.subject import Role
from osac.controllers.networking.metrics import (
    NETWORKING_KINDS,
    NETWORKING_OBJECTS,
    POOL_ADDRESSES,
    POOL_UTILIZATION,
    SUBNET_ADDRESSES_AVAILABLE,
    refresh_networking_objects,
    state_label,
)
from osac.controllers.runtime.manager import ObjectKey
from osac.model import registry
from osac.server import bootstrap
from osac.server.settings import merge_config
from tests.support.networking import PRIVATE, PUBLIC
from tests.support.onboarding import INSTANT, ready_catalogue, wait_for
from tests.support.server import RestClient, ServerHandle, running_server
from tests.workloads.conftest import failure

CONFIG = merge_config(INSTANT, {"networking": {"cleanup_retry_limit": 3, "retry_backoff_seconds": 0.05}})
VMS = f"{PUBLIC}/compute_instances"
EXHAUSTED = "ExternalIPPool exhaustion: no available capacity in any READY pool for IPv4"
AUTO_FOR = "osac.openshift.io/auto-provisioned-for"

POOL_GAUGE = "osac_external_ip_pool_addresses"
UTILIZATION = "osac_external_ip_pool_utilization_ratio"
SUBNET_GAUGE = "osac_subnet_addresses_available"
ALLOCATION_FAILURES = "osac_ip_allocation_failures_total"
AUTO_SECONDS = "osac_auto_external_ip_provisioning_seconds"
DEFAULT_SECONDS = "osac_default_networking_provisioning_seconds"
DEFAULT_FAILURES = "osac_default_networking_failures_total"
PROVIDER_CALLS = "osac_network_provider_operation_seconds_count"
OBJECTS = "osac_networking_objects"
DEPRECATED = "osac_deprecated_field_uses_total"
FAILURE_REASONS = ("VirtualNetworkProvisioningFailed", "SubnetProvisioningFailed",
                   "SecurityGroupProvisioningFailed", "NATGatewayProvisioningFailed")

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def value(samples: Samples, name: str, **labels: str) -> float:
    """One sample (0 when the server does not export it)."""
    return samples.get((name, frozenset(labels.items())), 0.0)


def delta(before: Samples, after: Samples, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


def objects_gauge(samples: Samples) -> dict[tuple[str, str], float]:
    return {(dict(labels)["type"], dict(labels)["state"]): number
            for (name, labels), number in samples.items() if name == OBJECTS}


def expected_objects(counts: dict[tuple[str, str], int]) -> dict[tuple[str, str], float]:
    """Every state of every networking kind, 0 unless given."""
    return {(kind_name, state_label(kind_name, state.number)): float(counts.get((kind_name, state_label(kind_name, state.number)), 0))
            for kind_name in NETWORKING_KINDS
            for state in registry.get(kind_name).state_enum.values if state.number != 0}  # type: ignore[union-attr]


def small_public_pool(directory: Path) -> Path:
    """The bootstrap catalogue with ``public-v4`` shrunk to 203.0.113.0/30: two addresses."""
    objects = bootstrap.load(None)
    [pool] = [entry["object"] for entry in objects if entry["kind"] == "ExternalIPPool"]
    pool["spec"]["cidrs"] = ["203.0.113.0/30"]
    path = directory / "small-pool-catalogue.yaml"
    path.write_text(yaml.safe_dump({"objects": objects}))
    return path


@dataclass
class Cloud:
    """A server with controllers at instant speed and a READY catalogue whose pool ``public-v4``
    has two addresses; ``admin`` is a provider admin, ``alice`` a tenant admin of ``acme``."""

    server: ServerHandle
    admin: RestClient
    alice: RestClient

    async def scrape(self) -> Samples:
        text = (await self.admin.request("GET", "/metrics")).text
        return {(sample.name, frozenset(sample.labels.items())): sample.value
                for family in text_string_to_metric_families(text) for sample in family.samples}

    async def until(self, predicate: Callable[[Samples], bool], timeout: float = 20.0) -> Samples:
        samples: Samples = {}
        try:
            async with asyncio.timeout(timeout):
                while not predicate(samples := await self.scrape()):
                    await asyncio.sleep(0.05)
        except TimeoutError:
            raise AssertionError("timed out waiting on /metrics") from None
        return samples

    async def onboard(self, name: str = "acme", state: str = "READY") -> dict[str, Any]:
        response = await self.admin.request("POST", f"{PUBLIC}/tenants", json={"metadata": {"name": name}})
        assert response.status_code == 200, response.text
        return await wait_for(self.admin, f"{PUBLIC}/tenants/{response.json()['id']}",
                              lambda t: t["status"]["state"] == f"TENANT_STATE_{state}")

    async def pool(self, name: str, cidr: str) -> dict[str, Any]:
        response = await self.admin.request("POST", f"{PRIVATE}/external_ip_pools", json={
            "metadata": {"name": name}, "spec": {"cidrs": [cidr], "ip_family": "IP_FAMILY_IPV4"}})
        assert response.status_code == 200, response.text
        return await wait_for(self.admin, f"{PRIVATE}/external_ip_pools/{response.json()['id']}",
                              lambda p: p["status"]["state"] == "EXTERNAL_IP_POOL_STATE_READY")

    def external_ip(self, name: str, pool: str) -> Any:
        return self.alice.request("POST", f"{PUBLIC}/external_ips", json={"metadata": {"name": name}, "spec": {"pool": pool}})

    async def pool_counters(self, name: str) -> tuple[int, int, int]:
        """(total, allocated, available) of a pool's status."""
        [pool] = (await self.admin.request("GET", f"{PRIVATE}/external_ip_pools",
                                           params={"filter": f"this.metadata.name == '{name}'"})).json()["items"]
        status = pool["status"]
        return int(status.get("total", 0)), int(status.get("allocated", 0)), int(status.get("available", 0))

    async def default(self, collection: str) -> dict[str, Any]:
        [item] = (await self.alice.request("GET", f"{PUBLIC}/{collection}",
                                           params={"filter": "this.metadata.name == 'default'"})).json()["items"]
        return dict(item)

    async def passes(self, kind: str, object_id: str, count: int = 3) -> None:
        """Reconcile an object ``count`` more times and wait until the controllers are idle."""
        controllers = self.server.app.controllers
        for _ in range(count):
            controllers.enqueue(ObjectKey(kind, object_id))
            await controllers.wait_idle()


@asynccontextmanager
async def running_cloud(db_url: str, directory: Path) -> AsyncIterator[Cloud]:
    for gauge in (POOL_ADDRESSES, POOL_UTILIZATION, SUBNET_ADDRESSES_AVAILABLE, NETWORKING_OBJECTS):
        gauge.clear()
    catalogue = small_public_pool(directory)
    async with running_server(directory, db_url, controllers=True, config=CONFIG, bootstrap=catalogue) as server:
        admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
        alice = server.rest(server.token(Role.TENANT_ADMIN, ("acme",), user="alice"))
        async with admin, alice:
            await ready_catalogue(admin)
            yield Cloud(server, admin, alice)


@pytest.fixture
async def cloud(db_url: str, tmp_path: Path) -> AsyncIterator[Cloud]:
    async with running_cloud(db_url, tmp_path) as made:
        yield made


def pool_gauges(samples: Samples, name: str) -> tuple[float, float, float]:
    return (value(samples, POOL_GAUGE, pool=name, state="total"), value(samples, POOL_GAUGE, pool=name, state="allocated"),
            value(samples, POOL_GAUGE, pool=name, state="available"))


async def test_41_pool_utilisation_exhaustion_and_auto_provisioning(cloud: Cloud) -> None:
    """Scenario 41 after 18 (two pools, concurrent creates), 34 (auto VM) and 35 (no capacity)."""
    await cloud.onboard()  # default-nat takes one of public-v4's two addresses
    before = await cloud.scrape()
    await cloud.pool("a", "198.51.100.0/28")
    await cloud.pool("b", "198.51.100.16/28")

    # 18: concurrent creates, 10 in a (14 addresses) and 20 in b (14 addresses).
    responses = await asyncio.gather(*[cloud.external_ip(f"a-{i}", "a") for i in range(10)],
                                     *[cloud.external_ip(f"b-{i}", "b") for i in range(20)])
    created = [r.json() for r in responses if r.status_code == 200]
    refused = [failure(r) for r in responses if r.status_code != 200]
    assert len(created) == 24
    assert refused == [("RESOURCE_EXHAUSTED", "ExternalIPPool 'b' has no available addresses")] * 6
    assert len({eip["status"]["address"] for eip in created}) == 24

    expected = {"public-v4": (2, 1), "a": (14, 10), "b": (14, 14)}
    samples = await cloud.until(lambda s: all(pool_gauges(s, name)[:2] == counts for name, counts in expected.items()))
    for name, (total, allocated) in expected.items():
        assert await cloud.pool_counters(name) == (total, allocated, total - allocated)
        assert pool_gauges(samples, name) == (total, allocated, total - allocated)
        assert value(samples, UTILIZATION, pool=name) == allocated / total
    assert delta(before, samples, ALLOCATION_FAILURES, space="external", path="manual") == 6
    assert delta(before, samples, ALLOCATION_FAILURES, space="external", path="auto") == 0

    # 34: a VM with automatic external access; its ExternalIP comes from a, the pool with most room.
    started = time.monotonic()
    response = await cloud.alice.request("POST", VMS, json={"metadata": {"name": "public"},
                                                             "spec": {"template": "fedora", "auto_external_ip_attachment": True}})
    assert response.status_code == 200, response.text
    vm_id = response.json()["id"]
    vm = await wait_for(cloud.alice, f"{VMS}/{vm_id}", lambda v: bool(v["status"].get("external_ip_address")))
    elapsed = time.monotonic() - started
    assert ip_address(vm["status"]["external_ip_address"]) in ip_network("198.51.100.0/28")
    samples = await cloud.until(lambda s: value(s, UTILIZATION, pool="a") == 11 / 14)
    assert await cloud.pool_counters("a") == (14, 11, 3)
    assert delta(before, samples, f"{AUTO_SECONDS}_count", target="compute_instance") == 1
    assert 0 < delta(before, samples, f"{AUTO_SECONDS}_sum", target="compute_instance") <= elapsed

    # 35: with every pool full, an auto VM is refused and counted on the automatic path.
    fills = await asyncio.gather(*[cloud.external_ip(f"a-{i}", "a") for i in range(10, 13)],
                                 cloud.external_ip("p-0", "public-v4"))
    assert [r.status_code for r in fills] == [200] * 4
    refused_vm = await cloud.alice.request("POST", VMS, json={"metadata": {"name": "refused"},
                                                               "spec": {"template": "fedora", "auto_external_ip_attachment": True}})
    assert failure(refused_vm) == ("RESOURCE_EXHAUSTED", EXHAUSTED)
    samples = await cloud.until(lambda s: all(value(s, UTILIZATION, pool=name) == 1.0 for name in expected))
    for name in expected:
        total, allocated, available = await cloud.pool_counters(name)
        assert (allocated, available) == (total, 0)
        assert pool_gauges(samples, name) == (total, total, 0)
    assert delta(before, samples, ALLOCATION_FAILURES, space="external", path="auto") == 1
    assert delta(before, samples, ALLOCATION_FAILURES, space="external", path="manual") == 6
    # One sample per auto parent: the refused VM left none, re-checks of the READY attachment add none.
    [attachment] = (await cloud.admin.request("GET", f"{PRIVATE}/external_ip_attachments", params={
        "filter": f"this.metadata.labels['{AUTO_FOR}'] == '{vm_id}'"})).json()["items"]
    await cloud.passes("external_ip_attachment", attachment["id"])
    samples = await cloud.scrape()
    assert {target: delta(before, samples, f"{AUTO_SECONDS}_count", target=target)
            for target in ("compute_instance", "cluster", "baremetal_instance")} == {
        "compute_instance": 1, "cluster": 0, "baremetal_instance": 0}


async def test_18_three_hundred_concurrent_external_ips_over_two_slash_24_pools(cloud: Cloud) -> None:
    """Scenario 18 at its size through the API: two /24 pools, 300 concurrent creates (150 each),
    no address twice, and per pool total = allocated + available, equal to the gauges."""
    await cloud.onboard()
    await cloud.pool("c", "198.18.0.0/24")
    await cloud.pool("d", "198.18.1.0/24")
    responses = await asyncio.gather(*[cloud.external_ip(f"{pool}-{i}", pool) for i in range(150) for pool in "cd"])
    assert [r.status_code for r in responses] == [200] * 300, {r.text for r in responses if r.status_code != 200}
    addresses = [r.json()["status"]["address"] for r in responses]
    assert len(set(addresses)) == 300
    for pool, cidr in (("c", "198.18.0.0/24"), ("d", "198.18.1.0/24")):
        mine = [a for r, a in zip(responses, addresses, strict=True) if r.json()["metadata"]["name"].startswith(f"{pool}-")]
        assert len(mine) == 150 and all(ip_address(a) in ip_network(cidr) for a in mine)
    expected = {"c": (254, 150), "d": (254, 150)}
    samples = await cloud.until(lambda s: all(pool_gauges(s, name)[:2] == counts for name, counts in expected.items()))
    for name, (total, allocated) in expected.items():
        assert await cloud.pool_counters(name) == (total, allocated, total - allocated)
        assert pool_gauges(samples, name) == (total, allocated, total - allocated)
        assert value(samples, UTILIZATION, pool=name) == allocated / total


async def test_onboarding_is_timed_once_and_its_provider_calls_are_counted(cloud: Cloud) -> None:
    before = await cloud.scrape()
    started = time.monotonic()
    tenant = await cloud.onboard()
    elapsed = time.monotonic() - started
    after = await cloud.scrape()
    assert delta(before, after, f"{DEFAULT_SECONDS}_count") == 1
    assert 0 < delta(before, after, f"{DEFAULT_SECONDS}_sum") <= elapsed
    calls = {(manager, operation, result): delta(before, after, PROVIDER_CALLS, manager=manager, operation=operation,
                                                 result=result)
             for manager, operation in (("sim-fabric", "create_virtual_network"), ("sim-fabric", "create_subnet"),
                                        ("sim-k8s", "create_subnet_overlay"))
             for result in ("ok", "transient", "terminal")}
    assert calls == {key: (1 if key[2] == "ok" else 0) for key in calls}
    assert all(delta(before, after, DEFAULT_FAILURES, reason=reason) == 0 for reason in FAILURE_REASONS)

    # The condition is TRUE for good: later passes observe nothing more.
    await cloud.passes("tenant", tenant["id"])
    assert delta(before, await cloud.scrape(), f"{DEFAULT_SECONDS}_count") == 1

    # The object population, as the lease holder recomputes it every 15 s.
    await refresh_networking_objects(cloud.server.app.store, NETWORKING_KINDS)
    assert objects_gauge(await cloud.scrape()) == expected_objects({
        ("network_class", "READY"): 1, ("external_ip_pool", "READY"): 1, ("virtual_network", "READY"): 1,
        ("subnet", "READY"): 1, ("security_group", "READY"): 1, ("external_ip", "ALLOCATED"): 1,
        ("nat_gateway", "READY"): 1})


async def test_terminal_subnet_fault_at_onboarding_is_one_default_networking_failure(cloud: Cloud) -> None:
    fault = await cloud.admin.request("POST", f"{PRIVATE}/simulator/faults", json={
        "fault": "fabric_fail", "params": {"operation": "create_subnet", "terminal": True}})
    assert fault.status_code == 200, fault.text
    before = await cloud.scrape()
    tenant = await cloud.onboard(state="FAILED")
    assert tenant["status"]["conditions"][0]["reason"] == "SubnetProvisioningFailed"
    after = await cloud.until(lambda s: delta(before, s, DEFAULT_FAILURES, reason="SubnetProvisioningFailed") >= 1)
    assert {reason: delta(before, after, DEFAULT_FAILURES, reason=reason) for reason in FAILURE_REASONS} == {
        "VirtualNetworkProvisioningFailed": 0, "SubnetProvisioningFailed": 1,
        "SecurityGroupProvisioningFailed": 0, "NATGatewayProvisioningFailed": 0}
    assert delta(before, after, PROVIDER_CALLS, manager="sim-fabric", operation="create_subnet", result="terminal") == 1
    assert delta(before, after, PROVIDER_CALLS, manager="sim-fabric", operation="create_subnet", result="ok") == 0

    # Once per transition, not per pass: the tenant looked at again stays counted once.
    await cloud.passes("tenant", tenant["id"])
    again = await cloud.scrape()
    assert delta(before, again, DEFAULT_FAILURES, reason="SubnetProvisioningFailed") == 1
    assert delta(before, again, f"{DEFAULT_SECONDS}_count") == 0

    await refresh_networking_objects(cloud.server.app.store, NETWORKING_KINDS)
    assert objects_gauge(await cloud.scrape()) == expected_objects({
        ("network_class", "READY"): 1, ("external_ip_pool", "READY"): 1, ("virtual_network", "READY"): 1,
        ("subnet", "FAILED"): 1, ("security_group", "READY"): 1, ("external_ip", "ALLOCATED"): 1,
        ("nat_gateway", "READY"): 1})


async def test_subnet_gauge_follows_a_vm_address_and_field_14_is_counted(cloud: Cloud) -> None:
    await cloud.onboard()
    subnet = await cloud.default("subnets")
    group = await cloud.default("security_groups")
    # 10.0.0.0/20 less its network address, gateway and last /28 (the VIP range).
    assert subnet["status"]["available_addresses"] == 4078
    before = await cloud.until(lambda s: value(s, SUBNET_GAUGE, tenant="acme", subnet="default") == 4078)

    response = await cloud.alice.request("POST", VMS, json={"metadata": {"name": "legacy"}, "spec": {
        "template": "fedora", "network_attachments": [{"subnet": "default", "security_groups": ["default"]}]}})
    assert response.status_code == 200, response.text
    assert response.json()["spec"]["compute_network_attachments"] == [
        {"subnet": subnet["id"], "security_groups": [group["id"]], "primary": True}]
    after = await cloud.until(lambda s: value(s, SUBNET_GAUGE, tenant="acme", subnet="default") != 4078)
    assert value(after, SUBNET_GAUGE, tenant="acme", subnet="default") == 4077
    assert (await cloud.default("subnets"))["status"]["available_addresses"] == 4077
    assert delta(before, after, DEPRECATED, field="spec.network_attachments") == 1


async def test_gauges_are_recomputed_from_the_database_after_a_restart(db_url: str, tmp_path: Path) -> None:
    async with running_cloud(db_url, tmp_path) as cloud:
        await cloud.onboard()
        await cloud.pool("a", "198.51.100.0/28")
        assert [r.status_code for r in await asyncio.gather(*[cloud.external_ip(f"a-{i}", "a") for i in range(3)])] == [200] * 3
        await wait_for(cloud.admin, f"{PRIVATE}/external_ips", lambda page: [
            eip["status"]["state"] for eip in page["items"]] == ["EXTERNAL_IP_STATE_ALLOCATED"] * 4)

    population = expected_objects({
        ("network_class", "READY"): 1, ("external_ip_pool", "READY"): 2, ("virtual_network", "READY"): 1,
        ("subnet", "READY"): 1, ("security_group", "READY"): 1, ("external_ip", "ALLOCATED"): 4,
        ("nat_gateway", "READY"): 1})
    async with running_cloud(db_url, tmp_path) as cloud:  # the gauges start empty
        # The passes of the initial resync set the address gauges; the lease holder's first
        # round (at start, not 15 s later) sets the population.
        samples = await cloud.until(lambda s: value(s, POOL_GAUGE, pool="a", state="allocated") == 3
                                    and value(s, SUBNET_GAUGE, tenant="acme", subnet="default") == 4078
                                    and objects_gauge(s) == population, timeout=10)
        assert pool_gauges(samples, "a") == (14, 3, 11) and value(samples, UTILIZATION, pool="a") == 3 / 14
        assert pool_gauges(samples, "public-v4") == (2, 1, 1) and value(samples, UTILIZATION, pool="public-v4") == 0.5
