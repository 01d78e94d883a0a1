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

import asyncio
import ipaddress
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from itertools import permutations
from pathlib import Path
from typing import Any

import pytest
import yaml

from osac.auth.subject import Role
from osac.server import bootstrap
from tests.caas.conftest import PULL_SECRET, RELEASE_IMAGE, ssh_key
from tests.reconcile.test_default_networking import ready_catalogue, wait_for
from tests.support.server import RestClient, ServerHandle, running_server
from tests.workloads.test_bmi_lifecycle import FAST_GATES

PUBLIC = "/api/fulfillment/v1"
PRIVATE = "/api/private/v1"
INTERNET = "internet"


def tcp(port: int, cidr: str) -> dict[str, Any]:
    return {"protocol": "PROTOCOL_TCP", "port_from": port, "port_to": port, "ipv4_cidr": cidr}


ALL_EGRESS = [{"protocol": "PROTOCOL_ALL", "ipv4_cidr": "0.0.0.0/0"}]
#: The default class's tenant defaults of the §14 setup.
SECTION_14_DEFAULTS = {
    "virtual_network_ipv4_cidr": "10.0.0.0/16",
    "subnet_ipv4_cidr": "10.0.1.0/24",
    "enable_nat_gateway": True,
    "ingress_rules": [tcp(22, "10.0.0.0/16")],
    "egress_rules": ALL_EGRESS,
}


# -- answers ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """A ``CheckReachability`` response; the addresses are those after NAT."""

    allowed: bool
    reason: str
    source: str = ""
    destination: str = ""


def allow(source: str, destination: str) -> Answer:
    return Answer(True, "OK", source, destination)


def drop(reason: str) -> Answer:
    return Answer(False, reason)


ISOLATED = drop("ISOLATED")
SG_INGRESS_DENIED = drop("SG_INGRESS_DENIED")
NO_DNAT = drop("NO_DNAT")
NO_SNAT = drop("NO_SNAT")


# -- the cloud --------------------------------------------------------------------------------------


async def wait_until(read: Callable[[], Awaitable[Any]], expected: Any, timeout: float = 20.0) -> None:
    """Poll ``await read()`` until it returns ``expected``."""
    last: Any = None
    try:
        async with asyncio.timeout(timeout):
            while (last := await read()) != expected:
                await asyncio.sleep(0.05)
    except TimeoutError:
        raise AssertionError(f"expected {expected}, last {last}") from None


def nic(vm: dict[str, Any]) -> str:
    """The fabric port of a VM's first NIC (networking.md §11.1)."""
    return f"ci/{vm['id']}/nic-0"


def address(vm: dict[str, Any]) -> str:
    return str(vm["status"]["internal_ip_address"])


