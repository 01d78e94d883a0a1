"""Reachability through the fabric's own tables: the traffic scenarios of networking.md §14, driven
only by fabric calls (as the service's reconcilers would make them)."""

from __future__ import annotations

from osac.providers.simulator.fabric.provider import SimulatedFabric
from osac.providers.simulator.fabric.reachability import Reason
from osac.providers.simulator.runtime.context import SimulatorRuntime
from osac.providers.simulator.runtime.schema import sim_fabric_ports
from tests.providers.conftest import attachment, everything, subnet, tcp

DEFAULT_INGRESS = [tcp(22, "10.0.0.0/16")]


async def tenant(fabric: SimulatedFabric, name: str, *, nat: str | None = None) -> None:
    """A tenant's default networking: VN 10.0.0.0/16, subnet 10.0.1.0/24, SG (TCP 22 from the VN,
    all egress), optionally a NAT gateway through ``nat``."""
    vn = f"{name}-vn"
    await fabric.create_virtual_network(vn, ["10.0.0.0/16"])
    await fabric.create_subnet(subnet(f"{name}-subnet", vn))
    await fabric.apply_security_group(f"{name}-sg", vn, DEFAULT_INGRESS, [everything()])
    if nat:
        await fabric.allocate_external_ip(f"{name}-nat-eip", "pool", nat)
        await fabric.create_nat_gateway(f"{name}-gw", vn, nat)


async def vm(fabric: SimulatedFabric, name: str, tenant_name: str, address: str, sgs: tuple[str, ...] | None = None,
             subnet_id: str | None = None) -> str:
    await fabric.create_network_attachment(attachment(
        f"ci/{name}", "nic-0", subnet_id or f"{tenant_name}-subnet", address,
        (f"{tenant_name}-sg",) if sgs is None else sgs))
    return f"ci/{name}/nic-0"


async def test_isolation_across_networks_with_the_same_cidrs(fabric: SimulatedFabric) -> None:
    await tenant(fabric, "acme", nat="203.0.113.1")
    await tenant(fabric, "beta", nat="203.0.113.2")
    await fabric.create_virtual_network("acme-other", ["10.0.0.0/16"])
    await fabric.create_subnet(subnet("acme-other-subnet", "acme-other"))
    await fabric.apply_security_group("acme-other-sg", "acme-other", DEFAULT_INGRESS, [everything()])
    ports = [
        await vm(fabric, "a", "acme", "10.0.1.2"),
        await vm(fabric, "b", "beta", "10.0.1.2"),
        await vm(fabric, "c", "acme-other", "10.0.1.2"),
    ]
    for src in ports:
        for dst in ports:
            if src != dst:
                answer = await fabric.check_reachability(src, dst, "tcp", 22)
                assert answer.reason is Reason.ISOLATED, (src, dst)


async def test_default_deny_rule_change_and_l3(fabric: SimulatedFabric) -> None:
    await tenant(fabric, "acme")
    one, two = await vm(fabric, "one", "acme", "10.0.1.2"), await vm(fabric, "two", "acme", "10.0.1.3")
    assert (await fabric.check_reachability(one, two, "tcp", 22)).allowed
    assert (await fabric.check_reachability(one, two, "tcp", 80)).reason is Reason.SG_INGRESS_DENIED
    await fabric.apply_security_group("acme-sg", "acme-vn", [*DEFAULT_INGRESS, tcp(80, "10.0.0.0/16")], [everything()])
    assert (await fabric.check_reachability(one, two, "tcp", 80)).allowed
    await fabric.create_subnet(subnet("acme-subnet-2", "acme-vn", "10.0.2.0/24"))
    three = await vm(fabric, "three", "acme", "10.0.2.2", subnet_id="acme-subnet-2")
    assert (await fabric.check_reachability(one, three, "tcp", 22)).allowed


async def test_stateful_and_union(fabric: SimulatedFabric) -> None:
    await tenant(fabric, "acme")
    await fabric.apply_security_group("sg-a", "acme-vn", [], [everything()])
    await fabric.apply_security_group("sg-b", "acme-vn", [tcp(22, "10.0.1.2/32")], [everything()])
    a = await vm(fabric, "a", "acme", "10.0.1.2", ("sg-a",))
    b = await vm(fabric, "b", "acme", "10.0.1.3", ("sg-b",))
    assert (await fabric.check_reachability(a, b, "tcp", 22)).allowed
    assert (await fabric.check_reachability(b, a, "tcp", 22, reply=True)).allowed
    assert (await fabric.check_reachability(b, a, "tcp", 22)).reason is Reason.SG_INGRESS_DENIED
    assert not (await fabric.check_reachability(a, b, "tcp", 8080)).allowed
    await fabric.apply_security_group("sg-b2", "acme-vn", [tcp(8080, "10.0.0.0/16")], [])
    await vm(fabric, "b", "acme", "10.0.1.3", ("sg-b", "sg-b2"))  # re-bind the SGs
    assert (await fabric.check_reachability(a, b, "tcp", 22)).allowed
    assert (await fabric.check_reachability(a, b, "tcp", 8080)).allowed


