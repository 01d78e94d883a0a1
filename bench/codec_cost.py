"""What the storage codec and the public/private conversion cost on a real object: a READY
cluster (the in-process server of ``bench.pass_cost``, simulator at ``instant`` speed), its
stored object encoded to storage JSON, parsed back, and converted to its public twin, each by
the plan per message type (``store/codec.py``, ``model/convert.py``) and by the proto3 JSON
mapping they replaced, with the process's CPU time per call (median of ``--rounds`` rounds of
``--calls`` calls).

    python -m bench.codec_cost [--db sqlite] [--calls 500] [--rounds 5] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from bench.harness import DATABASES, emit_json, print_table, scratch_database, workdir
from bench.pass_cost import application, ready_clusters
from osac.model import registry
from osac.model.convert import convert
from osac.store.codec import from_storage, parse_by_json_mapping, storage_by_json_mapping, to_storage


def _by_json(message: Message, cls: type[Message]) -> Message:
    data = json_format.MessageToDict(message, preserving_proto_field_name=True, use_integers_for_enums=True)
    target = cls()
    json_format.ParseDict(data, target, ignore_unknown_fields=True)
    return target


def _cpu_us(call: Callable[[], Any], calls: int, rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(calls):
            call()
        samples.append((time.process_time() - start) / calls * 1e6)
    return round(statistics.median(samples), 1)


async def stored_cluster(db: str) -> tuple[Message, dict[str, Any]]:
    """A READY cluster's stored message and its storage dict."""
    kind = registry.get("cluster")
    with workdir() as directory, scratch_database(db, directory) as url:
        async with application(url, directory) as app:
            (cluster_id,) = await ready_clusters(app, 1)
            async with app.store.read() as tx:
                message = await tx.get(kind, cluster_id)
    assert message is not None
    return message, json.loads(json.dumps(to_storage(message)))


def measure(message: Message, data: dict[str, Any], calls: int, rounds: int) -> list[dict[str, Any]]:
    kind = registry.get("cluster")
    private, public = kind.private_class(), kind.public_class()
    assert to_storage(message) == storage_by_json_mapping(message)
    assert from_storage(data, private) == parse_by_json_mapping(data, private) == message
    assert convert(message, public) == _by_json(message, public)
    cases = [
        ("encode", lambda: storage_by_json_mapping(message), lambda: to_storage(message)),
        ("parse", lambda: parse_by_json_mapping(data, private), lambda: from_storage(data, private)),
        ("to_public", lambda: _by_json(message, public), lambda: convert(message, public)),
    ]
    rows = []
    for name, by_json, by_plan in cases:
        before, after = _cpu_us(by_json, calls, rounds), _cpu_us(by_plan, calls, rounds)
        rows.append({"operation": name, "json_bytes": len(json.dumps(data)), "json_mapping_us": before,
                     "plan_us": after, "ratio": round(before / after, 1) if after else 0.0})
    return rows


async def benchmark(db: str = "sqlite", calls: int = 500, rounds: int = 5) -> list[dict[str, Any]]:
    message, data = await stored_cluster(db)
    return measure(message, data, calls, rounds)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.codec_cost", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", choices=DATABASES, default="sqlite")
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = asyncio.run(benchmark(args.db, args.calls, args.rounds))
    if args.json:
        emit_json("codec_cost", vars(args), rows)
    else:
        print_table("storage codec and conversion of a READY cluster (CPU µs per call)", rows)


if __name__ == "__main__":
    main()
