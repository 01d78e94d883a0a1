"""Defaults that ``osac serve`` and its clients must agree on: where the control plane listens
and where a process keeps its data (the SQLite file, the development issuer's key).

They live beside the clock, below every layer, so the CLI names the server's defaults without
loading the server: ``osac`` connects to ``DEFAULT_GRPC_ADDRESS`` unless told otherwise, and
``osac token`` signs with the key ``osac serve`` on the same data directory trusts.
"""

import os
from pathlib import Path

DEFAULT_GRPC_ADDRESS = "127.0.0.1:8000"
DEFAULT_HTTP_ADDRESS = "127.0.0.1:8001"
#: ``/healthz`` and ``/metrics`` of an ``osac controllers`` process.
DEFAULT_CONTROLLERS_HTTP_ADDRESS = "127.0.0.1:8002"


def default_data_dir() -> Path:
    """``$OSAC_DATA_DIR``, else ``$XDG_DATA_HOME/osac``, else ``~/.local/share/osac``."""
    configured = os.environ.get("OSAC_DATA_DIR")
    if configured:
        return Path(configured).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "osac"
