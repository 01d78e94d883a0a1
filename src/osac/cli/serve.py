"""``osac serve``: settings from flags, environment and the ``--config`` file, then the server.

Flags win over the config file, which wins over the embedded defaults (``load_config`` merges
the file over them). The simulator speed goes into ``config["simulator"]["speed"]``
(``"instant"`` or a factor, default 60), where the simulator provider reads it.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import signal
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn

from osac.cli.errors import CliError
from osac.clock import Clock, FakeClock, SystemClock
from osac.server.settings import Settings, load_config

INSTANT = "instant"
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
#: Libraries whose INFO lines are noise at ``--log-level info``.
QUIET_LOGGERS = ("alembic", "aiosqlite", "sqlalchemy", "httpx", "uvicorn")
#: The garbage collector's thresholds once the server serves (``settle_collector``; CPython's
#: defaults are 700, 10, 10): a young collection every 20,000 allocations of tracked objects,
#: the middle one every 20 of those, a full one every 20 of the middle ones.
COLLECTOR_THRESHOLDS = (20_000, 20, 20)


def parse_speed(text: str) -> str | int | float:
    """``instant`` or a positive factor (``60``: a simulated minute per second).

    :raises CliError: anything else.
    """
    word = text.strip().lower()
    if word == INSTANT:
        return INSTANT
    try:
        speed = float(word)
    except ValueError:
        raise CliError(f"--simulator-speed '{text}': expected 'instant' or a positive number") from None
    if not speed > 0 or speed == float("inf"):
        raise CliError(f"--simulator-speed '{text}': expected 'instant' or a positive number")
    return int(speed) if speed.is_integer() else speed


def build_settings(
    *,
    data_dir: Path | None,
    db_url: str | None,
    grpc_address: str,
    http_address: str,
    run_controllers: bool,
    bootstrap: Path | None,
    workers: int = 1,
    serve_api: bool = True,
    config_file: Path | None,
    simulator_speed: str | None,
) -> Settings:
    """Settings from the flags over the ``--config`` file over the defaults; a flag left out
    (None) keeps the file's value.

    :raises CliError: an unreadable or malformed config file, or a bad speed.
    """
    try:
        config: dict[str, Any] = load_config(config_file)
    except (OSError, ValueError) as error:
        raise CliError(f"--config {config_file}: {error}") from error
    simulator = config.setdefault("simulator", {})
    if not isinstance(simulator, dict):
        raise CliError(f"--config {config_file}: 'simulator' must be a mapping")
    if simulator_speed is not None:
        simulator["speed"] = parse_speed(simulator_speed)
    if bootstrap is not None and not bootstrap.is_file():
        raise CliError(f"--bootstrap {bootstrap}: no such file")
    settings = Settings(
        db_url=db_url,
        grpc_address=grpc_address,
        http_address=http_address,
        run_controllers=run_controllers,
        serve_api=serve_api,
        workers=workers,
        bootstrap=bootstrap,
        config=config,
        clock=configured_clock(simulator),
    )
    if data_dir is not None:
        settings.data_dir = data_dir.expanduser()
    return settings


def configured_clock(simulator: dict[str, Any]) -> Clock:
    """``simulator.clock``: ``system`` (the default), or ``fake`` for scripted runs: a clock that
    stands still at ``simulator.clock_start`` (an RFC 3339 time; default: now) until
    ``osac simulator advance`` moves it.

    :raises CliError: another value, or a start that is not a time with a zone.
    """
    kind = simulator.get("clock", "system")
    if kind == "system":
        return SystemClock()
    if kind != "fake":
        raise CliError(f"simulator.clock: '{kind}' is not 'system' or 'fake'")
    start = simulator.get("clock_start")
    if start is None:
        return FakeClock(datetime.now(UTC))
    try:
        when = start if isinstance(start, datetime) else datetime.fromisoformat(str(start))
        return FakeClock(when)
    except ValueError:
        raise CliError(f"simulator.clock_start: '{start}' is not an RFC 3339 time with a zone, "
                       "e.g. 2026-01-01T00:00:00Z") from None


def configure_logging(level: str) -> None:
    numeric = logging.getLevelName(level.upper())
    if not isinstance(numeric, int):
        raise CliError(f"--log-level '{level}': expected debug, info, warning or error")
    logging.basicConfig(level=numeric, format=LOG_FORMAT, force=True)
    quiet_libraries(numeric)


def quiet_libraries(level: int) -> None:
    """Libraries log at WARNING and above unless ``level`` is DEBUG."""
    if level > logging.DEBUG:
        for name in QUIET_LOGGERS:
            logging.getLogger(name).setLevel(max(level, logging.WARNING))


def serve(settings: Settings, on_started: Callable[[], None] | None = None) -> None:
    """Run the server until Ctrl-C or SIGTERM, then stop it cleanly; with ``settings.workers``
    above 1, supervise that many server processes on the same ports instead (``workers.py``).
    ``on_started`` is called once the server serves.

    :raises CliError: the server could not start, or failed."""
    log = logging.getLogger("osac.serve")
    from osac.cli.workers import Supervisor, check_workers

    check_workers(settings)
    log.info("data directory %s", settings.data_dir)
    if settings.workers > 1:
        Supervisor(settings, logging.getLogger().getEffectiveLevel()).run()
        log.info("stopped")
        _exit_at_once()
    try:
        asyncio.run(_serve_until_signalled(settings, on_started))
    except KeyboardInterrupt:
        pass
    except (OSError, RuntimeError) as error:  # a port in use, an unwritable data directory
        raise CliError(f"cannot serve: {error}") from error
    except Exception as error:
        log.exception("the server failed")
        raise CliError(f"the server failed: {error}") from error
    log.info("stopped")
    _exit_at_once()


def settle_collector() -> None:
    """Once the process serves: take what it built to start out of the garbage collector's
    reach, and collect less often (docs/deploy.md "Garbage collection").

    What a server builds to start (modules, message descriptors, compiled statements, the
    catalogue: about 177,000 objects the collector tracks) lives as long as the process, yet
    every full collection walked all of it again: pauses of up to 120 ms with 1,000 watch
    streams, each one a stall of every request and stream of the process. ``gc.freeze`` moves
    them to a generation that is never collected; the thresholds then spread the young
    collections (each a few milliseconds) over more allocations."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)


def _exit_at_once() -> NoReturn:
    """End the process now that the server is stopped: its requests are drained, its tasks
    ended and its database connections closed, and the logs and stdio are flushed here. The
    interpreter's own finalization (grpc's C core, the collection of every module's objects)
    holds no data and took 0.4-1.5 s of a loaded machine, more than an idle stop's whole budget
    (docs/cli.md, ``osac serve``)."""
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


async def _serve_until_signalled(settings: Settings, on_started: Callable[[], None] | None = None) -> None:
    """``Application.serve_forever`` with a signal as the end: Ctrl-C or SIGTERM only sets an
    event, so a signal arriving while the server is still starting does not cancel ``start()``
    halfway (which would leave its gRPC server unstopped); the server stops once started."""
    from osac.server.app import Application

    application = Application(settings)
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for number in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(number, stopping.set)
    try:
        await application.start()
        settle_collector()
        if on_started is not None:
            on_started()
        await stopping.wait()
    finally:
        await application.stop()
