"""Resident size of the server with many watch streams that do not read (issue #16).

Start the server (controllers off), onboard tenant ``acme``, write a history of ``--events``
changes of a VirtualNetwork whose annotations are near the 256 KiB limit (each event carries
~250 KB), then open ``--streams`` REST watch streams replaying that history from its start, whose
clients send the request and never read a byte. After ``--hold`` seconds the server's VmRSS is
read from /proc and compared with ``--bound`` MB.

    python -m bench.watch_memory [--db sqlite] [--events 200] [--streams 100] [--hold 10] [--bound 500]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

from bench.harness import ServerProcess, rest_client, scratch_database, workdir

VN = "/api/fulfillment/v1/virtual_networks"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


async def silent_stream(port: int, token: str, after: int) -> asyncio.StreamWriter:
    """A watch request whose client never reads its answer."""
    _reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"GET /api/events/v1/events?after_revision={after} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {token}\r\n\r\n".encode()
    )
    await writer.drain()
    return writer


async def run(server: ServerProcess, events: int, streams: int, hold: float) -> dict[str, float]:
    await server.onboard()
    token = server.tenant_token()
    async with rest_client(server.http_url, token) as client:
        start = int((await client.get(VN)).json()["revision"])
        vn = (await client.post(VN, json={"metadata": {"name": "big"}, "spec": {"ipv4_cidr": "10.0.0.0/16"}})).json()
        for index in range(events):
            response = await client.patch(f"{VN}/{vn['id']}",
                                          json={"metadata": {"annotations": {"a": str(index % 10) * 250_000}}})
            response.raise_for_status()
    before = rss_mb(server.pid)
    writers = [await silent_stream(server.http_port, token, start) for _ in range(streams)]
    peak = before
    deadline = time.monotonic() + hold
    while time.monotonic() < deadline:
        await asyncio.sleep(0.5)
        peak = max(peak, rss_mb(server.pid))
    for writer in writers:
        writer.close()
    await asyncio.sleep(2)
    return {"rss_before_mb": before, "rss_peak_mb": peak, "rss_after_close_mb": rss_mb(server.pid),
            "history_mb": events * 0.25}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", default="sqlite", choices=["sqlite", "postgresql"])
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--streams", type=int, default=100)
    parser.add_argument("--hold", type=float, default=10)
    parser.add_argument("--bound", type=float, default=500)
    args = parser.parse_args()
    with workdir() as work, scratch_database(args.db, work) as url, ServerProcess(url, work) as server:
        result = asyncio.run(run(server, args.events, args.streams, args.hold))
    print(" ".join(f"{key}={value:.0f}" for key, value in result.items()))
    if result["rss_peak_mb"] > args.bound:
        print(f"peak resident size above the bound of {args.bound:.0f} MB", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
