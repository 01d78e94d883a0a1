"""What a PostgreSQL transaction costs in round trips, read from libpq's protocol trace: a read
without a snapshot is one, a snapshot read three, a connection in steady use is not pinged, one
that idled is (and is replaced when its server side is gone), and a write's NOTIFY rides on its
revision update."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from osac.store import direct, schema, statements
from osac.store import engine as engine_module
from osac.store.engine import Shelf, create_engines, sqlite_url, statement_reader
from osac.store.errors import Conflict
from osac.store.objects import Store
from osac.store.statements import NOTIFY_CHANNEL
from tests.store.conftest import VN, network

pytestmark = pytest.mark.asyncio


class Trace:
    """The frontend messages and round trips of one connection while tracing."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def lines(self) -> list[str]:
        """One line per message: a statement's own line breaks continue its message's line."""
        merged: list[str] = []
        for line in self.path.read_text().splitlines():
            if merged and not re.match(r"\d{4}-\d\d-\d\d ", line):
                merged[-1] += " " + line
            else:
                merged.append(line)
        return merged

    @property
    def round_trips(self) -> int:
        """Each exchange ends with the server's ReadyForQuery."""
        return sum(1 for line in self.lines if "\tB\t" in line and "\tReadyForQuery\t" in line)

    @property
    def sent(self) -> list[str]:
        """The SQL the client sent (simple queries and parsed statements), in order."""
        found = []
        for line in self.lines:
            match = re.search(r"\tF\t\d+\t(?:Query|Parse)\t (?:\"[^\"]*\" )?\"(.*)\"", line)
            if match and "\tF\t" in line:
                found.append(match.group(1))
        return found


@asynccontextmanager
async def traced(source: AsyncEngine | Shelf, path: Path) -> AsyncIterator[Trace]:
    """Trace the connection the next transaction gets: the newest the store keeps (a
    ``Shelf``), or the pool's one connection (the tests use them one at a time); libpq writes
    the trace through a buffer, so read it after the block."""
    if isinstance(source, Shelf):
        kept = await source.take()
        pgconn = (await kept.get_raw_connection()).driver_connection.pgconn  # type: ignore[union-attr]
        await source.give_back(kept, clean=True)
    else:
        async with source.connect() as conn:
            pgconn = (await conn.get_raw_connection()).driver_connection.pgconn  # type: ignore[union-attr]
    with path.open("w") as sink:
        pgconn.trace(sink.fileno())
        try:
            yield Trace(path)
        finally:
            pgconn.untrace()


@asynccontextmanager
async def listening(pg_database: str) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
    """A connection LISTENing on the store's notification channel."""
    dsn = make_url(pg_database).set(drivername="postgresql").render_as_string(hide_password=False)
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as listener:
        await listener.execute(f"LISTEN {NOTIFY_CHANNEL}")
        yield listener


async def notices_through(listener: psycopg.AsyncConnection[Any], last: str) -> list[str]:
    """The payloads ``listener`` receives, up to and including ``last``."""
    notices = []
    async with asyncio.timeout(10):
        async for notice in listener.notifies():
            notices.append(notice.payload)
            if notice.payload == last:
                break
    return notices


@pytest.fixture
def store(pg_store: Store) -> Store:
    return pg_store


async def test_a_read_without_a_snapshot_is_one_round_trip_and_a_snapshot_read_two(
    store: Store, tmp_path: Path
) -> None:
    async with store.write() as tx:
        await tx.insert(VN, network("app"))
    async with traced(store.engines.kept_readers, tmp_path / "latest") as latest, store.read(snapshot=False) as tx:
        assert (await tx.get(VN, "vn-app")).metadata.name == "app"  # type: ignore[union-attr]
    assert latest.round_trips == 1
    assert not any(sql.startswith(("BEGIN", "COMMIT", "ROLLBACK")) for sql in latest.sent)

    async with traced(store.engines.kept_readers, tmp_path / "snapshot") as snapshot, store.read() as tx:
        assert (await tx.get(VN, "vn-app")).metadata.name == "app"  # type: ignore[union-attr]
    # the BEGIN goes with the first statement; the COMMIT on its own
    assert snapshot.round_trips == 2
    assert snapshot.sent[0].startswith("BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT"), snapshot.sent
    assert snapshot.sent[-1] == "COMMIT"

    async with traced(store.engines.kept_readers, tmp_path / "nothing") as nothing, store.read():
        pass  # a snapshot that reads nothing sends nothing
    assert nothing.round_trips == 0, nothing.sent


