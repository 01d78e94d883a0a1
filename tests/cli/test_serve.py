"""``osac serve`` as a real process: it prints where it listens, answers the CLI, stops on Ctrl-C."""

from __future__ import annotations

import queue
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from osac.cli.errors import CliError
from osac.cli.serve import build_settings, parse_speed
from osac.clock import FakeClock, SystemClock
from osac.server.settings import Settings, load_config

from .conftest import Osac, table

LISTENING = re.compile(r"gRPC listening on (127\.0\.0\.1:\d+)")
STARTUP_SECONDS = 60.0


class ServeProcess:
    def __init__(self, data_dir: Path, *extra: str) -> None:
        command = [
            sys.executable, "-c", "from osac.cli.main import app; app()", "serve",
            "--data-dir", str(data_dir), "--grpc-address", "127.0.0.1:0", "--http-address", "127.0.0.1:0",
            "--no-controllers", *extra,
        ]
        # no preexec_fn: Python code in a forked child of this multi-threaded process (gRPC's threads
        # of earlier tests) can abort before the exec; the server sets its own SIGINT handler
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        self.log: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def wait_for(self, pattern: re.Pattern[str]) -> re.Match[str]:
        while True:
            try:
                line = self.lines.get(timeout=STARTUP_SECONDS)
            except queue.Empty:
                raise AssertionError(f"osac serve printed no {pattern.pattern!r}:\n{''.join(self.log)}") from None
            self.log.append(line)
            found = pattern.search(line)
            if found:
                return found

    def interrupt(self) -> int:
        self.process.send_signal(signal.SIGINT)
        return self.finish()

    def finish(self) -> int:
        """Wait for the process to end; its whole output is then in ``log``."""
        code = self.process.wait(STARTUP_SECONDS)
        self.reader.join(STARTUP_SECONDS)
        while not self.lines.empty():
            self.log.append(self.lines.get())
        return code


@pytest.fixture
def serve_process(tmp_path: Path) -> Iterator[ServeProcess]:
    running = ServeProcess(tmp_path / "data", "--simulator-speed", "instant")
    yield running
    if running.process.poll() is None:
        running.process.kill()
        running.process.wait()


def test_serve_answers_the_cli_and_stops_cleanly_on_ctrl_c(serve_process: ServeProcess, tmp_path: Path) -> None:
    address = serve_process.wait_for(LISTENING).group(1)
    serve_process.wait_for(re.compile(r"HTTP listening on 127\.0\.0\.1:\d+"))
    osac = Osac(server=None, config_file=tmp_path / "osac.yaml", runner=CliRunner())  # type: ignore[arg-type]
    osac.ok("login", address, "--dev", "--role", "tenant-user", "--data-dir", str(tmp_path / "data"))

    assert "the server accepts the token" in osac.ok("whoami")
    assert {row["NAME"] for row in table(osac.ok("get", "host_types"))} == {"vm-standard", "bm-standard"}

    assert serve_process.interrupt() == 0
    log = "".join(serve_process.log)
    assert "Traceback" not in log
    assert log.rstrip().endswith("INFO osac.serve: stopped")


def test_serve_sets_what_it_built_to_start_out_of_the_collectors_reach(serve_process: ServeProcess) -> None:
    """Once it serves, the modules, descriptors and statements it built to start are frozen
    (never scanned again by a full collection) and ``/metrics`` says how many."""
    address = serve_process.wait_for(re.compile(r"HTTP listening on (127\.0\.0\.1:\d+)")).group(1)
    metrics = httpx.get(f"http://{address}/metrics", timeout=10)
    assert metrics.status_code == 200
    frozen = re.search(r"^osac_gc_frozen_objects ([0-9.e+]+)$", metrics.text, re.MULTILINE)
    assert frozen is not None, metrics.text[:500]
    # About 177,000 on CPython 3.11; what the imports and the catalogue alone make is far above 50,000.
    assert float(frozen.group(1)) > 50_000
    assert serve_process.interrupt() == 0


def test_serve_reports_a_bad_config_file(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("- not a mapping\n")
    process = ServeProcess(tmp_path / "data", "--config", str(tmp_path / "config.yaml"))

    code = process.finish()
    output = "".join(process.log)

    assert code == 1
    assert "Error: --config" in output and "must be a YAML mapping" in output
    assert "Traceback" not in output


def test_settings_from_flags_over_the_config_file(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("simulator: {speed: 5, seed: 7}\n")

    def settings_with(speed: str | None) -> Settings:
        return build_settings(
            data_dir=tmp_path / "data", db_url=None, grpc_address="127.0.0.1:1", http_address="127.0.0.1:2",
            run_controllers=False, bootstrap=None, config_file=tmp_path / "config.yaml", simulator_speed=speed,
        )

    settings = settings_with("instant")

    assert settings.config["simulator"]["speed"] == "instant"
    assert settings.config["simulator"]["seed"] == 7
    assert settings_with(None).config["simulator"]["speed"] == 5  # the file's, when the flag is left out
    assert load_config(None)["simulator"]["speed"] == 60  # the default
    assert (settings.data_dir, settings.grpc_address, settings.http_address, settings.run_controllers) == (
        tmp_path / "data", "127.0.0.1:1", "127.0.0.1:2", False,
    )


@pytest.mark.parametrize(("text", "speed"), [("instant", "instant"), ("INSTANT", "instant"), ("60", 60), ("0.5", 0.5)])
def test_simulator_speeds(text: str, speed: str | float) -> None:
    assert parse_speed(text) == speed


@pytest.mark.parametrize("text", ["0", "-2", "fast", "", "nan", "inf"])
def test_bad_simulator_speeds(text: str) -> None:
    with pytest.raises(CliError, match="expected 'instant' or a positive number"):
        parse_speed(text)


def test_a_fake_clock_from_the_config_file(tmp_path: Path) -> None:
    def clock_of(simulator: str) -> object:
        (tmp_path / "config.yaml").write_text(f"simulator: {simulator}\n")
        return build_settings(
            data_dir=tmp_path / "data", db_url=None, grpc_address="127.0.0.1:1", http_address="127.0.0.1:2",
            run_controllers=False, bootstrap=None, config_file=tmp_path / "config.yaml", simulator_speed=None,
        ).clock

    fake = clock_of("{clock: fake, clock_start: '2026-03-02T09:00:00Z'}")
    assert isinstance(fake, FakeClock) and fake.now() == datetime(2026, 3, 2, 9, tzinfo=UTC)
    assert isinstance(clock_of("{clock: system}"), SystemClock)
    with pytest.raises(CliError, match="simulator.clock: 'wall' is not 'system' or 'fake'"):
        clock_of("{clock: wall}")
    with pytest.raises(CliError, match="simulator.clock_start: '2026-03-02 09:00' is not an RFC 3339 time with a zone"):
        clock_of("{clock: fake, clock_start: '2026-03-02 09:00'}")


def test_a_flag_never_changes_the_defaults(tmp_path: Path) -> None:
    """``--simulator-speed`` without a config file changes the effective configuration only."""
    build_settings(
        data_dir=tmp_path / "data", db_url=None, grpc_address="127.0.0.1:1", http_address="127.0.0.1:2",
        run_controllers=False, bootstrap=None, config_file=None, simulator_speed="instant",
    )
    assert load_config(None)["simulator"]["speed"] == 60
