"""A subnet create racing its virtual network's delete (networking.md §4 atomicity, §14 scenario
13): of the two, exactly one succeeds, with the §4 message on the other, and once the reconcilers
have converged no live subnet sits in an archived (or deleting) virtual network, neither in the API
nor in the simulated fabric; the survivors then tear down subnet first, VN last."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from sqlalchemy import select

from osac.ipam.schema import ip_ranges
from tests.support.vmaas import PRIVATE, PUBLIC, Vmaas
from tests.workloads.conftest import failure

PAIRS = 50
#: Every subnet-create / VN-delete pair ends one of these ways.
SUBNET_WON, DELETE_WON, DELETE_WON_AND_ARCHIVED = "subnet won", "delete won", "delete won, VN already archived"


async def _until(predicate: Any, what: str, timeout: float = 30.0) -> None:
    try:
        async with asyncio.timeout(timeout):
            while not await predicate():
                await asyncio.sleep(0.05)
    except TimeoutError:
        raise AssertionError(f"not converged within {timeout} s: {what}") from None


async def _items(vmaas: Vmaas, collection: str, condition: str) -> list[dict[str, Any]]:
    response = await vmaas.admin.request("GET", f"{PRIVATE}/{collection}", params={"filter": condition, "limit": 1000})
    assert response.status_code == 200, response.text
    return list(response.json()["items"])


def _outcome(index: int, subnet: httpx.Response, delete: httpx.Response) -> str:
    """Which of the pair won, checking the loser's exact refusal (§4)."""
    name = f"race-{index:02}"
    if subnet.status_code == 200:
        assert delete.status_code != 200, f"both the subnet create and the delete of VirtualNetwork '{name}' succeeded"
        assert failure(delete) == (
            "FAILED_PRECONDITION", f"cannot delete VirtualNetwork '{name}': 1 Subnet(s) still reference it: {name}")
        return SUBNET_WON
    assert delete.status_code == 200, (subnet.text, delete.text)
    refusal = failure(subnet)
    if refusal == ("FAILED_PRECONDITION", f"VirtualNetwork '{name}' is being deleted"):
        return DELETE_WON
    # The delete was committed and the VN torn down and archived before the create read it.
    assert refusal == ("INVALID_ARGUMENT", f"spec.virtual_network: VirtualNetwork '{name}' not found"), refusal
    return DELETE_WON_AND_ARCHIVED


