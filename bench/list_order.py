"""The database's cost of a List page under each ``order`` (docs/filters.md, List order).

For each database: migrate a fresh one and bulk-insert ``--objects`` VirtualNetworks of tenant
``acme`` straight into the live table (every column as ``Tx.insert`` derives it; names in a
shuffled order, states 1-3 in turn). Then time ``--repeat`` runs of the store's page statement
(``osac.store.ordering.page_query``, as ``Tx.page`` runs it) for each order, at offset 0 and
in the middle, limit 100, as a tenant admin of ``acme`` sees it. Every page is checked: 100
items, in the order asked for, ties by ascending id.

    python -m bench.list_order [--db sqlite postgresql] [--objects 100000] [--repeat 15] [--json]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine, create_engine, insert, text

from bench.harness import DATABASES, TENANT, emit_json, ms, percentile, print_table, scratch_database, workdir
from osac.model import ids, registry
from osac.store.codec import format_datetime
from osac.store.engine import migrate, sync_url
from osac.store.ordering import SortKey, page_query
from osac.store.tables import LIVE

KIND = registry.get("virtual_network")
TABLE = LIVE[KIND.name]
LIMIT = 100
BATCH = 5000
ORDERS: dict[str, tuple[SortKey, ...]] = {
    "creation": (),
    "id desc": (SortKey("id", descending=True),),
    "metadata.name": (SortKey("metadata.name"),),
    "metadata.creation_timestamp desc": (SortKey("metadata.creation_timestamp", descending=True),),
    "status.state desc": (SortKey("status.state", descending=True),),
}
#: A multiplier prime to any object count below it: names in a shuffled order.
SHUFFLE = 7919


def bulk_load(url: str, count: int) -> float:
    """Insert ``count`` networks; returns the seconds it took."""
    engine = create_engine(sync_url(url))
    started = time.perf_counter()
    base = datetime.now(UTC)
    try:
        with engine.begin() as conn:
            for first in range(0, count, BATCH):
                rows = []
                for index in range(first, min(first + BATCH, count)):
                    created = base + timedelta(microseconds=index)
                    name = f"n{(index * SHUFFLE) % count:07d}"
                    data = {
                        "id": ids.new_id(),
                        "metadata": {"name": name, "tenant": TENANT, "creation_timestamp": format_datetime(created)},
                        "spec": {"ipv4_cidr": "10.0.0.0/16"},
                        "status": {"state": 1 + index % 3},
                    }
                    rows.append({"id": data["id"], "name": name, "tenant": TENANT, "creation_timestamp": created,
                                 "deletion_timestamp": None, "version": 0, "data": data})
                conn.execute(insert(TABLE), rows)
        if engine.dialect.name == "postgresql":
            with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
                conn.execute(text(f"ANALYZE {TABLE.name}"))
        return time.perf_counter() - started
    finally:
        engine.dispose()


def _sort_key(data: dict[str, Any], keys: Sequence[SortKey]) -> list[Any]:
    values: list[Any] = []
    for key in keys:
        value: Any = {
            "id": data["id"],
            "metadata.name": data["metadata"]["name"],
            "metadata.creation_timestamp": data["metadata"]["creation_timestamp"],
            "status.state": data["status"]["state"],
        }[key.field]
        values.append(value)
    return values


def check(page: list[dict[str, Any]], keys: Sequence[SortKey]) -> None:
    """The page holds ``LIMIT`` items in the order of ``keys``, ties by ascending id."""
    if len(page) != LIMIT:
        raise AssertionError(f"page of {len(page)} items, expected {LIMIT}")
    for before, after in zip(page, page[1:], strict=False):
        for key, low, high in zip(keys, _sort_key(before, keys), _sort_key(after, keys), strict=True):
            if low != high:
                if (low > high) != key.descending:
                    raise AssertionError(f"{key.field}: {low!r} before {high!r}")
                break
        else:
            if before["id"] >= after["id"]:
                raise AssertionError(f"tie not broken by ascending id: {before['id']} before {after['id']}")


def timed_pages(engine: Engine, keys: Sequence[SortKey], offset: int, repeat: int) -> list[float]:
    query = page_query(TABLE, [TABLE.c.tenant.in_([TENANT])], keys, engine.dialect.name, offset=offset, limit=LIMIT)
    seconds = []
    with engine.connect() as conn:
        for _ in range(repeat + 2):
            started = time.perf_counter()
            page = [row[0] for row in conn.execute(query)]
            seconds.append(time.perf_counter() - started)
            check(page, keys)
            conn.rollback()
    return seconds[2:]


def benchmark(databases: Sequence[str] = DATABASES, objects: int = 100_000, repeat: int = 15) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for db in databases:
        with workdir() as directory, scratch_database(db, directory) as url:
            migrate(url)
            load_seconds = bulk_load(url, objects)
            engine = create_engine(sync_url(url))
            try:
                for order, keys in ORDERS.items():
                    for offset in (0, objects // 2):
                        seconds = timed_pages(engine, keys, offset, repeat)
                        rows.append({
                            "db": db, "objects": objects, "order": order, "offset": offset, "pages": len(seconds),
                            "p50_ms": ms(percentile(seconds, 50)), "p99_ms": ms(percentile(seconds, 99)),
                            "load_rows_per_s": round(objects / load_seconds),
                        })
            finally:
                engine.dispose()
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.list_order", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", nargs="+", choices=DATABASES, default=list(DATABASES))
    parser.add_argument("--objects", type=int, default=100_000, help="objects bulk-loaded (default 100000)")
    parser.add_argument("--repeat", type=int, default=15, help="timed pages per order and offset (default 15)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    rows = benchmark(args.db, args.objects, args.repeat)
    if args.json:
        emit_json("list_order", vars(args), rows)
    else:
        print_table(f"List page by order ({args.objects} objects, limit {LIMIT})", rows)


if __name__ == "__main__":
    main()
