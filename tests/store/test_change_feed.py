"""The controllers' change feed: each change's kind, id and revision, and for the kinds asked
for, the objects it refers to, read from the event in the same statement, on both databases;
its wait returns at once for a commit its last read may have missed, and only then."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime

from google.protobuf.message import Message

from osac.controllers.networking.external_ip_attachment import TARGETS
from osac.model import registry
from osac.store.objects import Store
from osac.store.outbox import Change, StoreChangeFeed
from osac.store.wakeup import Wakeup

NOW = datetime(2026, 1, 1, tzinfo=UTC)
ATTACHMENT = registry.get("external_ip_attachment")
NETWORK = registry.get("virtual_network")


def _id(index: int) -> str:
    return f"00000000-0000-7000-8000-{index:012d}"


def _object(kind_name: str, index: int, **spec: str) -> Message:
    message = registry.get(kind_name).private_class()(id=_id(index))
    message.metadata.name = f"o-{index}"
    message.metadata.tenant = "acme"
    message.metadata.version = 1
    message.metadata.creation_timestamp.FromDatetime(NOW)
    for field, value in spec.items():
        setattr(message.spec, field, value)  # type: ignore[attr-defined]
    return message


async def test_changes_name_the_objects_they_refer_to(store: Store) -> None:
    to_vm = _object("external_ip_attachment", 1, external_ip="eip-1", compute_instance="vm-1")
    to_cluster = _object("external_ip_attachment", 2, external_ip="eip-2", cluster="cl-1")
    network = _object("virtual_network", 3, ipv4_cidr="10.0.0.0/16")
    async with store.write() as tx:
        for kind, message in ((ATTACHMENT, to_vm), (ATTACHMENT, to_cluster), (NETWORK, network)):
            await tx.insert(kind, message)
    referring = StoreChangeFeed(store, Wakeup(), references={"external_ip_attachment": TARGETS})
    plain = StoreChangeFeed(store, Wakeup())

    assert await referring.changes_after(0, 10) == [
        Change(1, "external_ip_attachment", _id(1), (("compute_instance", "vm-1"),)),
        Change(2, "external_ip_attachment", _id(2), (("cluster", "cl-1"),)),
        Change(3, "virtual_network", _id(3)),
    ]
    assert await plain.changes_after(1, 10) == [Change(2, "external_ip_attachment", _id(2)),
                                                Change(3, "virtual_network", _id(3))]


async def test_a_commit_during_or_after_a_read_ends_the_next_wait_at_once(store: Store) -> None:
    wakeup = Wakeup()
    store.add_commit_listener(wakeup.notify)
    feed = StoreChangeFeed(store, wakeup, poll_interval=30)
    async with store.write() as tx:
        await tx.insert(NETWORK, _object("virtual_network", 1, ipv4_cidr="10.0.0.0/16"))
    assert [change.revision for change in await feed.changes_after(0, 10)] == [1]
    # Committed after the read, before the wait (the wake-up has no waiter yet).
    async with store.write() as tx:
        await tx.insert(NETWORK, _object("virtual_network", 2, ipv4_cidr="10.1.0.0/16"))
    started = time.monotonic()
    await feed.wait(30)
    assert time.monotonic() - started < 5, "the wait missed a commit it had not read"
    assert [change.revision for change in await feed.changes_after(1, 10)] == [2]
    # Nothing new: the wait lasts, and a second telling of a known revision does not end it.
    waiting = asyncio.create_task(feed.wait(30))
    await asyncio.sleep(0.05)
    wakeup.notify(2)
    await asyncio.sleep(0.05)
    assert not waiting.done()
    async with store.write() as tx:
        await tx.insert(NETWORK, _object("virtual_network", 3, ipv4_cidr="10.2.0.0/16"))
    await asyncio.wait_for(waiting, 5)
