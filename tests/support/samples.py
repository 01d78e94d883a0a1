"""A minimal valid object of every kind, as API JSON, and the objects it needs first."""

from __future__ import annotations

from typing import Any

from osac.model import registry
from osac.model.kinds import Kind
from tests.support.networking import set_state
from tests.support.server import RestClient

TENANT = "acme"
#: Kinds whose samples other samples refer to and that must be READY (ALLOCATED) for that.
READY_PREREQUISITES = ("virtual_network", "subnet", "security_group", "external_ip")


async def ensure_ok(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    return response.json()


class World:
    """Builds prerequisites through the REST API as a provider admin and a tenant admin."""

    def __init__(self, admin: RestClient, tenant_admin: RestClient) -> None:
        self.admin = admin
        self.user = tenant_admin
        self.made: dict[str, str] = {}

    async def tenant(self, name: str = TENANT) -> str:
        if "tenant" not in self.made:
            body = await ensure_ok(
                await self.admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": name}})
            )
            self.made["tenant"] = body["id"]
        return self.made["tenant"]

    async def _create(self, collection: str, body: dict[str, Any], admin: bool = False) -> str:
        client = self.admin if admin else self.user
        created = await ensure_ok(await client.request("POST", f"/api/fulfillment/v1/{collection}", json=body))
        return created["id"]

    async def dependency(self, kind_name: str) -> str:
        """An object other samples refer to; networking prerequisites are made READY (ALLOCATED)
        through the private API, as the reconcilers would (no reconciler runs in API tests)."""
        if kind_name not in self.made:
            kind = registry.get(kind_name)
            sample = await self.sample(kind)
            self.made[kind_name] = await self._create(kind.collection, sample)
            if kind_name in READY_PREREQUISITES:
                await set_state(self.admin, kind.collection, self.made[kind_name])
        return self.made[kind_name]

    async def sample(self, kind: Kind) -> dict[str, Any]:
        """The body of a valid Create for ``kind`` (prerequisites are created on the way)."""
        name = kind.name
        if name == "tenant":
            return {"metadata": {"name": "globex"}, "spec": {"domains": ["globex.example"]}}
        if name == "network_class":
            return {"metadata": {"name": "premium"}, "title": "Premium", "fabric_manager": "sim-fabric"}
        if name == "external_ip_pool":
            return {"metadata": {"name": "extra"}, "spec": {"cidrs": ["198.51.100.0/24"], "ip_family": "IP_FAMILY_IPV4"}}
        if name == "hub":
            return {"metadata": {"name": "hub-2"}, "spec": {"namespace": "ns"}}
        if name == "host_type":
            return {"metadata": {"name": "gpu"}, "title": "GPU", "interfaces": [{"name": "nic-0", "role": "fabric"}]}
        if name == "cluster_template":
            return {"metadata": {"name": "tiny"}, "title": "Tiny", "node_sets": {"w": {"host_type": "vm-standard", "size": 1}}}
        if name == "compute_instance_template":
            return {"metadata": {"name": "rhel"}, "title": "RHEL"}
        if name == "instance_type":
            return {"metadata": {"name": "xl"}, "spec": {"cores": 16, "memory_gib": 64, "state": "INSTANCE_TYPE_STATE_ACTIVE"}}
        await self.tenant()
        if name == "virtual_network":
            return {"metadata": {"name": "vn-sample"}, "spec": {"ipv4_cidr": "10.10.0.0/16"}}
        if name == "subnet":
            return {"metadata": {"name": "subnet-sample"},
                    "spec": {"virtual_network": await self.dependency("virtual_network"), "ipv4_cidr": "10.10.1.0/24"}}
        if name == "security_group":
            return {"metadata": {"name": "sg-sample"}, "spec": {"virtual_network": await self.dependency("virtual_network")}}
        if name == "external_ip":
            return {"metadata": {"name": "eip-sample"}, "spec": {"pool": "public-v4"}}
        if name == "nat_gateway":
            return {"metadata": {"name": "nat-sample"},
                    "spec": {"virtual_network": await self.dependency("virtual_network"),
                             "external_ip": await self.dependency("external_ip")}}
        if name == "cluster":
            return {"metadata": {"name": "cluster-sample"},
                    "spec": {"template": "ocp-small", "network_attachment": {"subnet": await self.dependency("subnet")}}}
        if name == "compute_instance":
            # Explicit networking: these tenants have no default networking to fall back on.
            return {"metadata": {"name": "vm-sample"},
                    "spec": {"template": "fedora", "instance_type": "small",
                             "compute_network_attachments": [{"subnet": await self.dependency("subnet")}]}}
        if name == "bare_metal_instance":
            return {"metadata": {"name": "bm-sample"},
                    "spec": {"host_type": "bm-standard",
                             "network_attachments": [{"subnet": await self.dependency("subnet")}]}}
        if name == "external_ip_attachment":
            # Its own ExternalIP: an ExternalIP has one consumer, and the sample gateway uses the other.
            attached = await self._create("external_ips", {"metadata": {"name": "eip-attached"}, "spec": {"pool": "public-v4"}})
            await set_state(self.admin, "external_ips", attached)
            return {"metadata": {"name": "eipa-sample"},
                    "spec": {"external_ip": attached,
                             "compute_instance": await self.dependency("compute_instance")}}
        raise AssertionError(f"no sample for {name}")


def is_provider_only_write(kind: Kind) -> bool:
    from osac.model.kinds import Scope

    return kind.scope in (Scope.SHARED, Scope.SELF, Scope.SYSTEM)