async def test_a_snapshot_sees_one_moment_and_ends_with_its_block(store: Store) -> None:
    """Statements after the first one see what the snapshot saw, not what committed since, and
    the connection goes back to its pool outside any transaction, after a failing block too."""
    async with store.write() as tx:
        await tx.insert(VN, network("one"))
    async with store.read() as tx:
        assert await tx.count(VN) == 1
        async with store.write() as other:
            await other.insert(VN, network("two"))
        assert await tx.count(VN) == 1
        assert (await tx.conn.execute(text("SHOW transaction_isolation"))).scalar_one() == "repeatable read"
    with pytest.raises(RuntimeError):
        async with store.read() as tx:
            assert await tx.count(VN) == 2
            raise RuntimeError("the block fails")
    async with store.engines.reader.connect() as conn:
        raw = await conn.get_raw_connection()
        assert raw.driver_connection.info.transaction_status == psycopg.pq.TransactionStatus.IDLE  # type: ignore[union-attr]
    async with store.read(snapshot=False) as tx:
        assert await tx.count(VN) == 2


async def test_the_simulator_reader_runs_each_statement_on_its_own(store: Store, tmp_path: Path) -> None:
    for reader in (statement_reader(store.engines.writer), store.engines.statements):
        async with traced(reader, tmp_path / "trace") as trace, reader.connect() as conn:
            assert (await conn.execute(select(schema.revision_counter.c.value))).scalar_one() == 0
            assert (await conn.execute(text("SELECT 2"))).scalar_one() == 2
        assert trace.round_trips == 2, trace.sent  # no BEGIN, no ROLLBACK, no DEALLOCATE ALL
    # The store's own reader without a snapshot is in autocommit from the start: no isolation
    # level is set at each checkout (nor reset at each checkin).
    assert statement_reader(store.engines.statements) is store.engines.statements
    assert store.engines.statements is not store.engines.writer
    sqlite = create_engines(sqlite_url(tmp_path))
    try:
        assert statement_reader(sqlite.reader) is sqlite.reader
    finally:
        await sqlite.dispose()


