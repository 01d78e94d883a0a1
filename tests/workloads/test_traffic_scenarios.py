"""networking.md §14 "Model and traffic" scenarios 1–6 end to end: tenants, networks, security
groups, workloads, external IPs and attachments are created through the public API, the
reconcilers program the simulated fabric (instant speed), and the simulator's admin API
``CheckReachability`` says what the traffic does (rules R1–R6 of §1).

Setup as in §14: the default NetworkClass (with the k8s manager) gives every tenant VN
10.0.0.0/16, subnet 10.0.1.0/24, an SG allowing TCP 22 from 10.0.0.0/16 and all egress, and a NAT
gateway; the pool public-v4 is 203.0.113.0/24. Workload addresses come from a fresh /24 lowest
first (§5.4), so the first VM of a subnet is .2, the next .3.

The fabric's own tables are tested with direct calls in ``tests/providers/test_fabric_reachability.py``;
here the same answers must follow from API objects alone. One exception: the admin API asks only
about new flows (§11.2 has no reply flag), so the replies of scenarios 3 and 6 are asked of the
simulator runtime in-process, over the same fabric tables.
"""

from __future__ import annotations

import ipaddress
from itertools import permutations

from tests.caas.conftest import PULL_SECRET, RELEASE_IMAGE, ssh_key
from tests.support.onboarding import wait_for
from tests.support.traffic import (
    ALL_EGRESS,
    INTERNET,
    ISOLATED,
    NO_DNAT,
    NO_SNAT,
    PRIVATE,
    PUBLIC,
    SG_INGRESS_DENIED,
    Cloud,
    address,
    allow,
    nic,
    tcp,
    wait_until,
)


async def test_1_isolation_nothing_crosses_between_virtual_networks(cloud: Cloud) -> None:
    """Scenario 1: VMs in acme/default, beta/default (same CIDRs) and another acme VN."""
    await cloud.onboard("beta")
    await cloud.network("acme", "lab")
    await cloud.subnet("acme", "lab", "lab", "10.0.1.0/24")
    await cloud.security_group("acme", "lab", "lab", [tcp(22, "10.0.0.0/16")], ALL_EGRESS)

    vms = {
        "acme/default": await cloud.vm("acme", "a"),
        "beta/default": await cloud.vm("beta", "b"),
        "acme/lab": await cloud.vm("acme", "c", [{"subnet": "lab", "security_groups": ["lab"]}]),
    }
    # The CIDRs overlap, so each VM holds the first workload address of its own 10.0.1.0/24.
    assert {where: address(vm) for where, vm in vms.items()} == dict.fromkeys(vms, "10.0.1.2")

    for src, dst in permutations(vms, 2):
        assert await cloud.reach(nic(vms[src]), nic(vms[dst]), 22) == ISOLATED, (src, dst)

    # The same probe inside one VN passes: the drops above are isolation, not security groups.
    neighbour = await cloud.vm("acme", "a2")
    assert await cloud.reach(nic(neighbour), nic(vms["acme/default"]), 22) == allow("10.0.1.3", "10.0.1.2")


