"""What the tests of ``tests/workloads/test_traffic_scenarios.py`` and the tests that share its set-up use: moved here from that module so that no test module imports another."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from osac.auth.subject import Role
from osac.server import bootstrap
from tests.support.bmaas import FAST_GATES
from tests.support.onboarding import ready_catalogue, wait_for
from tests.support.server import RestClient, ServerHandle, running_server

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
