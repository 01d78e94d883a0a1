"""A VM with two NICs on two subnets of one virtual network, the second primary, and automatic
external access, end to end at instant speed (networking.md §7.2, §8, §14 scenario 27): it runs
with one status per attachment, each address reserved on its own subnet, the primary's address is
``internal_ip_address`` and the external address is DNAT'ed to it, and the fabric has one port per
NIC on that NIC's subnet segment."""

from __future__ import annotations

import ipaddress
from typing import Any

from osac.ipam import allocator
from tests.support.onboarding import wait_for
from tests.support.vmaas import PUBLIC, Vmaas, is_reachable

#: Beside the bootstrap default subnet 10.0.0.0/20 in the default VN 10.0.0.0/16.
SECOND_CIDR = "10.0.16.0/24"
DEFAULT_CIDR = "10.0.0.0/20"


async def _second_subnet(vmaas: Vmaas, default: dict[str, Any]) -> dict[str, Any]:
    """A READY subnet ``back`` (SECOND_CIDR) in acme's default virtual network."""
    response = await vmaas.alice.request("POST", f"{PUBLIC}/subnets", json={
        "metadata": {"name": "back"},
        "spec": {"virtual_network": default["spec"]["virtual_network"], "ipv4_cidr": SECOND_CIDR}})
    assert response.status_code == 200, response.text
    return await wait_for(vmaas.alice, f"{PUBLIC}/subnets/{response.json()['id']}",
                          lambda s: s["status"].get("state") == "SUBNET_STATE_READY")


async def _workload_addresses(vmaas: Vmaas, vm_id: str) -> dict[str, str]:
    """The VM's IPAM reservations: subnet id -> address."""
    async with vmaas.server.app.store.read() as tx:
        held = await allocator.allocations_of(tx, "compute_instance", vm_id)
    return {a.scope: a.address for a in held if a.purpose == "attachment"}


async def test_second_nic_as_primary_carries_the_internal_and_external_address(vmaas: Vmaas) -> None:
    # Given acme's default subnet (10.0.0.0/20) and a second READY subnet in the same VN,
    [default] = (await vmaas.get(f"{PUBLIC}/subnets"))["items"]
    [default_sg] = (await vmaas.get(f"{PUBLIC}/security_groups"))["items"]
    second = await _second_subnet(vmaas, default)
    vn_id = default["spec"]["virtual_network"]
    assert default["spec"]["ipv4_cidr"] == DEFAULT_CIDR

    # when a VM is created with a NIC on each, the second primary, and automatic external access,
    created = await vmaas.create("multi", auto_external_ip_attachment=True, compute_network_attachments=[
        {"subnet": "default"}, {"subnet": "back", "primary": True}])
    vm_id = created["id"]
    # the attachments are stored as given, subnets by id, each with the default SG (default VN),
    assert created["spec"]["compute_network_attachments"] == [
        {"subnet": default["id"], "security_groups": [default_sg["id"]]},
        {"subnet": second["id"], "security_groups": [default_sg["id"]], "primary": True}]

    # then it runs with its external address,
    vm = await vmaas.until(vm_id, lambda v: is_reachable(v) and bool(v["status"].get("external_ip_address")))
    status = vm["status"]
    assert status["state"] == "COMPUTE_INSTANCE_STATE_RUNNING"

    # with one status per attachment, in spec order, each address the one reserved on its subnet
    reserved = await _workload_addresses(vmaas, vm_id)
    assert set(reserved) == {default["id"], second["id"]}
    assert ipaddress.ip_address(reserved[default["id"]]) in ipaddress.ip_network(DEFAULT_CIDR)
    assert ipaddress.ip_address(reserved[second["id"]]) in ipaddress.ip_network(SECOND_CIDR)
    assert status["compute_network_attachment_statuses"] == [
        {"subnet": default["id"], "ip_address": reserved[default["id"]]},  # proto3 JSON omits primary: false
        {"subnet": second["id"], "ip_address": reserved[second["id"]], "primary": True}]
    # and the primary's address as the internal one;
    assert status["internal_ip_address"] == reserved[second["id"]]

    # the automatic external IP is DNAT'ed to the primary NIC's address,
    [eip] = [e for e in (await vmaas.get(f"{PUBLIC}/external_ips"))["items"] if e["metadata"]["name"] == f"auto-{vm_id}"]
    [attachment] = [a for a in (await vmaas.get(f"{PUBLIC}/external_ip_attachments"))["items"]
                    if a["metadata"]["name"] == f"auto-{vm_id}"]
    assert status["external_ip_address"] == eip["status"]["address"]
    assert (attachment["status"]["state"], attachment["status"]["target_address"]) == (
        "EXTERNAL_IP_ATTACHMENT_STATE_READY", reserved[second["id"]])
    fabric = await vmaas.observation("fabric", vn_id)
    assert [d for d in fabric["dnat"] if d["attachment_id"] == attachment["id"]] == [
        {"attachment_id": attachment["id"], "external_address": eip["status"]["address"],
         "internal_address": reserved[second["id"]]}]

    # and the fabric has one port per NIC on that NIC's subnet segment, each with its DHCP reservation.
    ports = [p for p in fabric["ports"] if p["host_name"] == f"ci/{vm_id}"]
    assert [(p["interface"], p["segment"], p["target_kind"], p["security_group_ids"]) for p in ports] == [
        ("nic-0", default["id"], "compute_instance", [default_sg["id"]]),
        ("nic-1", second["id"], "compute_instance", [default_sg["id"]])]
    assert ports[0]["mac"] != ports[1]["mac"]
    held = {(r["subnet_id"], r["mac"], r["address"]) for r in fabric["reservations"] if r["host_name"] == f"ci/{vm_id}"}
    assert held == {(default["id"], ports[0]["mac"], reserved[default["id"]]),
                    (second["id"], ports[1]["mac"], reserved[second["id"]])}

    # The simulated VM has both NICs up with those MACs and addresses.
    machine = await vmaas.observation("compute_instance", vm_id)
    nics = machine["virtual_machine_instance"]["status"]["interfaces"]
    assert [(n["name"], n["mac"], n["ipAddress"]) for n in nics] == [
        ("nic-0", ports[0]["mac"], reserved[default["id"]]), ("nic-1", ports[1]["mac"], reserved[second["id"]])]