async def test_2_default_deny_a_new_rule_opens_the_port_and_subnets_are_routed(cloud: Cloud) -> None:
    """Scenario 2: the default SG admits TCP 22 only; an added rule opens TCP 80 (SG PENDING →
    READY); a second subnet of the VN is routed (L3)."""
    one, two = await cloud.vm("acme", "one"), await cloud.vm("acme", "two")
    assert (address(one), address(two)) == ("10.0.1.2", "10.0.1.3")
    assert await cloud.reach(nic(one), nic(two), 22) == allow("10.0.1.2", "10.0.1.3")
    assert await cloud.reach(nic(one), nic(two), 80) == SG_INGRESS_DENIED
    assert await cloud.reach(nic(one), "10.0.1.3", 80) == SG_INGRESS_DENIED  # addressed by IP alike

    group = await cloud.default("acme", "security_groups")
    assert group["spec"]["ingress"] == [tcp(22, "10.0.0.0/16")]
    changed = await cloud.patch("acme", "security_groups", group["id"],
                                {"ingress": [*group["spec"]["ingress"], tcp(80, "10.0.0.0/16")]}, "spec.ingress")
    assert (changed["status"]["state"], changed["status"]["message"]) == (
        "SECURITY_GROUP_STATE_PENDING", "applying the changed rules")
    await cloud.converged("acme", "security_groups", group, "READY")
    assert await cloud.reach(nic(one), nic(two), 80) == allow("10.0.1.2", "10.0.1.3")
    assert await cloud.reach(nic(two), nic(one), 80) == allow("10.0.1.3", "10.0.1.2")
    assert await cloud.reach(nic(one), nic(two), 443) == SG_INGRESS_DENIED  # still default deny

    await cloud.subnet("acme", "app", "default", "10.0.2.0/24")
    three = await cloud.vm("acme", "three", [{"subnet": "app"}])
    assert three["spec"]["compute_network_attachments"][0]["security_groups"] == [group["id"]]  # §6.4
    assert address(three) == "10.0.2.2"
    assert await cloud.reach(nic(one), nic(three), 22) == allow("10.0.1.2", "10.0.2.2")
    assert await cloud.reach(nic(three), nic(one), 22) == allow("10.0.2.2", "10.0.1.2")


async def test_3_groups_are_stateful_and_their_rules_add_up(cloud: Cloud) -> None:
    """Scenario 3: B admits TCP 22 from A only, A admits nothing; a second SG on B adds TCP 8080."""
    await cloud.security_group("acme", "a", "default", [], ALL_EGRESS)
    a = await cloud.vm("acme", "a", [{"subnet": "default", "security_groups": ["a"]}])
    group_b = await cloud.security_group("acme", "b", "default", [tcp(22, f"{address(a)}/32")], ALL_EGRESS)
    b = await cloud.vm("acme", "b", [{"subnet": "default", "security_groups": ["b"]}])
    a_ip, b_ip = address(a), address(b)

    assert await cloud.reach(nic(a), nic(b), 22) == allow(a_ip, b_ip)
    assert await cloud.reply(nic(a), nic(b), 22) == allow(b_ip, a_ip)  # the reply passes A's ingress
    assert await cloud.reach(nic(b), nic(a), 22) == SG_INGRESS_DENIED  # a new flow does not
    assert await cloud.reach(nic(a), nic(b), 8080) == SG_INGRESS_DENIED

    group_8080 = await cloud.security_group("acme", "b-8080", "default", [tcp(8080, "10.0.0.0/16")], [])
    [attachment] = b["spec"]["compute_network_attachments"]
    rebound = await cloud.patch("acme", "compute_instances", b["id"],
                                {"compute_network_attachments": [{**attachment, "security_groups": ["b", "b-8080"]}]},
                                "spec.compute_network_attachments")
    assert rebound["spec"]["compute_network_attachments"][0]["security_groups"] == [group_b["id"], group_8080["id"]]
    vn = (await cloud.default("acme", "virtual_networks"))["id"]

    async def port_groups() -> list[str]:
        [port] = [p for p in (await cloud.fabric(vn))["ports"] if p["host_name"] == f"ci/{b['id']}"]
        return list(port["security_group_ids"])

    await wait_until(port_groups, [group_b["id"], group_8080["id"]])
    assert (await cloud.get("acme", "compute_instances", b["id"]))["status"]["state"] == "COMPUTE_INSTANCE_STATE_RUNNING"

    assert await cloud.reach(nic(a), nic(b), 22) == allow(a_ip, b_ip)
    assert await cloud.reach(nic(a), nic(b), 8080) == allow(a_ip, b_ip)
    assert await cloud.reach(nic(a), nic(b), 80) == SG_INGRESS_DENIED
    assert await cloud.reach(nic(b), nic(a), 8080) == SG_INGRESS_DENIED