async def test_racing_subnet_creates_and_vn_deletes_never_leave_a_subnet_in_an_archived_vn(vmaas: Vmaas) -> None:
    # Given fifty READY virtual networks,
    names = [f"race-{i:02}" for i in range(PAIRS)]
    made = await asyncio.gather(*(
        vmaas.alice.request("POST", f"{PUBLIC}/virtual_networks",
                            json={"metadata": {"name": name}, "spec": {"ipv4_cidr": f"10.{100 + i}.0.0/16"}})
        for i, name in enumerate(names)))
    assert all(r.status_code == 200 for r in made), [r.text for r in made if r.status_code != 200]
    vn_ids = [r.json()["id"] for r in made]

    async def networks_ready() -> bool:
        return all(vn["status"].get("state") == "VIRTUAL_NETWORK_STATE_READY"
                   for vn in await _items(vmaas, "virtual_networks", "this.metadata.name.startsWith('race-')"))

    await _until(networks_ready, "the virtual networks READY")

    # when, for each, a subnet create and the VN's delete are sent together (alternating which
    # goes first, so that both orders occur),
    def pair(i: int) -> list[Any]:
        create = vmaas.alice.request("POST", f"{PUBLIC}/subnets", json={
            "metadata": {"name": names[i]}, "spec": {"virtual_network": names[i], "ipv4_cidr": f"10.{100 + i}.1.0/24"}})
        delete = vmaas.alice.request("DELETE", f"{PUBLIC}/virtual_networks/{vn_ids[i]}")
        return [create, delete] if i % 2 == 0 else [delete, create]

    answers = await asyncio.gather(*(request for i in range(PAIRS) for request in pair(i)))
    by_pair = [answers[2 * i: 2 * i + 2] if i % 2 == 0 else answers[2 * i: 2 * i + 2][::-1] for i in range(PAIRS)]

    # then in every pair exactly one of the two succeeded, the other refused with the §4 message;
    outcomes = [_outcome(i, subnet, delete) for i, (subnet, delete) in enumerate(by_pair)]
    subnet_ids = {i: subnet.json()["id"] for i, (subnet, _) in enumerate(by_pair) if subnet.status_code == 200}
    deleted = [vn_ids[i] for i, outcome in enumerate(outcomes) if outcome != SUBNET_WON]

    # and once the reconcilers converge, every deleted VN is archived and every created subnet
    # READY in a live, READY VN;
    async def converged() -> bool:
        networks = {vn["id"]: vn for vn in await _items(vmaas, "virtual_networks", "this.metadata.name.startsWith('race-')")}
        subnets = await _items(vmaas, "subnets", "this.metadata.name.startsWith('race-')")
        return not set(deleted) & set(networks) and sorted(s["id"] for s in subnets) == sorted(subnet_ids.values()) and all(
            s["status"].get("state") == "SUBNET_STATE_READY" for s in subnets)

    await _until(converged, "deleted VNs archived and created subnets READY")
    networks = {vn["id"]: vn for vn in await _items(vmaas, "virtual_networks", "")}
    for subnet in await _items(vmaas, "subnets", ""):
        vn = networks.get(subnet["spec"]["virtual_network"])
        assert vn is not None, f"Subnet '{subnet['metadata']['name']}' is in an archived VirtualNetwork"
        assert "deletion_timestamp" not in vn["metadata"], vn
        assert vn["status"]["state"] == "VIRTUAL_NETWORK_STATE_READY", vn
    assert sorted(vn_id for vn_id in networks if vn_id in vn_ids) == sorted(vn_ids[i] for i in subnet_ids)

    # the fabric agrees: an archived VN has no isolation domain, segment or port left, a live one
    # exactly its subnet's segment.
    for i, vn_id in enumerate(vn_ids):
        fabric = await vmaas.observation("fabric", vn_id)
        if i in subnet_ids:
            assert fabric["virtual_network"]["vn_id"] == vn_id
            assert [s["subnet_id"] for s in fabric["segments"]] == [subnet_ids[i]]
        else:
            assert (fabric["virtual_network"], fabric["segments"], fabric["ports"]) == (None, [], []), fabric

    # Teardown of the survivors works: subnets first, then their VNs; nothing is left, not even
    # the subnets' IPAM ranges.
    for subnet_id in subnet_ids.values():
        assert (await vmaas.alice.request("DELETE", f"{PUBLIC}/subnets/{subnet_id}")).status_code == 200

    async def subnets_archived() -> bool:
        return not await _items(vmaas, "subnets", "this.metadata.name.startsWith('race-')")

    await _until(subnets_archived, "the subnets archived")
    for i in subnet_ids:
        response = await vmaas.alice.request("DELETE", f"{PUBLIC}/virtual_networks/{vn_ids[i]}")
        assert response.status_code == 200, response.text

    async def networks_archived() -> bool:
        return not await _items(vmaas, "virtual_networks", "this.metadata.name.startsWith('race-')")

    await _until(networks_archived, "the virtual networks archived")
    for vn_id in vn_ids:
        fabric = await vmaas.observation("fabric", vn_id)
        assert (fabric["virtual_network"], fabric["segments"]) == (None, [])
    async with vmaas.server.app.store.read() as tx:
        left = (await tx.conn.execute(select(ip_ranges.c.scope).where(ip_ranges.c.scope.in_(list(subnet_ids.values()))))).all()
    assert left == []
