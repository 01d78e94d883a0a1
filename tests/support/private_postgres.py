"""A PostgreSQL server of a test's own (``initdb`` into the test's directory), which the test can
stop and start again: what a database restart does to a running ``osac serve``."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.support.server_process import free_port

BIN = Path("/usr/lib/postgresql/15/bin")


class PrivatePostgres:
    """In a directory of its own under the system's temporary directory (the postgres user
    cannot enter the test's, which belongs to root); ``remove`` deletes it."""

    def __init__(self) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="osac-pg-"))
        self.data = self.directory / "pgdata"
        self.port = free_port()
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    @staticmethod
    def available() -> bool:
        return (BIN / "initdb").exists() and (os.geteuid() != 0 or shutil.which("runuser") is not None)

    def _run(self, *command: str) -> None:
        # PostgreSQL refuses to run as root: as root, run it as the postgres user
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run([*prefix, *command], check=True, capture_output=True, timeout=60)

    def create(self) -> None:
        if os.geteuid() == 0:
            shutil.chown(self.directory, "postgres")
        self._run(str(BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres")
        self.start()

    def start(self) -> None:
        options = f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(str(BIN / "pg_ctl"), "-D", str(self.data), "-o", options, "-l", str(self.directory / "log"),
                  "-w", "start")

    def stop(self) -> None:
        self._run(str(BIN / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def remove(self) -> None:
        """Stop the server if it runs and delete its directory."""
        if (self.data / "postmaster.pid").exists():
            self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)