async def test_4_every_workload_kind_on_one_subnet_gets_the_same_answers(cloud: Cloud) -> None:
    """Scenario 4: a VM, a 2-node cluster and a bare-metal server on the default subnet with the
    default SG."""
    subnet = await cloud.default("acme", "subnets")
    group = await cloud.default("acme", "security_groups")
    vm = await cloud.vm("acme", "vm")
    cluster = await cloud.create("acme", "clusters", "kube", {
        "template": "ocp-small", "release_image": RELEASE_IMAGE, "pull_secret": PULL_SECRET,
        "ssh_public_key": ssh_key(), "node_sets": {"workers": {"host_type": "vm-standard", "size": 2}}})
    server = await cloud.create("acme", "baremetal_instances", "metal", {"host_type": "bm-standard"})
    await cloud.converged("acme", "clusters", cluster, "READY", timeout=60)
    await cloud.converged("acme", "baremetal_instances", server, "RUNNING")
    host = (await cloud.admin.request("GET", f"{PRIVATE}/baremetal_instances/{server['id']}")).json()["status"]["host"]
    assert cluster["spec"]["network_attachment"] == {"subnet": subnet["id"], "security_groups": [group["id"]]}
    assert server["spec"]["network_attachments"][0]["security_groups"] == [group["id"]]

    ports = {
        f"ci/{vm['id']}/nic-0": "compute_instance",
        f"node/{cluster['id']}/workers/0/nic-0": "cluster",
        f"node/{cluster['id']}/workers/1/nic-0": "cluster",
        f"{host}/ens1f0": "baremetal_instance",
    }
    fabric = await cloud.fabric(subnet["spec"]["virtual_network"])
    assert [segment["subnet_id"] for segment in fabric["segments"]] == [subnet["id"]]
    assert {f"{p['host_name']}/{p['interface']}": (p["target_kind"], p["segment"], p["security_group_ids"])
            for p in fabric["ports"]} == {port: (kind, subnet["id"], [group["id"]]) for port, kind in ports.items()}

    # Every address from the subnet's workload range: after the gateway, before the VIP range.
    addresses = {f"{r['host_name']}/{r['interface']}": r["address"] for r in fabric["reservations"]}
    assert set(addresses) == set(ports) and len(set(addresses.values())) == len(ports)
    vip_first = subnet["status"]["vip_range"].split("-")[0]
    workload_range = range(int(ipaddress.ip_address(subnet["status"]["gateway"])) + 1, int(ipaddress.ip_address(vip_first)))
    assert all(int(ipaddress.ip_address(a)) in workload_range for a in addresses.values()), addresses
    assert addresses[nic(vm)] == address(vm)

    for src, dst in permutations(ports, 2):
        assert await cloud.reach(src, dst, 22) == allow(addresses[src], addresses[dst]), (src, dst)
        assert await cloud.reach(src, dst, 80) == SG_INGRESS_DENIED, (src, dst)

    # A second SG added to each workload's attachment is re-bound to all its ports alike, the
    # cluster's node ports included (§7.1), and the workloads keep their state.
    web = await cloud.security_group("acme", "web", "default", [tcp(80, "10.0.0.0/16")], [])
    both = [group["id"], web["id"]]
    [vm_attachment] = vm["spec"]["compute_network_attachments"]
    await cloud.patch("acme", "compute_instances", vm["id"], {"compute_network_attachments": [
        {**vm_attachment, "security_groups": both}]}, "spec.compute_network_attachments")
    await cloud.patch("acme", "clusters", cluster["id"], {"network_attachment": {
        **cluster["spec"]["network_attachment"], "security_groups": both}}, "spec.network_attachment")
    [server_attachment] = server["spec"]["network_attachments"]
    await cloud.patch("acme", "baremetal_instances", server["id"], {"network_attachments": [
        {**server_attachment, "security_groups": both}]}, "spec.network_attachments")

    async def bound() -> dict[str, list[str]]:
        fabric = await cloud.fabric(subnet["spec"]["virtual_network"])
        return {f"{p['host_name']}/{p['interface']}": p["security_group_ids"] for p in fabric["ports"]}

    await wait_until(bound, dict.fromkeys(ports, both))
    for src, dst in permutations(ports, 2):
        assert await cloud.reach(src, dst, 80) == allow(addresses[src], addresses[dst]), (src, dst)
        assert await cloud.reach(src, dst, 443) == SG_INGRESS_DENIED, (src, dst)
    states = [(await cloud.get("acme", collection, obj["id"]))["status"]["state"]
              for collection, obj in (("compute_instances", vm), ("clusters", cluster), ("baremetal_instances", server))]
    assert states == ["COMPUTE_INSTANCE_STATE_RUNNING", "CLUSTER_STATE_READY", "BARE_METAL_INSTANCE_STATE_RUNNING"]