@dataclass
class Cloud:
    """A server with controllers and the simulator at instant speed, the §14 catalogue READY;
    ``tenants`` holds a tenant-admin client per onboarded tenant."""

    server: ServerHandle
    admin: RestClient
    tenants: dict[str, RestClient]
    clients: AsyncExitStack

    async def onboard(self, tenant: str) -> None:
        """Tenant Create, then wait for its default networking to be READY."""
        response = await self.admin.request("POST", f"{PUBLIC}/tenants", json={"metadata": {"name": tenant}})
        assert response.status_code == 200, response.text
        await wait_for(self.admin, f"{PUBLIC}/tenants/{response.json()['id']}",
                       lambda t: t["status"]["state"] == "TENANT_STATE_READY")
        client = self.server.rest(self.server.token(Role.TENANT_ADMIN, (tenant,), user=f"{tenant}-admin"))
        self.tenants[tenant] = await self.clients.enter_async_context(client)

    # -- objects -------------------------------------------------------------------------------------

    async def create(self, tenant: str, collection: str, name: str, spec: dict[str, Any]) -> dict[str, Any]:
        response = await self.tenants[tenant].request("POST", f"{PUBLIC}/{collection}",
                                                      json={"metadata": {"name": name}, "spec": spec})
        assert response.status_code == 200, response.text
        return dict(response.json())

    async def get(self, tenant: str, collection: str, object_id: str) -> dict[str, Any]:
        response = await self.tenants[tenant].request("GET", f"{PUBLIC}/{collection}/{object_id}")
        assert response.status_code == 200, response.text
        return dict(response.json())

    async def patch(self, tenant: str, collection: str, object_id: str, spec: dict[str, Any], mask: str
                    ) -> dict[str, Any]:
        response = await self.tenants[tenant].request("PATCH", f"{PUBLIC}/{collection}/{object_id}",
                                                      params={"update_mask": mask}, json={"spec": spec})
        assert response.status_code == 200, response.text
        return dict(response.json())

    async def default(self, tenant: str, collection: str) -> dict[str, Any]:
        """The tenant's default-networking object of a collection."""
        response = await self.tenants[tenant].request("GET", f"{PUBLIC}/{collection}",
                                                      params={"filter": "this.metadata.name == 'default'"})
        [item] = response.json()["items"]
        return dict(item)

    async def converged(self, tenant: str, collection: str, obj: dict[str, Any], state: str,
                        timeout: float = 20.0) -> dict[str, Any]:
        """The object once its ``status.state`` is ``state`` (READY, RUNNING, ALLOCATED, ...)."""
        return await wait_for(self.tenants[tenant], f"{PUBLIC}/{collection}/{obj['id']}",
                              lambda o: o["status"]["state"].endswith(f"_STATE_{state}"), timeout=timeout)

    async def made(self, tenant: str, collection: str, name: str, spec: dict[str, Any], state: str = "READY"
                   ) -> dict[str, Any]:
        return await self.converged(tenant, collection, await self.create(tenant, collection, name, spec), state)

    async def network(self, tenant: str, name: str, cidr: str = "10.0.0.0/16") -> dict[str, Any]:
        return await self.made(tenant, "virtual_networks", name, {"ipv4_cidr": cidr})

    async def subnet(self, tenant: str, name: str, vn: str, cidr: str) -> dict[str, Any]:
        return await self.made(tenant, "subnets", name, {"virtual_network": vn, "ipv4_cidr": cidr})

    async def security_group(self, tenant: str, name: str, vn: str, ingress: list[dict[str, Any]],
                             egress: list[dict[str, Any]]) -> dict[str, Any]:
        return await self.made(tenant, "security_groups", name,
                               {"virtual_network": vn, "ingress": ingress, "egress": egress})

    async def vm(self, tenant: str, name: str, attachments: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """A RUNNING VM with its address; without ``attachments`` on the tenant's defaults."""
        spec: dict[str, Any] = {"template": "fedora"}
        if attachments is not None:
            spec["compute_network_attachments"] = attachments
        vm = await self.create(tenant, "compute_instances", name, spec)
        return await wait_for(self.tenants[tenant], f"{PUBLIC}/compute_instances/{vm['id']}",
                              lambda v: v["status"]["state"] == "COMPUTE_INSTANCE_STATE_RUNNING"
                              and bool(v["status"].get("internal_ip_address")))

    async def external_access(self, tenant: str, name: str, vm: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """A manual ExternalIP from public-v4, ALLOCATED, and its attachment to ``vm``, READY."""
        eip = await self.made(tenant, "external_ips", name, {"pool": "public-v4"}, "ALLOCATED")
        attached = await self.made(tenant, "external_ip_attachments", name,
                                   {"external_ip": eip["id"], "compute_instance": vm["id"]})
        return eip, attached

    # -- the simulator -------------------------------------------------------------------------------

    async def reach(self, src: str, dst: str, port: int) -> Answer:
        """``Simulator.CheckReachability`` for a new TCP flow."""
        response = await self.admin.request("POST", f"{PRIVATE}/simulator/check_reachability",
                                            json={"src": src, "dst": dst, "protocol": "PROTOCOL_TCP", "port": port})
        assert response.status_code == 200, response.text
        body = response.json()  # proto3 JSON leaves out false and empty fields
        return Answer(body.get("allowed", False), body["reason"], body.get("translated_source", ""),
                      body.get("translated_destination", ""))

    async def reply(self, src: str, dst: str, port: int) -> Answer:
        """Whether the reply of the TCP flow ``src -> dst`` gets back to ``src`` (not in the admin
        API: asked of the simulator runtime)."""
        simulator = self.server.app.managers.simulator
        assert simulator is not None
        answer = await simulator.check_reachability(dst, src, "tcp", port, reply=True)
        return Answer(answer.allowed, str(answer.reason), answer.translated_source, answer.translated_destination)

    async def fabric(self, vn_id: str) -> dict[str, Any]:
        """``Simulator.GetObservation(kind="fabric")``: the fabric's tables for a VN."""
        response = await self.admin.request("POST", f"{PRIVATE}/simulator/get_observation",
                                            json={"kind": "fabric", "key": vn_id})
        assert response.status_code == 200, response.text
        return dict(response.json()["observation"])


def section_14_catalogue(directory: Path) -> Path:
    """The bootstrap catalogue with the §14 defaults on the default NetworkClass."""
    objects = bootstrap.load(None)
    [network_class] = [entry["object"] for entry in objects if entry["kind"] == "NetworkClass"]
    network_class["spec"]["defaults"] = SECTION_14_DEFAULTS
    path = directory / "section-14-catalogue.yaml"
    path.write_text(yaml.safe_dump({"objects": objects}))
    return path


@pytest.fixture
async def cloud(db_url: str, tmp_path: Path) -> AsyncIterator[Cloud]:
    catalogue = section_14_catalogue(tmp_path)
    async with running_server(tmp_path, db_url, controllers=True, config=FAST_GATES, bootstrap=catalogue) as server, \
            AsyncExitStack() as clients:
        admin = await clients.enter_async_context(server.rest(server.token(Role.PROVIDER_ADMIN, user="root")))
        await ready_catalogue(admin)
        cloud = Cloud(server, admin, {}, clients)
        await cloud.onboard("acme")
        yield cloud


# -- scenarios --------------------------------------------------------------------------------------


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
