"""Uniqueness claims (``osac.store.claims``): one owner per (claim, key), released with the
owner, stale holders taken over, exactly one winner among concurrent claimers."""

from __future__ import annotations

import asyncio

import pytest

from osac.store import claims
from osac.store.objects import Store
from tests.networking.conftest import Net
from tests.support.networking import find_by_name


async def test_claim_release_and_takeover(net: Net) -> None:
    await net.tenant(ready=False)
    gateway = await find_by_name(net.admin, "nat_gateways", "default", "acme")  # holds its EIP and VN
    eip = await find_by_name(net.admin, "external_ips", "default-nat", "acme")
    store = net.server.app.store
    async with store.write() as tx:
        assert await claims.claims_of(tx, "nat_gateway", gateway["id"]) == [
            ("external-ip-consumer", eip["id"]), ("vn-nat-gateway", gateway["spec"]["virtual_network"])]
        await claims.claim(tx, "external-ip-consumer", eip["id"], "nat_gateway", gateway["id"])  # idempotent
        with pytest.raises(claims.ClaimTaken) as taken:
            await claims.claim(tx, "external-ip-consumer", eip["id"], "external_ip_attachment", "someone")
        assert taken.value.holder == claims.Holder("nat_gateway", gateway["id"])
        # The refused insert ran in a savepoint: the transaction goes on.
        await claims.claim(tx, "test", "k", "nat_gateway", "not-a-live-object")
        # A holder that is not live (archived without release) is taken over.
        await claims.claim(tx, "test", "k", "nat_gateway", gateway["id"])
        assert await claims.holder_of(tx, "test", "k") == claims.Holder("nat_gateway", gateway["id"])
        assert await claims.release_claims(tx, "nat_gateway", gateway["id"]) == 3
        assert await claims.release_claims(tx, "nat_gateway", gateway["id"]) == 0
        await claims.claim(tx, "external-ip-consumer", eip["id"], "external_ip_attachment", "someone")


async def test_exactly_one_of_concurrent_claimers_wins(net: Net) -> None:
    await net.tenant(ready=False)
    store = net.server.app.store
    gateway = (await find_by_name(net.admin, "nat_gateways", "default", "acme"))["id"]
    vn = (await find_by_name(net.admin, "virtual_networks", "default", "acme"))["id"]
    # Two live owners race ten times; each attempt holds its claim uncommitted for a moment.
    owners = [("nat_gateway", gateway), ("virtual_network", vn)] * 5
    results = await asyncio.gather(*[_claim(store, kind, owner) for kind, owner in owners])
    assert len({owner for owner, ok in zip(owners, results, strict=True) if ok}) == 1
    assert results.count(True) == 5  # the winner's repeated claims are idempotent


async def _claim(store: Store, kind: str, owner: str) -> bool:
    try:
        async with store.write() as tx:
            await claims.claim(tx, "race", "key", kind, owner)
            await asyncio.sleep(0.01)
        return True
    except claims.ClaimTaken:
        return False
