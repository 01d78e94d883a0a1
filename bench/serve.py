"""The server under test, run in its own process by ``bench.harness.ServerProcess``.

It is the real ``Application`` (gRPC + REST + bootstrap, controllers off unless asked), on free
loopback ports; once it listens it prints one JSON line ``{"grpc_port", "http_port", "pid"}`` and
serves until SIGTERM or SIGINT.

``--patch-tcp-nodelay`` is a diagnostic, not a setting of the product: the product's HTTP listener
is a ``socket.socket(AF_INET, SOCK_STREAM)`` with protocol 0, so asyncio does not set TCP_NODELAY
on the connections it accepts and every keep-alive response written in two parts waits for the
client's delayed ACK (~40 ms). The flag creates that listener with ``IPPROTO_TCP`` instead, to
show what REST costs without the stall (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
from pathlib import Path

from osac.cli.serve import settle_collector
from osac.server.app import Application
from osac.server.settings import Settings, load_config

_ORIGINAL_SOCKET = socket.socket


class _TcpSocket(socket.socket):
    """``socket.socket`` whose stream sockets say IPPROTO_TCP (asyncio then sets TCP_NODELAY)."""

    def __init__(self, family: int = -1, type: int = -1, proto: int = -1, fileno: int | None = None) -> None:
        if fileno is None and type == socket.SOCK_STREAM and proto in (-1, 0):
            proto = socket.IPPROTO_TCP
        super().__init__(family, type, proto, fileno)


def bench_settings(db_url: str, data_dir: Path, controllers: bool, bootstrap: Path | None,
                   simulator_speed: str | None = None, workers: int = 1) -> Settings:
    config = load_config(None)
    if bootstrap is not None:
        # A benchmark catalogue carries only what its benchmark uses: no bare-metal host types,
        # so no simulated host inventory either.
        config["simulator"]["inventory"] = {"hosts": []}
    if simulator_speed is not None:
        config["simulator"]["speed"] = simulator_speed
    return Settings(
        data_dir=data_dir,
        db_url=db_url,
        grpc_address="127.0.0.1:0",
        http_address="127.0.0.1:0",
        run_controllers=controllers,
        bootstrap=bootstrap,
        config=config,
        workers=workers,
    )


def serve_workers(settings: Settings) -> None:
    """``osac serve --workers N``'s supervisor; the JSON line names the parent's pid (the
    benchmarks count the CPU of its whole process tree)."""
    import logging

    from osac.cli.workers import Supervisor

    logging.basicConfig(level=logging.WARNING)
    supervisor = Supervisor(settings, logging.WARNING)

    def serving(grpc_address: str, http_address: str) -> None:
        print(json.dumps({"grpc_port": int(grpc_address.rsplit(":", 1)[1]),
                          "http_port": int(http_address.rsplit(":", 1)[1]), "pid": os.getpid()}), flush=True)

    supervisor.run(on_serving=serving)


async def serve(settings: Settings, patch_tcp_nodelay: bool = False) -> None:
    app = Application(settings)
    if patch_tcp_nodelay:
        socket.socket = _TcpSocket  # type: ignore[misc]
    try:
        await app.start()
    finally:
        socket.socket = _ORIGINAL_SOCKET  # type: ignore[misc]
    settle_collector()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    print(json.dumps({"grpc_port": app.grpc_port, "http_port": app.http_port, "pid": os.getpid()}), flush=True)
    try:
        await stop.wait()
    finally:
        await app.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db-url", required=True)
    parser.add_argument("--data-dir", required=True, type=Path)
    parser.add_argument("--controllers", action="store_true", help="also run the reconcilers")
    parser.add_argument("--bootstrap", type=Path, help="catalogue seeded on an empty database")
    parser.add_argument("--simulator-speed", help="'instant' or a factor (default: the product's 60)")
    parser.add_argument("--patch-tcp-nodelay", action="store_true",
                        help="diagnostic: create the HTTP listener with IPPROTO_TCP (see above)")
    parser.add_argument("--workers", type=int, default=1, help="server processes on the same ports (PostgreSQL)")
    args = parser.parse_args()
    settings = bench_settings(args.db_url, args.data_dir, args.controllers, args.bootstrap, args.simulator_speed,
                              args.workers)
    if args.workers > 1:
        serve_workers(settings)
        return
    asyncio.run(serve(settings, args.patch_tcp_nodelay))


if __name__ == "__main__":
    main()
