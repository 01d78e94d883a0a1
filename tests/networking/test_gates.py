"""Lifecycle gates (networking.md §4): create needs READY references, delete needs no dependents."""

from __future__ import annotations

from tests.networking.conftest import Net, error
from tests.support.networking import PRIVATE


async def _finalize(net: Net, collection: str, object_id: str, finalizers: list[str]) -> None:
    response = await net.admin.request("PATCH", f"{PRIVATE}/{collection}/{object_id}",
                                       params={"update_mask": "metadata.finalizers"},
                                       json={"metadata": {"finalizers": finalizers}})
    assert response.status_code == 200, response.text


async def test_create_gates_name_the_reference_and_its_state(net: Net) -> None:
    await net.tenant()
    await net.create("network_classes", {"metadata": {"name": "premium"}, "fabric_manager": "sim-fabric"}, private=True)
    response = await net.post("virtual_networks", {"spec": {"network_class": "premium", "ipv4_cidr": "10.1.0.0/16"}})
    assert error(response) == (400, "NetworkClass 'premium' is not READY (state NETWORK_CLASS_STATE_PENDING)")

    vn = await net.network("app", "10.1.0.0/16", ready=False)
    for collection, spec in (("subnets", {"virtual_network": "app", "ipv4_cidr": "10.1.0.0/24"}),
                             ("security_groups", {"virtual_network": "app"})):
        response = await net.post(collection, {"spec": spec})
        assert error(response) == (400, "VirtualNetwork 'app' is not READY (state VIRTUAL_NETWORK_STATE_PENDING)"), collection
    await net.ready("virtual_networks", vn["id"], "VIRTUAL_NETWORK_STATE_FAILED")
    response = await net.post("subnets", {"spec": {"virtual_network": "app", "ipv4_cidr": "10.1.0.0/24"}})
    assert error(response) == (400, "VirtualNetwork 'app' is not READY (state VIRTUAL_NETWORK_STATE_FAILED)")

    await net.pool("later", ["198.51.100.0/24"], ready=False)
    response = await net.post("external_ips", {"spec": {"pool": "later"}})
    assert error(response) == (400, "ExternalIPPool 'later' is not READY (state EXTERNAL_IP_POOL_STATE_PENDING)")

    pending_eip = await net.external_ip("pending", ready=False)
    other = await net.network("other", "10.2.0.0/16", ready=False)
    response = await net.post("nat_gateways", {"spec": {"virtual_network": other["id"], "external_ip": "pending"}})
    assert error(response) == (400, "VirtualNetwork 'other' is not READY (state VIRTUAL_NETWORK_STATE_PENDING)")
    await net.ready("virtual_networks", other["id"])
    response = await net.post("nat_gateways", {"spec": {"virtual_network": "other", "external_ip": pending_eip["id"]}})
    assert error(response) == (400, "ExternalIP 'pending' is not READY (state EXTERNAL_IP_STATE_PENDING)")
    await net.create("compute_instances", {"metadata": {"name": "vm"}, "spec": {"template": "fedora", "instance_type": "small"}})
    response = await net.post("external_ip_attachments", {"spec": {"external_ip": "pending", "compute_instance": "vm"}})
    assert error(response) == (400, "ExternalIP 'pending' is not READY (state EXTERNAL_IP_STATE_PENDING)")


async def test_create_gate_on_an_object_being_deleted(net: Net) -> None:
    await net.tenant()
    vn = await net.network("doomed", "10.1.0.0/16")
    await _finalize(net, "virtual_networks", vn["id"], ["test.example/hold"])
    assert (await net.delete("virtual_networks", vn["id"])).status_code == 200
    response = await net.post("subnets", {"spec": {"virtual_network": vn["id"], "ipv4_cidr": "10.1.0.0/24"}})
    assert error(response) == (400, "VirtualNetwork 'doomed' is being deleted")
    eip = await net.external_ip("going")
    await _finalize(net, "external_ips", eip["id"], ["test.example/hold"])
    assert (await net.delete("external_ips", eip["id"])).status_code == 200
    response = await net.post("nat_gateways", {"spec": {"virtual_network": "default", "external_ip": "going"}})
    assert error(response) == (400, "ExternalIP 'going' is being deleted")


