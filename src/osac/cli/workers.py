"""``osac serve --workers N``: N server processes sharing the gRPC and HTTP ports, supervised.

The parent process serves nothing itself. It starts worker 1 and waits until it is serving (it
migrates the database and seeds an empty one, so no two processes race for that), then starts
the others. Each worker is a whole ``osac serve`` (API, controllers, simulator) bound to the same
ports with SO_REUSEPORT, so the kernel spreads new connections over them; the controllers split
their work by shard leases, and the workers' commits wake each other over PostgreSQL
LISTEN/NOTIFY. Nothing is shared but the database.

A worker that dies is started again (after 1 s, doubling to at most 30 s while it keeps dying
within a minute of its start). SIGTERM or Ctrl-C to the parent stops every worker cleanly
(each drains as a single ``osac serve`` does) and then the parent.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import signal
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from osac.cli.errors import CliError
from osac.clock import FakeClock
from osac.server.settings import Settings

log = logging.getLogger("osac.serve")

#: The most workers ``--workers`` accepts.
MAX_WORKERS = 64
#: Seconds a worker has to start (migrations included) before the start counts as failed.
START_TIMEOUT = 120.0
#: Seconds the workers get to stop after SIGTERM before they are killed.
STOP_TIMEOUT = 20.0
RESTART_DELAY = 1.0
MAX_RESTART_DELAY = 30.0
#: A worker that ran this long before dying is restarted after the first delay again.
STABLE_SECONDS = 60.0


def check_workers(settings: Settings) -> None:
    """:raises CliError: a worker count the deployment cannot run."""
    workers = settings.workers
    postgres = settings.database_url().startswith("postgresql")
    if not settings.serve_api and not postgres:
        raise CliError("osac controllers shares the work with the other processes of a PostgreSQL deployment "
                       "(--db-url postgresql+psycopg://...); with the embedded SQLite database run osac serve")
    if not 1 <= workers <= MAX_WORKERS:
        raise CliError(f"--workers {workers}: expected a number from 1 to {MAX_WORKERS}")
    if workers == 1:
        return
    if not postgres:
        raise CliError(f"--workers {workers}: several processes need PostgreSQL (--db-url "
                       "postgresql+psycopg://...); the embedded SQLite database has one writer and serves one process")
    if isinstance(settings.clock, FakeClock):
        raise CliError(f"--workers {workers}: simulator.clock 'fake' is one process's clock; "
                       "use the system clock with several workers")


@dataclass
class _Worker:
    number: int
    process: BaseProcess
    started_at: float
    failures: int = 0


def _resolved(address: str, holders: list[socket.socket]) -> str:
    """``address`` with port 0 replaced by a free port, reserved by a socket kept in ``holders``
    until every worker has bound it (SO_REUSEPORT, so the workers can join it)."""
    host, _, port = address.rpartition(":")
    if port != "0":
        return address
    bare = host.strip("[]")
    sock = socket.socket(socket.AF_INET6 if ":" in bare else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((bare, 0))
    holders.append(sock)
    return f"{host}:{sock.getsockname()[1]}"


def _check_free(address: str) -> None:
    """:raises CliError: something already listens on ``address``'s port (another server must not
    silently share it)."""
    host, _, port = address.rpartition(":")
    bare = host.strip("[]")
    with socket.socket(socket.AF_INET6 if ":" in bare else socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind((bare, int(port)))
        except OSError as error:
            raise CliError(f"cannot serve on {address}: {error.strerror}") from None


class Supervisor:
    """Starts, restarts and stops the workers of one ``osac serve --workers N``."""

    def __init__(self, settings: Settings, log_level: int) -> None:
        self._holders: list[socket.socket] = []
        grpc_address = _resolved(settings.grpc_address, self._holders)
        http_address = _resolved(settings.http_address, self._holders)
        for address, given in ((grpc_address, settings.grpc_address), (http_address, settings.http_address)):
            if address == given:
                _check_free(address)
        self._settings = replace(settings, grpc_address=grpc_address, http_address=http_address, reuse_port=True)
        self._log_level = log_level
        self._context = multiprocessing.get_context("spawn")
        self._workers: dict[int, _Worker] = {}
        self._stopping = False

    def run(self, on_serving: Callable[[str, str], None] | None = None) -> None:
        """Serve until SIGTERM or SIGINT; then stop the workers and return. ``on_serving(grpc
        address, http address)`` is called once every worker serves."""
        previous = {number: signal.signal(number, self._stop) for number in (signal.SIGTERM, signal.SIGINT)}
        try:
            self._start(1)
            for number in range(2, self._settings.workers + 1):
                if not self._stopping:
                    self._start(number)
            for holder in self._holders:
                holder.close()
            if not self._stopping:
                log.info("serving with %d workers: gRPC on %s, HTTP on %s", len(self._workers),
                         self._settings.grpc_address, self._settings.http_address)
                if on_serving is not None:
                    on_serving(self._settings.grpc_address, self._settings.http_address)
            while not self._stopping:
                self._restart_the_dead()
                time.sleep(0.2)
        finally:
            self._stop_all()
            for number, handler in previous.items():
                signal.signal(number, handler)

    def _stop(self, *_: Any) -> None:
        self._stopping = True

    def _start(self, number: int, failures: int = 0) -> None:
        """Start worker ``number`` and wait until it serves (or fails).

        :raises CliError: worker 1 failed to start (nothing could serve)."""
        receiver, sender = self._context.Pipe(duplex=False)
        process = self._context.Process(target=run_worker, args=(self._settings, number, self._log_level, sender),
                                        name=f"osac worker {number}", daemon=False)
        process.start()
        sender.close()
        self._workers[number] = _Worker(number, process, time.monotonic(), failures)
        if not _wait_ready(receiver, process, START_TIMEOUT, lambda: self._stopping):
            if number == 1 and failures == 0:
                raise CliError(f"worker 1 did not start (exit code {process.exitcode}); see its log above")
            log.error("worker %d did not start (exit code %s)", number, process.exitcode)

    def _restart_the_dead(self) -> None:
        for worker in list(self._workers.values()):
            if worker.process.is_alive() or self._stopping:
                continue
            lived = time.monotonic() - worker.started_at
            failures = 1 if lived >= STABLE_SECONDS else worker.failures + 1
            delay = min(MAX_RESTART_DELAY, RESTART_DELAY * 2 ** (failures - 1))
            log.error("worker %d (pid %s) ended with exit code %s after %.0f s; starting it again in %.0f s",
                      worker.number, worker.process.pid, worker.process.exitcode, lived, delay)
            deadline = time.monotonic() + delay
            while time.monotonic() < deadline and not self._stopping:
                time.sleep(0.1)
            if not self._stopping:
                self._start(worker.number, failures)

    def _stop_all(self) -> None:
        workers = [worker for worker in self._workers.values() if worker.process.is_alive()]
        for worker in workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(worker.process.pid or 0, signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT
        for worker in workers:
            worker.process.join(max(0.0, deadline - time.monotonic()))
            if worker.process.is_alive():
                log.warning("worker %d did not stop within %.0f s; killing it", worker.number, STOP_TIMEOUT)
                worker.process.kill()
                worker.process.join(5)


def _wait_ready(receiver: Connection, process: BaseProcess, timeout: float, stopping: Any) -> bool:
    """Whether the worker said it serves within ``timeout`` (False: it died, or we are stopping)."""
    deadline = time.monotonic() + timeout
    with receiver:
        while time.monotonic() < deadline and not stopping():
            if receiver.poll(0.1):
                try:
                    return bool(receiver.recv() == "ready")
                except EOFError:
                    return False
            if not process.is_alive():
                return False
    return False


def run_worker(settings: Settings, number: int, log_level: int, ready: Connection) -> None:
    """A worker process: one ``osac serve`` on the shared ports, then ``ready`` is told it serves."""
    from osac.cli import serve as serving

    logging.basicConfig(level=log_level, format=f"%(asctime)s %(levelname)s [worker {number}] %(name)s: %(message)s",
                        force=True)
    serving.quiet_libraries(log_level)
    settings = replace(settings, workers=1, process_name=f"{os.uname().nodename}-{os.getpid()}")

    def started() -> None:
        with contextlib.suppress(OSError):
            ready.send("ready")
            ready.close()

    serving.serve(settings, on_started=started)
