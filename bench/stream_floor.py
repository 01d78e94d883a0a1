"""The floor under the watch fan-out: what grpcio's asyncio server itself costs per streamed
message on this machine, with nothing of the product in the way.

A bare ``grpc.aio`` server in a process of its own holds ``--streams`` server-streaming calls
(``STREAMS_PER_CHANNEL`` per client channel, as ``bench.watch_latency``); each commit of the
benchmark is an ``asyncio.Event`` that wakes every stream, which writes one message of
``--size`` bytes already serialised (the product's watch streams send each event's response
serialised once, ``EventsService.watch``). ``--messages`` such rounds are sent ``--gap`` seconds
apart. The server's CPU time over the rounds, divided by the messages sent, is the cost per
message that no change to the product's own code can go under in one process.

    python -m bench.stream_floor [--streams 1000] [--messages 50] [--size 300] [--gap 0.05] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import multiprocessing
import time
from collections.abc import Sequence
from multiprocessing.queues import Queue
from typing import Any

import grpc

from bench.harness import emit_json, print_table
from bench.watch_latency import STREAMS_PER_CHANNEL

METHOD = "/bench.Floor/Stream"
#: Seconds the streams get to connect before the rounds begin.
CONNECT_SECONDS = 5.0


def _serve(streams: int, messages: int, size: int, gap: float, out: Queue[Any]) -> None:
    async def main() -> None:
        rounds = [asyncio.Event() for _ in range(messages)]
        payload = b"x" * size
        connected = asyncio.Event()
        open_streams = 0

        async def stream(_request: bytes, context: grpc.aio.ServicerContext) -> None:
            nonlocal open_streams
            open_streams += 1
            if open_streams == streams:
                connected.set()
            for commit in rounds:
                await commit.wait()
                await context.write(payload)

        handler = grpc.method_handlers_generic_handler("bench.Floor", {
            "Stream": grpc.unary_stream_rpc_method_handler(stream),  # bytes in, bytes out
        })
        server = grpc.aio.server()
        server.add_generic_rpc_handlers((handler,))
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        out.put(port)
        await asyncio.wait_for(connected.wait(), 60)
        await asyncio.sleep(CONNECT_SECONDS / 5)
        cpu, wall = time.process_time(), time.perf_counter()
        for commit in rounds:
            commit.set()
            await asyncio.sleep(gap)
        await server.stop(grace=30)  # the writes still under way end first
        out.put((time.process_time() - cpu, time.perf_counter() - wall))

    asyncio.run(main())


async def _read(port: int, streams: int) -> int:
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{port}") for _ in range(math.ceil(streams / STREAMS_PER_CHANNEL))]
    received = 0

    async def one(channel: grpc.aio.Channel) -> None:
        nonlocal received
        async for _message in channel.unary_stream(METHOD)(b""):
            received += 1

    try:
        await asyncio.gather(*(one(channels[index // STREAMS_PER_CHANNEL]) for index in range(streams)),
                             return_exceptions=True)
    finally:
        await asyncio.gather(*(channel.close() for channel in channels))
    return received


def benchmark(streams: int = 1000, messages: int = 50, size: int = 300, gap: float = 0.05) -> dict[str, Any]:
    out: Queue[Any] = multiprocessing.get_context("spawn").Queue()
    server = multiprocessing.get_context("spawn").Process(target=_serve, args=(streams, messages, size, gap, out))
    server.start()
    try:
        port = out.get(timeout=60)
        received = asyncio.run(_read(port, streams))
        cpu, wall = out.get(timeout=120)
    finally:
        server.join(30)
        if server.is_alive():
            server.kill()
    sent = streams * messages
    # The server's CPU to the 0.1 ms: a smoke run of a few messages spends well under 5 ms, which
    # rounded to the hundredth of a second read as no CPU at all.
    return {
        "streams": streams, "messages": messages, "size": size, "sent": sent, "received": received,
        "wall_s": round(wall, 2), "server_cpu_s": round(cpu, 4),
        "us_per_message": round(cpu / sent * 1e6, 1), "messages_per_core_s": round(sent / cpu) if cpu else 0,
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.stream_floor", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--messages", type=int, default=50)
    parser.add_argument("--size", type=int, default=300, help="bytes per message (default 300)")
    parser.add_argument("--gap", type=float, default=0.05, help="seconds between rounds (default 0.05)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    row = benchmark(args.streams, args.messages, args.size, args.gap)
    if args.json:
        emit_json("stream_floor", vars(args), [row])
    else:
        print_table("grpc.aio server streaming alone (server CPU per message)", [row])


if __name__ == "__main__":
    main()
