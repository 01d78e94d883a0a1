"""The shared helpers the workload kinds build on (networking.md §5.3–§5.5, §6.4, §7.1, §8, §9),
called inside a write transaction as a workload's hooks would, on tenants created via the API."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from osac.model import registry
from osac.services.core.behaviour import WriteContext
from osac.services.core.context import Caller
from osac.services.core.errors import FailedPrecondition, InvalidArgument, ResourceExhausted, ServiceError
from osac.services.networking import addresses, gateway_reuse, pool_selection
from osac.services.workloads import network_attachments
from osac.store import lifecycle
from osac.store.tables import LIVE
from tests.networking.conftest import Net
from tests.support.networking import PRIVATE, find_by_name, set_state


@asynccontextmanager
async def write(net: Net) -> AsyncIterator[WriteContext]:
    """A write transaction and hook context, as the service itself."""
    app = net.server.app
    async with app.store.write() as tx:
        yield WriteContext(tx, Caller.system(), app.services)


async def load(net: Net, kind_name: str, object_id: str) -> Any:
    kind = registry.get(kind_name)
    async with net.server.app.store.read() as tx:
        [obj] = await tx.find(kind, LIVE[kind.name].c.id == object_id)
    return obj


async def failure(coro: Any) -> tuple[type[ServiceError], str]:
    with pytest.raises(ServiceError) as raised:
        await coro
    return type(raised.value), raised.value.message


def attachment(subnet: str, *sgs: str) -> Any:
    message = registry.get("compute_instance").private_class()().spec.compute_network_attachments.add()
    message.subnet = subnet
    message.security_groups.extend(sgs)
    return message


async def test_tenant_defaults_resolution(net: Net) -> None:
    await net.tenant(ready=False)
    async with write(net) as ctx:
        assert await failure(network_attachments.tenant_defaults(ctx.tx, "acme")) == (
            FailedPrecondition, "Default networking is not ready: Subnet 'default' is PENDING")
    made = await _ready_defaults(net)
    async with write(net) as ctx:
        found = await network_attachments.tenant_defaults(ctx.tx, "acme")
        assert (found.subnet.id, found.security_group.id) == (made["subnets"], made["security_groups"])
        network_attachments.note_populated(ctx, "ComputeInstance", found.subnet)
        assert ctx.notes[0][:2] == (1, "NetworkAttachmentsPopulated")
        assert await failure(network_attachments.tenant_defaults(ctx.tx, "nobody")) == (FailedPrecondition, network_attachments.NO_DEFAULTS)
    await net.delete("security_groups", made["security_groups"], private=True)  # a needed default deleted
    async with write(net) as ctx:
        assert await failure(network_attachments.tenant_defaults(ctx.tx, "acme")) == (FailedPrecondition, network_attachments.NO_DEFAULTS)


async def _ready_defaults(net: Net) -> dict[str, str]:
    made = {}
    for collection, name in (("virtual_networks", "default"), ("subnets", "default"), ("security_groups", "default")):
        obj = await find_by_name(net.admin, collection, name, "acme")
        made[collection] = (await set_state(net.admin, collection, obj["id"]))["id"]
    return made


async def test_explicit_attachments_are_validated_and_completed(net: Net) -> None:
    await net.tenant()
    default_subnet = (await find_by_name(net.admin, "subnets", "default", "acme"))["id"]
    default_sg = (await find_by_name(net.admin, "security_groups", "default", "acme"))["id"]
    app = await net.network("app", "10.1.0.0/16")
    a = (await net.subnet("a", "app", "10.1.0.0/24"))["id"]
    b = (await net.subnet("b", "app", "10.1.1.0/24", ready=False))["id"]
    sg = (await net.create("security_groups", {"metadata": {"name": "app"}, "spec": {"virtual_network": "app"}}, ready=True))["id"]
    path = "spec.compute_network_attachments"
    async with write(net) as ctx:
        tx = ctx.tx
        assert (await network_attachments.validate(tx, path, [attachment(a, sg)])).id == app["id"]
        assert await failure(network_attachments.validate(tx, path, [attachment(a), attachment(a)])) == (
            InvalidArgument, f"{path}[1].subnet: the subnet is already attached by {path}[0]; a subnet may appear at most once")
        assert await failure(network_attachments.validate(tx, path, [attachment(a), attachment(default_subnet)], workload="ComputeInstance")) == (
            InvalidArgument, f"{path}[1].subnet: Subnet 'default' is in VirtualNetwork 'default', not VirtualNetwork 'app' "
                             f"like {path}[0]; a ComputeInstance attaches to one VirtualNetwork")
        assert await failure(network_attachments.validate(tx, path, [attachment(a, default_sg)])) == (
            InvalidArgument, f"{path}[0].security_groups[0]: SecurityGroup 'default' is not in VirtualNetwork 'app'")
        assert await failure(network_attachments.validate(tx, path, [attachment(b)])) == (
            FailedPrecondition, "Subnet 'b' is not READY (state SUBNET_STATE_PENDING)")
        assert await failure(network_attachments.validate(tx, path, [])) == (
            InvalidArgument, f"{path}: at least one network attachment is required")

        on_default, elsewhere = attachment(default_subnet), attachment(a)
        assert await network_attachments.fill_default_security_groups(tx, "acme", [on_default, elsewhere])
        assert (list(on_default.security_groups), list(elsewhere.security_groups)) == ([default_sg], [])

    no_k8s = await net.create("network_classes", {"metadata": {"name": "metal"}, "fabric_manager": "sim-fabric"},
                              private=True, ready=True)
    metal = await net.create("virtual_networks", {"metadata": {"name": "metal"}, "spec": {
        "network_class": no_k8s["id"], "ipv4_cidr": "10.2.0.0/16"}})
    async with write(net) as ctx:
        await network_attachments.require_k8s_manager(ctx.tx, await load(net, "virtual_network", app["id"]), "ComputeInstances")
        assert await failure(network_attachments.require_k8s_manager(ctx.tx, await load(net, "virtual_network", metal["id"]), "Clusters")) == (
            FailedPrecondition, "Clusters are not supported in this deployment: NetworkClass 'metal' has no Kubernetes network manager")


async def test_pool_selection(net: Net) -> None:
    await net.tenant()
    [public] = await net.items("external_ip_pools", "this.metadata.name == 'public-v4'")
    await set_state(net.admin, "external_ip_pools", public["id"], "EXTERNAL_IP_POOL_STATE_PENDING")
    await net.pool("a", ["198.51.100.0/29"])  # 6
    await net.pool("c", ["198.51.100.32/28"])  # 14
    await net.pool("b", ["198.51.100.16/28"])  # 14
    await net.pool("d", ["192.0.2.0/24"], ready=False)  # the most, but PENDING: never chosen
    for pool, count in (("a", 1), ("b", 4), ("c", 4)):
        for i in range(count):
            await net.external_ip(f"{pool}-{i}", pool, ready=False)
    async with write(net) as ctx:
        ranked = [(p.metadata.name, free) for p, free in await pool_selection.ranked_pools(ctx.tx)]
        assert ranked == [("b", 10), ("c", 10), ("a", 5)]
        assert (await pool_selection.select_pool(ctx.tx)).metadata.name == "b"
        assert (await pool_selection.select_pool(ctx.tx, exclude={(await pool_selection.select_pool(ctx.tx)).id})).metadata.name == "c"
    for name in ("a", "b", "c"):
        pool = await find_by_name(net.admin, "external_ip_pools", name)
        await set_state(net.admin, "external_ip_pools", pool["id"], "EXTERNAL_IP_POOL_STATE_PENDING")
    async with write(net) as ctx:
        assert await failure(pool_selection.select_pool(ctx.tx)) == (ResourceExhausted, pool_selection.EXHAUSTED_IPV4)


async def test_nat_gateway_reuse(net: Net) -> None:
    await net.tenant(ready=False)
    vn = await find_by_name(net.admin, "virtual_networks", "default", "acme")
    gateway = await find_by_name(net.admin, "nat_gateways", "default", "acme")
    app = await net.network("app", "10.1.0.0/16")
    prefix = "NATGateway 'default' for VirtualNetwork 'default' is"
    for state, expected in (
        (None, f"{prefix} not ready yet; retry later"),
        ("NAT_GATEWAY_STATE_FAILED", f"{prefix} FAILED; delete it and retry"),
    ):
        if state:
            await set_state(net.admin, "nat_gateways", gateway["id"], state)
        async with write(net) as ctx:
            assert await failure(gateway_reuse.reuse_nat_gateway(ctx.tx, await load(net, "virtual_network", vn["id"]))) == (
                FailedPrecondition, expected)
    await set_state(net.admin, "nat_gateways", gateway["id"], "NAT_GATEWAY_STATE_PENDING")
    await set_state(net.admin, "nat_gateways", gateway["id"], "NAT_GATEWAY_STATE_READY")
    async with write(net) as ctx:
        reused = await gateway_reuse.reuse_nat_gateway(ctx.tx, await load(net, "virtual_network", vn["id"]))
        assert reused is not None and reused.id == gateway["id"]
        assert await gateway_reuse.reuse_nat_gateway(ctx.tx, await load(net, "virtual_network", app["id"])) is None
    response = await net.admin.request("PATCH", f"{PRIVATE}/nat_gateways/{gateway['id']}", params={"update_mask": "metadata.finalizers"},
                                       json={"metadata": {"finalizers": ["test.example/hold"]}})
    assert response.status_code == 200
    assert (await net.delete("nat_gateways", gateway["id"], private=True)).status_code == 200
    async with write(net) as ctx:
        assert await failure(gateway_reuse.reuse_nat_gateway(ctx.tx, await load(net, "virtual_network", vn["id"]))) == (
            FailedPrecondition, f"{prefix} DELETING; delete it and retry")


async def test_auto_external_ips(net: Net) -> None:
    await net.tenant()
    vm = await net.create("compute_instances", {"metadata": {"name": "vm"}, "spec": {"template": "fedora", "instance_type": "small"}})
    cluster = await net.create("clusters", {"metadata": {"name": "ocp"}, "spec": {"template": "ocp-small"}})
    async with write(net) as ctx:
        [(eip, attached)] = await network_attachments.provision_auto_external_ips(
            ctx, registry.get("compute_instance"), await load(net, "compute_instance", vm["id"]), [0])
    async with net.server.app.store.read() as tx:  # recorded at commit, with the address reserved then
        assert await lifecycle.reasons(tx, vm["id"], ["AutoExternalIPCreated"]) == [
            ("AutoExternalIPCreated", f"automatic external access: ExternalIP 'auto-{vm['id']}' ({eip.status.address})")]
    labels = {"osac.openshift.io/auto-provisioned": "true", "osac.openshift.io/auto-provisioned-for": vm["id"]}
    assert (eip.metadata.name, dict(eip.metadata.labels), eip.metadata.creator) == (f"auto-{vm['id']}", labels, "system")
    assert (attached.metadata.name, dict(attached.metadata.labels)) == (f"auto-{vm['id']}", labels)
    assert (attached.spec.external_ip, attached.spec.compute_instance) == (eip.id, vm["id"])
    assert (attached.status.state, attached.status.reason) == (1, "WaitingForIPAddress")
    assert eip.status.state == 1 and eip.status.address  # PENDING, reserved

    async with write(net) as ctx:
        made = await network_attachments.provision_auto_external_ips(
            ctx, registry.get("cluster"), await load(net, "cluster", cluster["id"]), [1, 2])
    assert [(e.metadata.name, a.spec.target_endpoint) for e, a in made] == [
        (f"auto-{cluster['id']}-api", 1), (f"auto-{cluster['id']}-ingress", 2)]

    [public] = await net.items("external_ip_pools", "this.metadata.name == 'public-v4'")
    await set_state(net.admin, "external_ip_pools", public["id"], "EXTERNAL_IP_POOL_STATE_PENDING")
    other = await net.create("compute_instances", {"metadata": {"name": "other"}, "spec": {"template": "fedora", "instance_type": "small"}})
    with pytest.raises(ResourceExhausted) as raised:
        async with write(net) as ctx:
            await network_attachments.provision_auto_external_ips(
                ctx, registry.get("compute_instance"), await load(net, "compute_instance", other["id"]), [0])
    assert raised.value.message == "ExternalIPPool exhaustion: no available capacity in any READY pool for IPv4"
    left = await net.items("external_ips", f"this.metadata.labels['osac.openshift.io/auto-provisioned-for'] == '{other['id']}'")
    assert left == []


async def test_address_reservations_and_counters(net: Net) -> None:
    await net.tenant()
    await net.network("app", "10.1.0.0/16")
    small = await net.subnet("small", "app", "10.1.0.0/26")  # 46 workload addresses, VIPs .48-.62
    assert (small["status"]["available_addresses"], small["status"]["vip_range"]) == (46, "10.1.0.48-10.1.0.62")
    subnet = await load(net, "subnet", small["id"])
    async with write(net) as ctx:
        assert await failure(addresses.reserve_workload(
            ctx.tx, subnet, owner_type="compute_instance", owner_id="x", purpose="nic:0", ordinals=range(47))) == (
            ResourceExhausted, "Subnet 'small' has no free addresses (needed 47, available 46)")
        got = await addresses.reserve_workload(ctx.tx, subnet, owner_type="cluster", owner_id="c", purpose="node:w",
                                               ordinals=[0, 1, 2])
        assert got == ["10.1.0.2", "10.1.0.3", "10.1.0.4"]
        vips = [await addresses.reserve_vips(ctx.tx, subnet, owner_type="cluster", owner_id=f"c{i}") for i in range(7)]
        assert vips[0] == ["10.1.0.48", "10.1.0.49"] and vips[6] == ["10.1.0.60", "10.1.0.61"]
        assert await failure(addresses.reserve_vips(ctx.tx, subnet, owner_type="cluster", owner_id="c7")) == (
            ResourceExhausted, "Subnet 'small' has no free VIP addresses in 10.1.0.48-10.1.0.62")
    assert (await net.get("subnets", small["id"])).json()["status"]["available_addresses"] == 43
    async with write(net) as ctx:
        assert await addresses.release(ctx.tx, owner_type="cluster", owner_id="c", purpose="node:w", min_ordinal=1) == [
            "10.1.0.3", "10.1.0.4"]
    assert (await net.get("subnets", small["id"])).json()["status"]["available_addresses"] == 45