async def test_5_inbound_only_through_a_ready_external_ip_attachment(cloud: Cloud) -> None:
    """Scenario 5: a VM whose SG admits TCP 22 from anywhere is reached from the internet only
    once a manual EIP is attached to it."""
    vn = await cloud.default("acme", "virtual_networks")
    await cloud.security_group("acme", "web", "default", [tcp(22, "0.0.0.0/0")], ALL_EGRESS)
    web = await cloud.vm("acme", "web", [{"subnet": "default", "security_groups": ["web"]}])
    assert await cloud.reach(INTERNET, nic(web), 22) == NO_DNAT
    assert await cloud.reach(INTERNET, address(web), 22) == NO_DNAT

    eip = await cloud.made("acme", "external_ips", "web", {"pool": "public-v4"}, "ALLOCATED")
    public = eip["status"]["address"]
    assert ipaddress.ip_address(public) in ipaddress.ip_network("203.0.113.0/24")
    assert await cloud.reach(INTERNET, public, 22) == NO_DNAT  # announced, attached to nothing

    attached = await cloud.made("acme", "external_ip_attachments", "web", {"external_ip": eip["id"],
                                                                          "compute_instance": web["id"]})
    assert (attached["status"]["external_ip_address"], attached["status"]["target_address"]) == (public, address(web))
    assert [(d["external_address"], d["internal_address"]) for d in (await cloud.fabric(vn["id"]))["dnat"]] == [
        (public, address(web))]

    assert await cloud.reach(INTERNET, public, 22) == allow(INTERNET, address(web))
    assert await cloud.reach(INTERNET, nic(web), 22) == allow(INTERNET, address(web))
    assert await cloud.reach(INTERNET, public, 80) == SG_INGRESS_DENIED
    await wait_for(cloud.tenants["acme"], f"{PUBLIC}/compute_instances/{web['id']}",
                   lambda v: v["status"].get("external_ip_address") == public)
    # The default SG admits TCP 22 only from inside the VN: its VM is not reachable from outside.
    inside = await cloud.vm("acme", "inside")
    await cloud.external_access("acme", "inside", inside)
    assert await cloud.reach(INTERNET, nic(inside), 22) == SG_INGRESS_DENIED


async def test_6_outbound_only_through_the_nat_gateway(cloud: Cloud) -> None:
    """Scenario 6: a VM leaves its VN as the NAT gateway's EIP; in a VN without a gateway it
    cannot start a flow outwards, even with an inbound EIP."""
    gateway = await cloud.default("acme", "nat_gateways")
    gateway_ip = (await cloud.get("acme", "external_ips", gateway["spec"]["external_ip"]))["status"]["address"]
    a = await cloud.vm("acme", "a")
    assert await cloud.reach(nic(a), INTERNET, 443) == allow(gateway_ip, INTERNET)
    assert await cloud.reach(nic(a), "198.51.100.7", 443) == allow(gateway_ip, "198.51.100.7")

    await cloud.network("acme", "dark")  # no NAT gateway
    await cloud.subnet("acme", "dark", "dark", "10.0.1.0/24")
    await cloud.security_group("acme", "dark", "dark", [tcp(22, "0.0.0.0/0")], ALL_EGRESS)
    b = await cloud.vm("acme", "b", [{"subnet": "dark", "security_groups": ["dark"]}])
    eip, _ = await cloud.external_access("acme", "b", b)
    public = eip["status"]["address"]
    assert public != gateway_ip

    assert await cloud.reach(nic(b), INTERNET, 443) == NO_SNAT
    assert await cloud.reach(INTERNET, public, 22) == allow(INTERNET, address(b))
    assert await cloud.reply(INTERNET, public, 22) == allow(public, INTERNET)  # replies leave via the EIP (R6)
    # From the other VN, b is reached only over the internet: SNAT out of acme/default, DNAT in.
    assert await cloud.reach(nic(a), public, 22) == allow(gateway_ip, address(b))
