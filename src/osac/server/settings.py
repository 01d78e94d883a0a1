"""Process settings of ``osac serve`` (flags, environment and the ``--config`` file)."""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from osac.clock import Clock, SystemClock
from osac.defaults import DEFAULT_GRPC_ADDRESS as DEFAULT_GRPC_ADDRESS
from osac.defaults import DEFAULT_HTTP_ADDRESS as DEFAULT_HTTP_ADDRESS
from osac.defaults import default_data_dir as default_data_dir

if TYPE_CHECKING:
    from osac.controllers.runtime.safety_nets import SafetyNets

DEFAULT_RETENTION = timedelta(hours=72)
#: How long lifecycle events are kept (api.md §11.13: 30 days).
DEFAULT_LIFECYCLE_RETENTION = timedelta(days=30)

#: The embedded default (simulator.md §8): every provider simulated, both network managers
#: registered. A ``--config`` file is merged over it key by key.
DEFAULT_CONFIG: dict[str, Any] = {
    "providers": {"cluster": "simulator", "compute": "simulator", "baremetal": "simulator"},
    "network_managers": [
        {"name": "sim-fabric", "kind": "fabric", "implementation": "simulator", "contract_version": "v1"},
        {"name": "sim-k8s", "kind": "k8s", "implementation": "simulator", "contract_version": "v1"},
    ],
    "simulator": {"speed": 60, "seed": 42, "clock": "system", "jitter": 0.1, "label_faults": False,
                  # bm-std-001 ... bm-std-012, with the interfaces of the bootstrap HostType bm-standard
                  "inventory": {"hosts": [{"prefix": "bm-std", "host_type": "bm-standard", "count": 12}]}},
    "networking": {"provider_retry_limit": 10, "cleanup_retry_limit": 10, "provider_call_timeout": 60,
                   "retry_backoff_seconds": 1.0},
}


def merge_config(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """``override`` over ``base``: mappings merge recursively, everything else replaces. The result
    shares nothing with either argument, so changing it never changes ``DEFAULT_CONFIG``."""
    merged = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_config(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


@dataclass
class Settings:
    data_dir: Path = field(default_factory=default_data_dir)
    db_url: str | None = None
    grpc_address: str = DEFAULT_GRPC_ADDRESS
    http_address: str = DEFAULT_HTTP_ADDRESS
    run_controllers: bool = True
    bootstrap: Path | None = None
    config: dict[str, Any] = field(default_factory=lambda: merge_config(DEFAULT_CONFIG, {}))
    retention: timedelta = DEFAULT_RETENTION
    lifecycle_retention: timedelta = DEFAULT_LIFECYCLE_RETENTION
    dev_issuer: bool = True
    clock: Clock = field(default_factory=SystemClock)
    #: Serve the gRPC API and the REST API and console (``osac controllers`` serves neither,
    #: only ``/healthz`` and ``/metrics`` on its HTTP address).
    serve_api: bool = True
    #: Share the listen ports with the other workers of ``osac serve --workers N`` (SO_REUSEPORT).
    reuse_port: bool = False
    #: API processes ``osac serve`` runs (``--workers``); more than one needs PostgreSQL.
    workers: int = 1
    #: Identity of this process for controller leases.
    process_name: str = field(default_factory=lambda: f"{os.uname().nodename}-{os.getpid()}")
    #: Real seconds a stopping process gives in-flight reconciles before cancelling them. A run
    #: can wait much longer (a provider call held by injected latency, on a fake clock for ever);
    #: a cancelled run is safe to cut short, since the next holder of the lease reconciles again.
    controller_stop_grace: float = 10.0

    @property
    def max_request_bytes(self) -> int:
        """The largest REST body and gRPC message received (``api.max_request_bytes``)."""
        from osac.services.core.limits import DEFAULT_MAX_REQUEST_BYTES

        value = self.config.get("api", {}).get("max_request_bytes", DEFAULT_MAX_REQUEST_BYTES)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1024:
            raise ValueError(f"api.max_request_bytes: {value!r} is not a number of bytes >= 1024")
        return value

    @property
    def watch_stall_seconds(self) -> float:
        """How long a Watch client may read nothing while events wait before its stream is
        ended (``api.watch_stall_seconds``)."""
        from osac.services.core.limits import DEFAULT_WATCH_STALL_SECONDS

        value = self.config.get("api", {}).get("watch_stall_seconds", DEFAULT_WATCH_STALL_SECONDS)
        if not isinstance(value, int | float) or isinstance(value, bool) or not 0 < value <= 3600:
            raise ValueError(f"api.watch_stall_seconds: {value!r} is not a number of seconds above 0, at most 3600")
        return float(value)

    @property
    def metrics_require_provider_admin(self) -> bool:
        """Whether ``/metrics`` answers provider admins only (``metrics.require_provider_admin``;
        off in the embedded default, whose listen address is loopback)."""
        section = self.config.get("metrics") or {}
        if not isinstance(section, dict):
            raise ValueError(f"metrics: {section!r} is not a mapping (e.g. metrics: {{require_provider_admin: true}})")
        value = section.get("require_provider_admin", False)
        if not isinstance(value, bool):
            raise ValueError(f"metrics.require_provider_admin: {value!r} is not true or false")
        return value

    @property
    def controller_shards(self) -> int:
        """How many shards the controllers of a deployment split every kind into
        (``controllers.shards``; the same in every process of the deployment)."""
        from osac.controllers.runtime.shards import DEFAULT_SHARDS, MAX_SHARDS

        value = self._controllers_section().get("shards", DEFAULT_SHARDS)
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_SHARDS:
            raise ValueError(f"controllers.shards: {value!r} is not a whole number from 1 to {MAX_SHARDS}")
        return value

    @property
    def controller_lease_ttl(self) -> timedelta:
        """How long a controller process's shard leases last unrenewed: how soon another process
        takes over the shards of one that died (``controllers.lease_ttl_seconds``)."""
        from osac.controllers.runtime.manager import DEFAULT_LEASE_TTL

        value = self._controllers_section().get("lease_ttl_seconds", DEFAULT_LEASE_TTL.total_seconds())
        if not isinstance(value, int | float) or isinstance(value, bool) or not 3 <= value <= 600:
            raise ValueError(f"controllers.lease_ttl_seconds: {value!r} is not a number of seconds from 3 to 600")
        return timedelta(seconds=value)

    @property
    def controller_safety_nets(self) -> SafetyNets:
        """The controllers' periodic looks that back up change notices
        (``controllers.safety_nets``, docs/controllers.md "Safety nets")."""
        from osac.controllers.runtime.safety_nets import SafetyNets

        return SafetyNets.from_section(self._controllers_section().get("safety_nets"))

    def _controllers_section(self) -> dict[str, Any]:
        section = self.config.get("controllers") or {}
        if not isinstance(section, dict):
            raise ValueError(f"controllers: {section!r} is not a mapping (e.g. controllers: {{shards: 16}})")
        return section

    def database_url(self) -> str:
        if self.db_url:
            return self.db_url
        from osac.store.engine import sqlite_url

        return sqlite_url(self.data_dir)


def load_config(path: Path | None) -> dict[str, Any]:
    """The effective configuration: the defaults, with the file (if any) merged over them."""
    if path is None:
        return merge_config(DEFAULT_CONFIG, {})
    with path.open() as handle:
        loaded = yaml.safe_load(handle) or {}
    if not isinstance(loaded, dict):
        raise ValueError(f"{path}: the configuration must be a YAML mapping")
    return merge_config(DEFAULT_CONFIG, loaded)
