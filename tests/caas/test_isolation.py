"""Tenancy of clusters (api.md §9.3): another tenant's cluster behaves as if it did not exist."""

from __future__ import annotations

from tests.caas.conftest import Caas, error
from tests.support.networking import PUBLIC


async def test_another_tenant_cannot_see_scale_or_delete_a_cluster(caas: Caas) -> None:
    cluster = await caas.cluster()
    missing = (404, f"Cluster '{cluster['id']}' not found")
    assert error(await caas.get("clusters", cluster["id"], private=False, client=caas.bob)) == missing
    assert (await caas.bob.request("GET", f"{PUBLIC}/clusters")).json()["total"] == 0
    scaled = await caas.patch("clusters", cluster["id"], {"spec": {"node_sets": {"workers": {"size": 9}}}},
                              mask="spec.node_sets", client=caas.bob)
    assert error(scaled) == missing
    assert error(await caas.bob.request("DELETE", f"{PUBLIC}/clusters/{cluster['id']}")) == missing
    assert (await caas.get("clusters", cluster["id"])).json()["spec"]["node_sets"]["workers"]["size"] == 3


async def test_a_cluster_cannot_use_another_tenants_networking(caas: Caas) -> None:
    [beta_subnet] = await caas.items("subnets", "this.metadata.tenant == 'beta'")
    response = await caas.post("clusters", {"metadata": {"name": "c"}, "spec": {
        "template": "ocp-small", "network_attachment": {"subnet": beta_subnet["id"]}}})
    assert error(response) == (400, f"spec.network_attachment.subnet: Subnet '{beta_subnet['id']}' not found")


async def test_each_tenant_gets_its_own_defaults(caas: Caas) -> None:
    mine = await caas.cluster()
    theirs = await caas.cluster(client=caas.bob)  # the same name in another tenant
    [acme_subnet] = await caas.items("subnets", "this.metadata.tenant == 'acme'")
    [beta_subnet] = await caas.items("subnets", "this.metadata.tenant == 'beta'")
    assert mine["spec"]["network_attachment"]["subnet"] == acme_subnet["id"]
    assert theirs["spec"]["network_attachment"]["subnet"] == beta_subnet["id"]
