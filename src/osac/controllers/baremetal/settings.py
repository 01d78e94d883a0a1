"""The timing and defaults of bare-metal provisioning (compute.md §3.2, §3.3), from the optional
``baremetal`` section of the configuration.

Every value defaults to the spec's; a deployment with slow hardware (or a test that does not want
to wait minutes of real time) may change them::

    baremetal:
      default_image: https://images.example/rhel-9.4-x86_64.qcow2   # when spec.image is empty
      host_wait_backoff: 30s          # no free host: first wait, doubling ...
      host_wait_backoff_max: 5m       # ... up to this, forever
      networking_retry_backoff: 2s    # transient fabric errors: first wait, doubling ...
      networking_retry_backoff_max: 30s
      networking_budget_per_interface: 2m
      provisioning_attempts: 3        # provision_host failures before ProvisioningFailed
      provisioning_retry_backoff: 5s
      lease_poll_interval: 5s
      ip_discovery_timeout: 5m
      restart_timeout: 15m
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from osac.controllers.runtime.retry import RetryPolicy
from osac.status.baremetal.gates import (
    HOST_WAIT_BACKOFF,
    IP_DISCOVERY_TIMEOUT_AFTER,
    LEASE_POLL_INTERVAL,
    NETWORKING_BUDGET_PER_INTERFACE,
    NETWORKING_RETRY_BACKOFF,
    PROVISIONING_ATTEMPTS,
)
from osac.status.baremetal.views import DEFAULT_RESTART_TIMEOUT
from osac.status.clusters.thresholds import parse_threshold

SECTION = "baremetal"
#: Deployed when an instance names no image: a generic cloud image of the simulated hardware.
DEFAULT_IMAGE = "https://images.osac.example/rhel-9-x86_64-generic.qcow2"


@dataclass(frozen=True)
class BareMetalSettings:
    default_image: str = DEFAULT_IMAGE
    host_wait: RetryPolicy = RetryPolicy(*HOST_WAIT_BACKOFF)
    networking_retry: RetryPolicy = RetryPolicy(*NETWORKING_RETRY_BACKOFF)
    networking_budget_per_interface: timedelta = NETWORKING_BUDGET_PER_INTERFACE
    provisioning_attempts: int = PROVISIONING_ATTEMPTS
    provisioning_retry: RetryPolicy = RetryPolicy(timedelta(seconds=5), timedelta(seconds=60))
    lease_poll_interval: timedelta = LEASE_POLL_INTERVAL
    ip_discovery_timeout: timedelta = IP_DISCOVERY_TIMEOUT_AFTER
    restart_timeout: timedelta = DEFAULT_RESTART_TIMEOUT

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> BareMetalSettings:
        """From the whole configuration mapping (its ``baremetal`` section, if any).

        :raises ValueError: an unknown key or an invalid value; the message names the key."""
        section = config.get(SECTION)
        if section is None:
            return cls()
        if not isinstance(section, Mapping):
            raise ValueError(f"{SECTION} must be a mapping")
        unknown = sorted(set(section) - set(_KEYS))
        if unknown:
            raise ValueError(f"{SECTION}: unknown key(s) {', '.join(map(str, unknown))}; expected {', '.join(_KEYS)}")
        defaults = cls()

        def duration(key: str, default: timedelta) -> timedelta:
            value = section.get(key)
            return default if value is None else parse_threshold(value, f"{SECTION}.{key}")

        def retry(key: str, max_key: str | None, default: RetryPolicy) -> RetryPolicy:
            """A first wait doubling up to a cap (the cap of ``default`` without ``max_key``)."""
            base = duration(key, default.base)
            cap = default.cap if max_key is None else duration(max_key, default.cap)
            if base <= timedelta(0) or cap < base:
                named = f"{SECTION}.{key}" + ("" if max_key is None else f" and {SECTION}.{max_key}")
                raise ValueError(f"{named}: the first wait must be above 0 and at most the longest ({cap})")
            return RetryPolicy(base, cap)

        image = section.get("default_image", defaults.default_image)
        if not isinstance(image, str) or not image.strip():
            raise ValueError(f"{SECTION}.default_image must be a non-empty image URL")
        attempts = section.get("provisioning_attempts", defaults.provisioning_attempts)
        if not isinstance(attempts, int) or isinstance(attempts, bool) or attempts < 1:
            raise ValueError(f"{SECTION}.provisioning_attempts must be a whole number of at least 1")
        return cls(
            default_image=image.strip(),
            host_wait=retry("host_wait_backoff", "host_wait_backoff_max", defaults.host_wait),
            networking_retry=retry("networking_retry_backoff", "networking_retry_backoff_max",
                                   defaults.networking_retry),
            networking_budget_per_interface=duration("networking_budget_per_interface",
                                                     defaults.networking_budget_per_interface),
            provisioning_attempts=attempts,
            provisioning_retry=retry("provisioning_retry_backoff", None, defaults.provisioning_retry),
            lease_poll_interval=duration("lease_poll_interval", defaults.lease_poll_interval),
            ip_discovery_timeout=duration("ip_discovery_timeout", defaults.ip_discovery_timeout),
            restart_timeout=duration("restart_timeout", defaults.restart_timeout),
        )


_KEYS = (
    "default_image", "host_wait_backoff", "host_wait_backoff_max", "networking_retry_backoff",
    "networking_retry_backoff_max", "networking_budget_per_interface", "provisioning_attempts",
    "provisioning_retry_backoff", "lease_poll_interval", "ip_discovery_timeout", "restart_timeout",
)
