"""Building the command line loads nothing heavy: ``osac --help`` and ``osac <command> --help``
import no gRPC, no server, no providers, no status rules and no API types (docs/cli.md
"Start-up"). Each case runs in a fresh interpreter and reads its ``sys.modules``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

#: Packages that ``--help`` must not load; a command imports them when it runs. (``create --help``
#: lists the per-kind options, declared with ``osac.model.kinds``, but loads no API type.)
HEAVY = ("grpc", "osac.server", "osac.providers", "osac.status", "osac.api", "osac.model.registry", "jwt", "httpx")

PROBE = """
import json, sys
from osac.cli.main import app
try:
    app(sys.argv[1:], prog_name="osac")
except SystemExit as end:
    code = end.code
print("\\n" + json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def loaded_by(*args: str) -> tuple[int, list[str]]:
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=60)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    return report["code"], report["modules"]


@pytest.mark.parametrize(
    "args",
    [
        ("--help",),
        ("get", "--help"),
        ("create", "--help"),
        ("describe", "--help"),
        ("serve", "--help"),
        ("login", "--help"),
        ("wait", "--help"),
        ("debug", "cluster-status", "--help"),
        ("simulator", "hosts", "--help"),
    ],
)
def test_help_loads_no_heavy_module(args: tuple[str, ...]) -> None:
    code, modules = loaded_by(*args)
    assert code == 0
    heavy = [name for name in modules if any(name == root or name.startswith(root + ".") for root in HEAVY)]
    assert heavy == []


def test_a_command_that_runs_loads_what_it_needs() -> None:
    """The probe can fail: running a command (here one that fails to reach a server) does load
    the gRPC channel and the API types."""
    code, modules = loaded_by("get", "subnets", "--address", "127.0.0.1:1", "--token", "x")
    assert code == 1
    assert "grpc" in modules
    assert "osac.model.registry" in modules
