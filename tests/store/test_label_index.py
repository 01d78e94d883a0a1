"""The label index: ``object_labels`` holds exactly the live objects' labels whatever wrote them
(insert, an update of the labels, an update of something else, archive), and a filter served by
it matches exactly the objects the same filter matches without it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from google.protobuf.message import Message
from sqlalchemy import select

from osac.clock import FakeClock
from osac.filters import ObjectRoot, compile_filter
from osac.model import registry
from osac.store.engine import create_engines
from osac.store.labels import object_labels, object_root
from osac.store.objects import Store, Tx
from osac.store.tables import LIVE

VN = registry.get("virtual_network")
SUBNET = registry.get("subnet")
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def network(index: int, labels: dict[str, str]) -> Message:
    message = VN.private_class()(id=f"00000000-0000-7000-8000-{index:012d}")
    message.metadata.name = f"vn-{index}"
    message.metadata.tenant = "acme" if index % 2 else "beta"
    message.metadata.version = 1
    message.metadata.creation_timestamp.FromDatetime(NOW)
    message.metadata.labels.update(labels)
    return message


async def index_rows(tx: Tx) -> set[tuple[str, str, str, str]]:
    rows = await tx.conn.execute(select(object_labels))
    return {tuple(row) for row in rows}


async def expected_rows(tx: Tx) -> set[tuple[str, str, str, str]]:
    found = set()
    for kind_name, table in LIVE.items():
        for obj in await tx.find(registry.get(kind_name)):
            found |= {(table.name, obj.id, key, value) for key, value in obj.metadata.labels.items()}
    return found


async def test_the_index_follows_every_write(store: Store) -> None:
    async with store.write() as tx:
        for index in range(6):
            await tx.insert(VN, network(index, {"app": f"a{index % 3}", "tier": "web"} if index % 2 else {}))
        assert await index_rows(tx) == await expected_rows(tx)
        assert len(await index_rows(tx)) == 6
    async with store.write() as tx:
        first = await tx.get(VN, network(1, {}).id)
        assert first is not None
        first.metadata.labels["app"] = "changed"
        del first.metadata.labels["tier"]
        first.metadata.labels["new/key.with-dots"] = ""
        await tx.replace(VN, first, first.metadata.version)
        third = await tx.get(VN, network(3, {}).id)
        assert third is not None
        third.spec.ipv4_cidr = "10.3.0.0/16"  # labels unchanged: the index stays as it was
        await tx.replace(VN, third, third.metadata.version)
        assert await index_rows(tx) == await expected_rows(tx)
    async with store.write() as tx:
        fifth = await tx.get(VN, network(5, {}).id)
        assert fifth is not None
        fifth.metadata.deletion_timestamp.FromDatetime(NOW)
        written = await tx.replace(VN, fifth, fifth.metadata.version)
        assert written.archived
        rows = await index_rows(tx)
        assert rows == await expected_rows(tx)
        assert not [row for row in rows if row[1] == fifth.id]
    # a rolled-back write leaves the index as it was
    with pytest.raises(RuntimeError):
        async with store.write() as tx:
            await tx.insert(VN, network(9, {"app": "a0"}))
            raise RuntimeError("abandoned")
    async with store.read() as tx:
        assert await index_rows(tx) == await expected_rows(tx)
        assert ("virtual_networks", network(1, {}).id, "app", "changed") in await index_rows(tx)


FILTERS = [
    "this.metadata.labels['app'] == 'a1'",
    "this.metadata.labels.app == 'a1'",
    "'a1' == this.metadata.labels['app']",
    "'tier' in this.metadata.labels",
    "'tier' in this.metadata.labels && this.metadata.labels['app'] == 'a2'",
    "this.metadata.labels['app'] == 'a1' && this.metadata.name != 'vn-1'",
    "!(this.metadata.labels['app'] == 'a1')",
    "this.metadata.labels['app'] == 'a1' || this.metadata.labels['app'] == 'a0'",
    "this.metadata.labels['app'] != 'a1'",
    "this.metadata.labels['app'] == 'nothing'",
    "this.metadata.labels['missing'] == ''",
    "this.metadata.labels['new/key.with-dots'] == ''",
    "!('tier' in this.metadata.labels)",
]


@pytest.mark.parametrize("expression", FILTERS)
async def test_a_filter_served_by_the_index_matches_what_it_matches_without(
    store: Store, expression: str
) -> None:
    async with store.write() as tx:
        for index in range(12):
            labels = {"app": f"a{index % 3}", "tier": "web"} if index % 4 else {"app": "a1"}
            if index == 7:
                labels["new/key.with-dots"] = ""
            await tx.insert(VN, network(index, labels))
    table = LIVE[VN.name]
    async with store.read() as tx:
        indexed = compile_filter(
            expression, object_root(table, VN.private_descriptor), dialect=tx.dialect, now=NOW
        )
        plain = compile_filter(
            expression, ObjectRoot(VN.private_descriptor, table.c.data), dialect=tx.dialect, now=NOW
        )
        with_index = [obj.id for obj in await tx.find(VN, indexed)]
        without = [obj.id for obj in await tx.find(VN, plain)]
        assert with_index == without
        assert await tx.count(VN, indexed) == len(without)
        # another kind's labels never leak in: subnets have none
        assert (
            await tx.find(
                SUBNET,
                compile_filter(
                    expression,
                    object_root(LIVE[SUBNET.name], SUBNET.private_descriptor),
                    dialect=tx.dialect,
                    now=NOW,
                ),
            )
            == []
        )


def test_only_top_level_conjuncts_get_the_index() -> None:
    table = LIVE[VN.name]
    root = object_root(table, VN.private_descriptor)
    assert "object_labels" in str(
        compile_filter("this.metadata.labels['a'] == 'b' && true", root, dialect="sqlite", now=NOW)
    )
    for expression in (
        "!(this.metadata.labels['a'] == 'b')",
        "this.metadata.labels['a'] == 'b' || true",
        "this.metadata.labels['a'] != 'b'",
        "this.status.state == 1",
    ):
        assert "object_labels" not in str(compile_filter(expression, root, dialect="sqlite", now=NOW))


async def test_every_kind_has_its_labels_indexed(store: Store) -> None:
    """A kind whose live table lacks the triggers (a new kind without its migration) fails here."""
    async with store.write() as tx:
        for number, kind in enumerate(registry.KINDS):
            message = kind.private_class()(id=f"00000000-0000-7000-9000-{number:012d}")
            message.metadata.name = f"labelled-{number}"
            message.metadata.tenant = "acme"
            message.metadata.version = 1
            message.metadata.creation_timestamp.FromDatetime(NOW)
            message.metadata.labels["indexed"] = kind.name
            await tx.insert(kind, message)
        rows = await index_rows(tx)
    assert {(table, value) for table, _, key, value in rows if key == "indexed"} == {
        (LIVE[kind.name].name, kind.name) for kind in registry.KINDS
    }


@pytest.mark.parametrize("db", ["sqlite", "postgresql"])
async def test_the_migration_indexes_the_objects_already_stored(
    db: str, tmp_path, request: pytest.FixtureRequest
) -> None:
    """A database with objects from before revision 0008 gets their labels indexed by it."""
    import asyncio

    from alembic import command

    from osac.store.engine import MIGRATIONS, alembic_config

    url = (
        f"sqlite+aiosqlite:///{tmp_path / 'old.sqlite'}"
        if db == "sqlite"
        else str(request.getfixturevalue("empty_pg_database"))
    )
    config = alembic_config(url, MIGRATIONS)
    await asyncio.to_thread(command.upgrade, config, "0007")
    old = Store(create_engines(url), FakeClock(NOW))
    try:
        async with old.write() as tx:
            await tx.insert(VN, network(1, {"app": "a1", "tier": "web"}))
            await tx.insert(VN, network(2, {}))
    finally:
        await old.engines.dispose()
    await asyncio.to_thread(command.upgrade, config, "head")
    new = Store(create_engines(url), FakeClock(NOW))
    try:
        async with new.read() as tx:
            assert await index_rows(tx) == {
                ("virtual_networks", network(1, {}).id, "app", "a1"),
                ("virtual_networks", network(1, {}).id, "tier", "web"),
            }
    finally:
        await new.engines.dispose()