async def test_inbound_needs_a_dnat_entry(fabric: SimulatedFabric) -> None:
    await tenant(fabric, "acme", nat="203.0.113.1")
    await fabric.apply_security_group("web", "acme-vn", [tcp(22)], [everything()])
    target = await vm(fabric, "web", "acme", "10.0.1.5", ("web",))
    assert (await fabric.check_reachability("internet", target, "tcp", 22)).reason is Reason.NO_DNAT
    await fabric.allocate_external_ip("eip", "pool", "203.0.113.7")
    await fabric.create_external_ip_attachment("att", "203.0.113.7", "acme-vn", "10.0.1.5")
    answer = await fabric.check_reachability("internet", "203.0.113.7", "tcp", 22)
    assert (answer.allowed, answer.translated_destination) == (True, "10.0.1.5")
    assert (await fabric.check_reachability("internet", "203.0.113.7", "tcp", 80)).reason is Reason.SG_INGRESS_DENIED


async def test_outbound_needs_the_nat_gateway(fabric: SimulatedFabric) -> None:
    await tenant(fabric, "acme", nat="203.0.113.1")
    await tenant(fabric, "beta")
    acme = await vm(fabric, "a", "acme", "10.0.1.5")
    answer = await fabric.check_reachability(acme, "internet", "tcp", 443)
    assert (answer.allowed, answer.translated_source) == (True, "203.0.113.1")
    beta = await vm(fabric, "b", "beta", "10.0.1.5")
    await fabric.allocate_external_ip("beta-eip", "pool", "203.0.113.9")
    await fabric.create_external_ip_attachment("beta-att", "203.0.113.9", "beta-vn", "10.0.1.5")
    assert (await fabric.check_reachability(beta, "internet", "tcp", 443)).reason is Reason.NO_SNAT


async def test_any_workload_kind_on_one_subnet_is_treated_alike(fabric: SimulatedFabric) -> None:
    await tenant(fabric, "acme")
    kinds = {
        "ci/vm": ("nic-0", "compute_instance"),
        "node/cl-1/workers/0": ("eth1", "cluster"),
        "bm-001": ("eth1", "baremetal_instance"),
    }
    ports = []
    for index, (host, (interface, kind)) in enumerate(kinds.items()):
        await fabric.create_network_attachment(
            attachment(host, interface, "acme-subnet", f"10.0.1.{10 + index}", ("acme-sg",), target_kind=kind))
        ports.append(f"{host}/{interface}")
    observation = await fabric.fabric_observation("acme-vn")
    assert len(observation["segments"]) == 1
    assert sorted(p["target_kind"] for p in observation["ports"]) == sorted(k for _, k in kinds.values())
    for src in ports:
        for dst in ports:
            if src != dst:
                assert (await fabric.check_reachability(src, dst, "tcp", 22)).allowed
                assert (await fabric.check_reachability(src, dst, "tcp", 80)).reason is Reason.SG_INGRESS_DENIED


async def test_state_survives_a_new_fabric_instance(runtime: SimulatorRuntime, fabric: SimulatedFabric) -> None:
    await tenant(fabric, "acme", nat="203.0.113.1")
    port = await vm(fabric, "a", "acme", "10.0.1.5")
    before = await fabric.fabric_observation("acme-vn")

    fresh_runtime = SimulatorRuntime(runtime.engine, runtime.clock, runtime.speed, reader=runtime.reader)
    fresh = SimulatedFabric("sim-fabric", {}, fresh_runtime)
    assert await fresh.fabric_observation("acme-vn") == before
    assert (await fresh.check_reachability(port, "internet", "tcp", 443)).allowed
    await fresh.create_network_attachment(attachment("ci/a", "nic-0", "acme-subnet", "10.0.1.5", ("acme-sg",)))
    assert await fresh.fabric_observation("acme-vn") == before
    async with runtime.engine.connect() as conn:
        rows = (await conn.execute(sim_fabric_ports.select())).all()
    assert [(r.host_name, r.interface) for r in rows] == [("ci/a", "nic-0")]
