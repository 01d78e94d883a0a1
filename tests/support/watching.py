"""Reading watch streams in tests without waiting forever."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx


async def read_events(
    base_url: str, token: str, *, path: str = "/api/events/v1/events", params: dict[str, Any] | None = None,
    count: int | None = None, idle: float = 1.0, limit: float = 20.0,
) -> list[dict[str, Any]]:
    """Lines of a watch stream: stop after ``count`` lines, or ``idle`` seconds without one."""
    lines: list[dict[str, Any]] = []

    async def consume() -> None:
        headers = {"authorization": f"Bearer {token}"}
        async with (
            httpx.AsyncClient(base_url=base_url, timeout=None) as http,
            http.stream("GET", path, params=params or {}, headers=headers) as response,
        ):
            if response.status_code != 200:
                lines.append({"status": response.status_code, "body": json.loads(await response.aread())})
                return
            iterator = response.aiter_lines()
            while count is None or len(lines) < count:
                try:
                    async with asyncio.timeout(idle):
                        line = await anext(iterator)
                except (TimeoutError, StopAsyncIteration):
                    return
                if line.strip():
                    lines.append(json.loads(line))

    async with asyncio.timeout(limit):
        await consume()
    return lines


def revisions(lines: list[dict[str, Any]]) -> list[int]:
    return [int(line["result"]["event"]["revision"]) for line in lines if "result" in line]


def payload(line: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(kind field name, object) of one watch line."""
    event = line["result"]["event"]
    for key, value in event.items():
        if key not in ("id", "type", "revision"):
            return key, value
    raise AssertionError(f"no payload in {event}")


async def outbox_after(app: Any, revision: int) -> list[tuple[int, str, str]]:
    """``(revision, event type, kind)`` of every change committed after ``revision``, read from
    the server's outbox (what every Watch stream delivers), in revision order."""
    from osac.store import outbox

    async with app.store.read() as tx:
        stored = await outbox.events_after(tx, revision)
    names = {1: "CREATED", 2: "UPDATED", 3: "DELETED"}
    return [(event.revision, names.get(event.type, str(event.type)), event.kind) for event in stored]
