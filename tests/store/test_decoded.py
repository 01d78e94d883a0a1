"""Parsed objects are reused by version: a read returns what was stored, never a shared message,
and a new version is parsed again."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from google.protobuf.message import Message

from osac.clock import FakeClock
from osac.model import registry
from osac.store.codec import to_storage
from osac.store.decoded import Decoded
from osac.store.engine import create_engines
from osac.store.objects import Store

VN = registry.get("virtual_network")


def network(version: int, name: str = "app") -> dict:
    message = VN.private_class()(id="vn-1")
    message.metadata.name = name
    message.metadata.version = version
    return to_storage(message)


def test_a_version_is_parsed_once_and_handed_out_as_copies() -> None:
    decoded = Decoded()
    cls = VN.private_class()
    first = decoded.parse(network(1), cls)
    first.metadata.name = "changed by its reader"
    again = decoded.parse(network(1), cls)
    assert again.metadata.name == "app" and (decoded.hits, decoded.misses) == (1, 1)
    newer = decoded.parse(network(2, "renamed"), cls)
    assert newer.metadata.name == "renamed" and decoded.misses == 2


def test_the_least_recently_used_version_goes_first() -> None:
    decoded = Decoded(capacity=2)
    cls = VN.private_class()
    for version in (1, 2, 1, 3):
        decoded.parse(network(version), cls)
    assert len(decoded) == 2
    decoded.parse(network(1), cls)
    decoded.parse(network(2), cls)  # evicted by 3: parsed again
    assert (decoded.hits, decoded.misses) == (2, 4)
    with pytest.raises(ValueError, match="capacity must be positive"):
        Decoded(capacity=0)


async def create_network(store: Store) -> Message:
    """VirtualNetwork ``vn-1`` (``app``, tenant ``acme``), stored at version 1."""
    created = VN.private_class()(id="vn-1")
    created.metadata.name = "app"
    created.metadata.tenant = "acme"
    created.metadata.version = 1
    created.metadata.creation_timestamp.FromDatetime(datetime(2026, 1, 1, tzinfo=UTC))
    async with store.write() as tx:
        await tx.insert(VN, created)
    return created


async def test_reads_through_the_store_see_every_write(db_url: str) -> None:
    store = Store(create_engines(db_url), FakeClock(datetime(2026, 1, 1, tzinfo=UTC)))
    try:
        await create_network(store)
        async with store.read() as tx:
            first = await tx.get(VN, "vn-1")
        assert first is not None
        first.metadata.name = "edited locally"
        async with store.read() as tx:
            second = await tx.get(VN, "vn-1")
        assert second is not None and second.metadata.name == "app"
        assert store.decoded.hits >= 1
        second.spec.ipv4_cidr = "10.1.0.0/16"
        async with store.write() as tx:
            await tx.replace(VN, second, second.metadata.version)
        async with store.read() as tx:
            [found] = await tx.find(VN)
        assert found.spec.ipv4_cidr == "10.1.0.0/16" and found.metadata.version == second.metadata.version
    finally:
        await store.engines.dispose()


async def test_a_committed_write_is_kept_and_a_rolled_back_one_is_not(db_url: str) -> None:
    store = Store(create_engines(db_url), FakeClock(datetime(2026, 1, 1, tzinfo=UTC)))
    try:
        created = await create_network(store)
        created.metadata.name = "changed by the writer after its write"
        async with store.read() as tx:
            first = await tx.get(VN, "vn-1")
        # the read of the version this process wrote is not parsed, and is what was stored
        assert first is not None and first.metadata.name == "app"
        assert (store.decoded.hits, store.decoded.misses) == (1, 0)
        # a replace that rolls back leaves nothing behind under its version
        first.spec.ipv4_cidr = "10.9.0.0/16"
        with pytest.raises(RuntimeError, match="abandoned"):
            async with store.write() as tx:
                await tx.replace(VN, first, 1)
                raise RuntimeError("abandoned")
        # another process writes that version with other content: this one reads that content
        other = Store(create_engines(db_url), FakeClock(datetime(2026, 1, 1, tzinfo=UTC)))
        second = VN.private_class()()
        second.CopyFrom(first)
        second.spec.ipv4_cidr = "10.1.0.0/16"
        try:
            async with other.write() as tx:
                await tx.replace(VN, second, 1)
        finally:
            await other.engines.dispose()
        async with store.read() as tx:
            found = await tx.get(VN, "vn-1")
        assert found is not None and found.metadata.version == 2 and found.spec.ipv4_cidr == "10.1.0.0/16"
    finally:
        await store.engines.dispose()