async def test_delete_gates_list_dependents_until_archived(net: Net) -> None:
    await net.tenant()
    vn = await net.network("app", "10.1.0.0/16")
    a = await net.subnet("a", "app", "10.1.0.0/24")
    b = await net.subnet("b", "app", "10.1.1.0/24")
    blocked = await net.delete("virtual_networks", vn["id"])
    assert error(blocked) == (400, "cannot delete VirtualNetwork 'app': 2 Subnet(s) still reference it: a, b")
    assert (await net.delete("subnets", b["id"])).status_code == 200  # no finalizer: archived at once
    await _finalize(net, "subnets", a["id"], ["test.example/hold"])
    assert (await net.delete("subnets", a["id"])).status_code == 200
    deleting = (await net.get("subnets", a["id"])).json()
    assert deleting["status"]["state"] == "SUBNET_STATE_DELETING"
    blocked = await net.delete("virtual_networks", vn["id"])
    assert error(blocked) == (400, "cannot delete VirtualNetwork 'app': 1 Subnet(s) still reference it: a")
    await _finalize(net, "subnets", a["id"], [])  # teardown done: archived
    assert (await net.get("subnets", a["id"])).status_code == 404
    assert (await net.delete("virtual_networks", vn["id"])).status_code == 200

    [default_vn] = await net.items("virtual_networks", "this.metadata.name == 'default'")
    blocked = await net.delete("virtual_networks", default_vn["id"])
    assert error(blocked) == (400, "cannot delete VirtualNetwork 'default': 1 Subnet(s) still reference it: default; "
                                   "and 1 SecurityGroup(s): default; and 1 NATGateway(s): default")

    [nat_eip] = await net.items("external_ips", "this.metadata.name == 'default-nat'")
    blocked = await net.delete("external_ips", nat_eip["id"])
    assert error(blocked) == (400, "cannot delete ExternalIP 'default-nat': 1 NATGateway(s) still reference it: default")

    [pool] = await net.items("external_ip_pools", "this.metadata.name == 'public-v4'")
    blocked = await net.delete("external_ip_pools", pool["id"], private=True)
    assert error(blocked) == (400, "cannot delete ExternalIPPool 'public-v4': 1 ExternalIP(s) still reference it: default-nat")

    [network_class] = await net.items("network_classes", "this.metadata.name == 'default'")
    blocked = await net.delete("network_classes", network_class["id"], private=True)
    assert error(blocked) == (400, "cannot delete NetworkClass 'default': 1 VirtualNetwork(s) still reference it: default")


async def test_a_consumer_released_by_archiving_frees_the_external_ip(net: Net) -> None:
    await net.tenant()
    await net.network("app", "10.1.0.0/16")
    eip = await net.external_ip("web")
    gateway = await net.create("nat_gateways", {"metadata": {"name": "app"}, "spec": {"virtual_network": "app", "external_ip": "web"}})
    blocked = await net.delete("external_ips", eip["id"])
    assert error(blocked) == (400, "cannot delete ExternalIP 'web': 1 NATGateway(s) still reference it: app")
    await net.create("compute_instances", {"metadata": {"name": "vm"}, "spec": {"template": "fedora", "instance_type": "small"}})
    used = await net.post("external_ip_attachments", {"spec": {"external_ip": "web", "compute_instance": "vm"}})
    assert error(used) == (400, "ExternalIP 'web' is already used by NATGateway 'app'")
    assert (await net.delete("nat_gateways", gateway["id"])).status_code == 200  # archived (no finalizer here)
    await net.create("external_ip_attachments", {"spec": {"external_ip": "web", "compute_instance": "vm"}})
    replacement = await net.external_ip("again")
    await net.create("nat_gateways", {"metadata": {"name": "app"}, "spec": {"virtual_network": "app", "external_ip": replacement["id"]}})
