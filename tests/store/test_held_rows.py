"""The rows a writing transaction holds (``Tx``'s docstring): a second locked read of a row it
locked or wrote sends no statement and returns the transaction's own latest copy, never a shared
message; a weaker lock does not serve a stronger one; the tenancy of the read still applies; a
SAVEPOINT that rolls back forgets what its block held, emitted and meant to do after the commit.
``is_deleting`` is asked once per transaction until that kind is written. A read snapshot reads
a row found by id once. On both databases."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest
from google.protobuf.message import Message
from sqlalchemy import event, select

from osac.model import registry
from osac.store import schema
from osac.store.objects import Store, Tx
from tests.support.statements import sent

VN = registry.get("virtual_network")
TENANT = registry.get("tenant")


def _vn(object_id: str, name: str, tenant: str = "acme") -> Message:
    vn = VN.private_class()()
    vn.id = object_id
    vn.metadata.name = name
    vn.metadata.tenant = tenant
    vn.metadata.version = 1
    vn.metadata.creation_timestamp.FromDatetime(datetime(2026, 1, 2, tzinfo=UTC))
    return vn


@pytest.fixture
async def stored(store: Store) -> AsyncIterator[Store]:
    async with store.write() as tx:
        await tx.insert(VN, _vn("vn-1", "app"))
    yield store


async def test_a_row_locked_once_is_read_again_without_a_statement(stored: Store) -> None:
    async with stored.write() as tx:
        with sent(stored) as statements:
            first = await tx.get(VN, "vn-1", lock="no_key_update")
            again = await tx.get(VN, "vn-1", lock="share")
            weaker_than_held = await tx.get(VN, "vn-1", lock="no_key_update")
        assert len(statements) == 1, statements
        assert first is not None and again is not None
        assert first == again == weaker_than_held and first is not again
        again.metadata.name = "changed by its reader"
        third = await tx.get(VN, "vn-1", lock="share")
        assert third is not None and third.metadata.name == "app"


async def test_a_stronger_lock_or_an_unlocked_read_goes_to_the_database(stored: Store) -> None:
    async with stored.write() as tx:
        with sent(stored) as statements:
            await tx.get(VN, "vn-1", lock="share")
            await tx.get(VN, "vn-1", lock="update")
            await tx.get(VN, "vn-1")
            await tx.get(VN, "vn-1", lock="update")
        assert len(statements) == 3, statements


async def test_the_tenancy_of_a_read_applies_to_a_held_row(stored: Store) -> None:
    async with stored.write() as tx:
        assert await tx.get(VN, "vn-1", tenants=frozenset({"acme"}), lock="share") is not None
        with sent(stored) as statements:
            assert await tx.get(VN, "vn-1", tenants=frozenset({"globex"}), lock="share") is None
            assert await tx.get(VN, "vn-1", tenants=frozenset({"acme", "shared"}), lock="share") is not None
        assert statements == []


async def test_a_row_written_by_the_transaction_is_read_back_as_written(stored: Store) -> None:
    async with stored.write() as tx:
        stored_vn = await tx.get(VN, "vn-1", lock="no_key_update")
        assert stored_vn is not None
        stored_vn.metadata.labels["note"] = "renamed"
        await tx.replace(VN, stored_vn, based_on_version=1)
        await tx.insert(VN, _vn("vn-2", "new"))
        with sent(stored) as statements:
            replaced = await tx.get(VN, "vn-1", lock="no_key_update")
            inserted = await tx.get(VN, "vn-2", lock="update")
        assert statements == []
        assert replaced is not None and (replaced.metadata.labels.get("note"), replaced.metadata.version) == ("renamed", 2)
        assert inserted is not None and inserted.metadata.name == "new"
    async with stored.read() as tx:
        again = await tx.get(VN, "vn-1")
        assert again is not None and (again.metadata.labels.get("note"), again.metadata.version) == ("renamed", 2)


async def test_an_archived_row_is_not_held_any_more(stored: Store) -> None:
    async with stored.write() as tx:
        vn = await tx.get(VN, "vn-1", lock="update")
        assert vn is not None
        vn.metadata.deletion_timestamp.FromDatetime(datetime(2026, 1, 3, tzinfo=UTC))
        assert (await tx.replace(VN, vn, based_on_version=1)).archived
        assert await tx.get(VN, "vn-1", lock="update") is None


async def test_a_rolled_back_savepoint_forgets_what_its_block_held_and_emitted(stored: Store) -> None:
    committed: list[str] = []
    async with stored.write() as tx:
        with pytest.raises(RuntimeError, match="undone"):
            async with tx.savepoint():
                await tx.insert(VN, _vn("vn-2", "inside"))
                vn = await tx.get(VN, "vn-1", lock="no_key_update")
                assert vn is not None
                vn.metadata.labels["note"] = "inside"
                await tx.replace(VN, vn, based_on_version=1)
                tx.after_commit(lambda: committed.append("inside"))
                raise RuntimeError("undone")
        with sent(stored) as statements:
            assert await tx.get(VN, "vn-2", lock="update") is None
            after = await tx.get(VN, "vn-1", lock="no_key_update")
        assert len(statements) == 2
        assert after is not None and (dict(after.metadata.labels), after.metadata.version) == ({}, 1)
        before = tx.last_event
        assert before is None
        tx.after_commit(lambda: committed.append("outside"))
    assert committed == ["outside"]
    async with stored.read() as tx:
        kinds = (await tx.conn.execute(select(schema.events.c.object_id).order_by(schema.events.c.revision))).all()
        assert [row[0] for row in kinds] == ["vn-1"]  # the first insert's event only


async def test_a_kept_savepoint_keeps_what_its_block_did(stored: Store) -> None:
    async with stored.write() as tx:
        async with tx.savepoint():
            await tx.insert(VN, _vn("vn-2", "inside"))
        with sent(stored) as statements:
            assert await tx.get(VN, "vn-2", lock="update") is not None
        assert statements == []
    async with stored.read() as tx:
        assert await tx.get(VN, "vn-2") is not None


async def _tenant(tx: Tx, name: str) -> None:
    tenant = TENANT.private_class()()
    tenant.id = f"id-{name}"
    tenant.metadata.name = name
    tenant.metadata.tenant = name
    tenant.metadata.version = 1
    tenant.metadata.creation_timestamp.FromDatetime(datetime(2026, 1, 2, tzinfo=UTC))
    await tx.insert(TENANT, tenant)


async def test_is_deleting_is_asked_once_until_its_kind_is_written(store: Store) -> None:
    async with store.write() as tx:
        with sent(store) as statements:
            assert await tx.is_deleting(TENANT, "acme", "acme") is None
            assert await tx.is_deleting(TENANT, "acme", "acme") is None
        assert len(statements) == 1
        await _tenant(tx, "acme")
        with sent(store) as statements:
            assert await tx.is_deleting(TENANT, "acme", "acme") is False
            assert await tx.is_deleting(TENANT, "acme", "acme") is False
        assert len(statements) == 1


async def test_amend_rewrites_a_written_row_and_its_event_at_the_same_version(stored: Store) -> None:
    async with stored.write() as tx:
        await tx.insert(VN, _vn("vn-2", "new"))

        async def late() -> None:
            def label(vn: Message) -> None:
                vn.metadata.labels["address"] = "203.0.113.7"

            amended = await tx.amend(VN, "vn-2", label)
            assert amended.metadata.labels["address"] == "203.0.113.7"

        tx.before_commit(late)
        with pytest.raises(ValueError, match="was not written by this transaction"):
            await tx.amend(VN, "vn-1", lambda vn: None)
        assert await tx.get(VN, "vn-1", lock="update") is not None  # locked, still not written
        with pytest.raises(ValueError, match="was not written by this transaction"):
            await tx.amend(VN, "vn-1", lambda vn: None)
    async with stored.read() as tx:
        row = await tx.get(VN, "vn-2")
        assert row is not None and (dict(row.metadata.labels), row.metadata.version) == ({"address": "203.0.113.7"}, 1)
        events = (await tx.conn.execute(select(schema.events.c.object_id, schema.events.c.data)
                                        .order_by(schema.events.c.revision))).all()
    assert [(object_id, data["metadata"].get("labels")) for object_id, data in events] == [
        ("vn-1", None), ("vn-2", {"address": "203.0.113.7"})]  # one CREATED event, carrying the amendment


async def test_before_commit_callbacks_run_in_order_with_those_they_add(stored: Store) -> None:
    ran: list[str] = []
    async with stored.write() as tx:

        async def second() -> None:
            ran.append("second")

        async def first() -> None:
            ran.append("first")
            tx.before_commit(third)

        async def third() -> None:
            ran.append("third")

        tx.before_commit(first)
        tx.before_commit(second)
        assert ran == []
    assert ran == ["first", "second", "third"]


async def test_a_read_transaction_refuses_work_for_a_commit(stored: Store) -> None:
    async def nothing() -> None:
        return None

    with pytest.raises(RuntimeError, match="never makes"):
        async with stored.read() as tx:
            tx.before_commit(nothing)


async def test_a_snapshot_reads_a_row_once(stored: Store) -> None:
    """In a read snapshot (``Store.read()``) a row found by id is the same row when read again:
    served without a statement, as a fresh message, with the read's tenancy applied. Without a
    snapshot every read goes to the database (it may see a newer commit)."""
    reads: list[str] = []

    def record(_conn: object, _cursor: object, statement: str, *_: object) -> None:
        reads.append(statement)

    for engine in {stored.engines.reader.sync_engine, stored.engines.statements.sync_engine}:
        event.listen(engine, "before_cursor_execute", record)
    try:
        async with stored.read() as tx:
            first = await tx.get(VN, "vn-1")
            again = await tx.get(VN, "vn-1", frozenset({"acme"}))
            elsewhere = await tx.get(VN, "vn-1", frozenset({"globex"}))
            missing = await tx.get(VN, "vn-none")
        assert len(reads) == 2, reads  # vn-1 once, the missing one once
        assert first is not None and again is not None and first == again and first is not again
        assert elsewhere is None and missing is None
        reads.clear()
        async with stored.read(snapshot=False) as tx:
            await tx.get(VN, "vn-1")
            await tx.get(VN, "vn-1")
        assert len(reads) == 2, reads
    finally:
        for engine in {stored.engines.reader.sync_engine, stored.engines.statements.sync_engine}:
            event.remove(engine, "before_cursor_execute", record)