async def test_a_connection_in_steady_use_is_not_pinged_and_one_that_idled_is(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with traced(store.engines.kept_readers, tmp_path / "busy") as busy:
        for _ in range(3):
            async with store.read(snapshot=False) as tx:
                await tx.revision()
    assert busy.round_trips == 3 and ";" not in busy.sent
    async with traced(store.engines.kept_readers, tmp_path / "idle") as idle:
        # Kept unused longer than that: the store gives it back to the pool, which pings it.
        monkeypatch.setattr(engine_module, "IDLE_PING_AFTER", 0.0)
        async with store.read(snapshot=False) as tx:
            await tx.revision()
    assert idle.round_trips == 2 and idle.sent == [";", busy.sent[0]]


async def test_an_idle_connection_whose_server_side_is_gone_is_replaced_before_use(
    store: Store, pg_database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with store.read(snapshot=False) as tx:
        before = (await tx.conn.execute(text("SELECT pg_backend_pid()"))).scalar_one()
    dsn = make_url(pg_database).set(drivername="postgresql").render_as_string(hide_password=False)
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as admin:
        await admin.execute("SELECT pg_terminate_backend(%s)", [before])
    monkeypatch.setattr(engine_module, "IDLE_PING_AFTER", 0.0)

    async with store.read(snapshot=False) as tx:  # no error: the ping found it dead
        after = (await tx.conn.execute(text("SELECT pg_backend_pid()"))).scalar_one()
    assert after != before


async def test_a_write_notifies_its_last_revision_at_commit_within_its_revision_update(
    store: Store, pg_database: str, tmp_path: Path
) -> None:
    async with listening(pg_database) as listener:
        async with traced(store.engines.kept_writers, tmp_path / "trace") as trace, store.write() as tx:
            await tx.insert(VN, network("one"))
            await tx.insert(VN, network("two"))
        assert tx.last_revision == 2
        assert await notices_through(listener, "2") == ["2"]
        statements = [sql.split(" ")[0] for sql in trace.sent]
        # the two objects (the BEGIN with the first), then both events numbered and appended in
        # one statement, sent with the COMMIT in one query
        assert statements == ["BEGIN;", "INSERT", "WITH"], trace.sent
        assert trace.sent[0].startswith("BEGIN; INSERT")
        assert "pg_notify" in trace.sent[2] and "INSERT INTO events" in trace.sent[2]
        assert trace.sent[2].endswith("; COMMIT")
        assert trace.round_trips == 3


async def test_a_write_of_one_object_numbers_and_appends_its_event_in_one_statement(
    store: Store, pg_database: str, tmp_path: Path
) -> None:
    async with listening(pg_database) as listener:
        async with store.write() as tx:
            await tx.insert(VN, network("one"))
        async with traced(store.engines.kept_writers, tmp_path / "trace") as trace, store.write() as tx:
            await tx.insert(VN, network("two"))
        assert tx.last_revision == 2
        assert await notices_through(listener, "2") == ["1", "2"]
        sent = trace.sent
        # the BEGIN goes with the first statement
        assert len(sent) == 2 and sent[0].startswith("BEGIN; INSERT"), sent
        # the event's statement and the COMMIT in one query: the counter's row lock is released
        # when the server has run them, without waiting for the client's next turn
        assert sent[1].startswith("WITH advanced AS") and sent[1].endswith("; COMMIT"), sent
        assert "pg_notify" in sent[1] and "INSERT INTO events" in sent[1]
        assert trace.round_trips == 2
    async with store.read() as tx:
        rows = (await tx.conn.execute(
            select(schema.events.c.revision, schema.events.c.kind, schema.events.c.object_id, schema.events.c.tenant)
            .order_by(schema.events.c.revision))).all()
        assert (await tx.conn.execute(select(schema.revision_counter.c.value))).scalar_one() == 2
    assert [(revision, kind) for revision, kind, _, _ in rows] == [(1, "virtual_network"), (2, "virtual_network")]
    assert rows[1].object_id == network("two").id and rows[1].tenant == network("two").metadata.tenant


async def test_a_commit_sent_with_the_events_that_fails_commits_nothing(store: Store) -> None:
    """The events' statement and the COMMIT travel in one query; when the COMMIT fails (here a
    deferred unique constraint, checked only then), nothing is stored, the revision is not
    taken, the rollback callbacks run and the next write on the pool succeeds."""
    rolled_back: list[str] = []
    with pytest.raises(IntegrityError):
        async with store.write() as tx:
            await tx.conn.execute(text(
                "CREATE TEMP TABLE once (x int PRIMARY KEY DEFERRABLE INITIALLY DEFERRED) ON COMMIT DROP"))
            await tx.conn.execute(text("INSERT INTO once VALUES (1), (1)"))  # refused at COMMIT only
            await tx.insert(VN, network("lost"))
            tx.after_rollback(lambda: rolled_back.append("rolled back"))
    assert rolled_back == ["rolled back"]
    async with store.write() as tx:
        await tx.insert(VN, network("kept"))
    assert tx.last_revision == 1
    async with store.read() as tx:
        names = (await tx.conn.execute(select(schema.events.c.object_id).order_by(schema.events.c.revision))).all()
        assert (await tx.conn.execute(select(schema.revision_counter.c.value))).scalar_one() == 1
    assert [row.object_id for row in names] == [network("kept").id]


async def _stored(store: Store, object_id: str) -> tuple[int, str]:
    async with store.read() as tx:
        found = await tx.get(VN, object_id)
    assert found is not None
    return found.metadata.version, found.metadata.labels.get("step", "")


async def test_a_write_of_a_row_the_transaction_holds_goes_with_the_commit(
    store: Store, pg_database: str, tmp_path: Path
) -> None:
    """A row locked by the transaction at the version it writes over cannot be refused: its
    update travels with the events and the COMMIT (two round trips, with the BEGIN sent with
    the lock; four before either was held back)."""
    async with store.write() as tx:
        await tx.insert(VN, network("one"))
    async with traced(store.engines.kept_writers, tmp_path / "trace") as trace, store.write() as tx:
        held = await tx.get(VN, network("one").id, lock="no_key_update")
        assert held is not None
        held.metadata.labels["step"] = "held"
        written = await tx.replace(VN, held, held.metadata.version)
    sent = trace.sent
    assert [sql.split(" ")[0] for sql in sent] == ["BEGIN;", "UPDATE"], sent
    assert sent[0].startswith("BEGIN; SELECT") and sent[0].endswith("FOR NO KEY UPDATE"), sent
    assert "INSERT INTO events" in sent[1] and sent[1].endswith("; COMMIT"), sent
    assert trace.round_trips == 2
    assert written.object.metadata.version == 2
    assert await _stored(store, network("one").id) == (2, "held")


async def test_a_held_back_write_goes_first_in_the_transaction_s_next_statement(
    store: Store, pg_database: str, tmp_path: Path
) -> None:
    """The transaction's next statement carries the held-back write, whatever runs it (the
    store's prebuilt statements or SQLAlchemy's execution): it reads what was written."""
    async with store.write() as tx:
        await tx.insert(VN, network("one"))
        await tx.insert(VN, network("two"))
    async with traced(store.engines.kept_writers, tmp_path / "trace") as trace, store.write() as tx:
        one = await tx.get(VN, network("one").id, lock="no_key_update")
        assert one is not None
        one.metadata.labels["step"] = "first"
        await tx.replace(VN, one, one.metadata.version)
        # by id, the prebuilt path: sent in one query after the update
        other = await tx.get(VN, network("two").id, lock="no_key_update")
        assert other is not None
        other.metadata.labels["step"] = "second"
        await tx.replace(VN, other, other.metadata.version)
        # SQLAlchemy's execution: the update goes first
        labelled = (await tx.conn.execute(text(
            "SELECT data->'metadata'->'labels'->>'step' FROM virtual_networks ORDER BY id"))).scalars().all()
        assert labelled == ["first", "second"]
    sent = trace.sent
    assert [sql.split(" ")[0] for sql in sent] == ["BEGIN;", "UPDATE", "UPDATE", "SELECT", "WITH"], sent
    assert sent[1].endswith("FOR NO KEY UPDATE") and "; SELECT" in sent[1], sent  # the update, then the lock
    assert trace.round_trips == 5  # BEGIN + lock, update + lock, update, the SQL read, events + COMMIT
    assert await _stored(store, network("one").id) == (2, "first")
    assert await _stored(store, network("two").id) == (2, "second")


async def test_a_held_back_write_in_a_rolled_back_savepoint_is_undone(store: Store) -> None:
    async with store.write() as tx:
        await tx.insert(VN, network("one"))
    async with store.write() as tx:
        with pytest.raises(RuntimeError):
            async with tx.savepoint():
                one = await tx.get(VN, network("one").id, lock="no_key_update")
                assert one is not None
                one.metadata.labels["step"] = "undone"
                await tx.replace(VN, one, one.metadata.version)
                raise RuntimeError("the block fails")
        again = await tx.get(VN, network("one").id, lock="no_key_update")
        assert again is not None and again.metadata.version == 1
    assert await _stored(store, network("one").id) == (1, "")


async def test_a_held_back_write_that_fails_fails_its_transaction(store: Store) -> None:
    """Should a held-back write be refused after all, the statement carrying it raises and
    nothing of the transaction is stored."""
    async with store.write() as tx:
        await tx.insert(VN, network("one"))
    with pytest.raises(IntegrityError):
        async with store.write() as tx:
            one = await tx.get(VN, network("one").id, lock="no_key_update")
            assert one is not None
            one.metadata.labels["step"] = "lost"
            await tx.replace(VN, one, one.metadata.version)
            await direct.execute_later(tx.conn, statements.insert_object(VN.name), {
                "id": network("one").id, "name": "dup", "tenant": "acme",
                "creation_timestamp": datetime(2026, 1, 1, tzinfo=UTC), "deletion_timestamp": None,
                "version": 1, "data": {}})
    assert await _stored(store, network("one").id) == (1, "")
    async with store.read() as tx:
        assert (await tx.conn.execute(select(schema.revision_counter.c.value))).scalar_one() == 1


async def test_a_write_over_a_version_the_transaction_does_not_hold_is_checked_at_once(store: Store) -> None:
    """A replace of a row not locked by the transaction (or at another version) runs at once
    and is refused when someone else got there first."""
    async with store.write() as tx:
        await tx.insert(VN, network("one"))
    async with store.read() as tx:
        stale = await tx.get(VN, network("one").id)
    assert stale is not None
    async with store.write() as tx:
        current = await tx.get(VN, network("one").id, lock="no_key_update")
        assert current is not None
        await tx.replace(VN, current, current.metadata.version)
    with pytest.raises(Conflict):
        async with store.write() as tx:
            await tx.replace(VN, stale, stale.metadata.version)
    assert (await _stored(store, network("one").id))[0] == 2


async def test_a_write_that_sends_nothing_costs_no_round_trip(store: Store, tmp_path: Path) -> None:
    """Its BEGIN waited for a first statement that never came: no BEGIN, no COMMIT."""
    async with traced(store.engines.kept_writers, tmp_path / "nothing") as nothing, store.write() as tx:
        assert tx.last_event is None
    assert nothing.round_trips == 0, nothing.sent
    async with traced(store.engines.kept_writers, tmp_path / "sqlalchemy") as first, store.write() as tx:
        # a first statement SQLAlchemy runs is preceded by the BEGIN, as psycopg would send it
        assert (await tx.conn.execute(text("SELECT count(*) FROM virtual_networks"))).scalar_one() == 0
    assert [sql.split(" ")[0] for sql in first.sent] == ["BEGIN", "SELECT", "COMMIT"], first.sent
