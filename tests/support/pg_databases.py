"""PostgreSQL databases for tests, reused across the session.

Creating a database costs most of a second (PostgreSQL copies and syncs its template), more than
most tests. So a test borrows a database that starts with exactly the rows of a source database
(the migrated schema, or a prepared state), and when it ends the database gets those rows back
(every table emptied and refilled from a copy taken once, sequences set back) and waits for the
next test. A reset that fails drops the database instead.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import psycopg
from psycopg import sql

#: Test connections do not wait for the disk: a crash of the test machine loses nothing of value.
FAST_COMMITS = "options=-csynchronous_commit%3Doff"


@dataclass(frozen=True)
class Contents:
    """Every row of a database (``COPY`` text per table) and its sequences' positions."""

    tables: tuple[tuple[str, bytes], ...]
    sequences: tuple[tuple[str, int | None], ...]


@dataclass
class PgDatabases:
    admin_dsn: str
    _free: dict[str, list[str]] = field(default_factory=dict)
    _contents: dict[str, Contents] = field(default_factory=dict)
    _made: list[str] = field(default_factory=list)

    def dsn(self, name: str) -> str:
        return f"{self.admin_dsn.rsplit('/', 1)[0]}/{name}"

    def url(self, name: str) -> str:
        """The application's URL of a database (async driver, commits that do not wait for
        the disk)."""
        return self.dsn(name).replace("postgresql://", "postgresql+psycopg://") + "?" + FAST_COMMITS

    def create(self, template: str | None = None) -> str:
        """A new database (a copy of ``template``), dropped by ``close``."""
        name = f"osac_t_{uuid.uuid4().hex[:12]}"
        self._admin(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
                    + (sql.SQL(" TEMPLATE {}").format(sql.Identifier(template)) if template else sql.SQL("")))
        self._made.append(name)
        return name

    @contextmanager
    def scratch(self, template: str | None = None) -> Iterator[str]:
        """A new database (a copy of ``template``) for the duration of the block, then dropped."""
        name = self.create(template)
        try:
            yield name
        finally:
            self.drop(name)

    @contextmanager
    def borrow(self, source: str) -> Iterator[str]:
        """A database holding exactly the rows of ``source`` for the duration of the block."""
        contents = self._contents.get(source) or self._contents.setdefault(source, self._read(source))
        free = self._free.setdefault(source, [])
        name = free.pop() if free else self.create(template=source)
        try:
            yield name
        finally:
            try:
                self._reset(name, contents)
            except Exception:
                self.drop(name)
            else:
                free.append(name)

    def drop(self, name: str) -> None:
        self._admin(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        if name in self._made:
            self._made.remove(name)

    def close(self) -> None:
        for name in list(self._made):
            self.drop(name)

    # -- internals ---------------------------------------------------------------------------------

    def _admin(self, statement: sql.Composed) -> None:
        with psycopg.connect(self.admin_dsn, autocommit=True) as conn:
            conn.execute(statement)

    def _read(self, name: str) -> Contents:
        with psycopg.connect(self.dsn(name), autocommit=True) as conn:
            tables = [row[0] for row in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")]
            copied = []
            for table in tables:
                data = bytearray()
                with conn.cursor().copy(sql.SQL("COPY {} TO STDOUT").format(sql.Identifier(table))) as copy:
                    for chunk in copy:
                        data += chunk
                copied.append((table, bytes(data)))
            sequences = [(f"public.{row[0]}", row[1]) for row in conn.execute(
                "SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = 'public'")]
        return Contents(tuple(copied), tuple(sequences))

    def _reset(self, name: str, contents: Contents) -> None:
        with psycopg.connect(self.admin_dsn, autocommit=True) as conn:
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                         "WHERE datname = %s AND pid <> pg_backend_pid()", (name,))
        with psycopg.connect(self.dsn(name) + "?" + FAST_COMMITS) as conn:
            conn.execute("SET LOCAL session_replication_role = replica")  # no foreign-key order to follow
            conn.execute(sql.SQL("; ").join(sql.SQL("DELETE FROM {}").format(sql.Identifier(table))
                                            for table, _ in contents.tables))
            for table, data in contents.tables:
                if data:
                    with conn.cursor().copy(sql.SQL("COPY {} FROM STDIN").format(sql.Identifier(table))) as copy:
                        copy.write(data)
            for sequence, last_value in contents.sequences:
                if last_value is None:
                    conn.execute(sql.SQL("ALTER SEQUENCE {} RESTART").format(sql.Identifier(*sequence.split("."))))
                else:
                    conn.execute("SELECT setval(%s, %s, true)", (sequence, last_value))
