"""The VM and host simulators' part of the ``simulator`` configuration section (simulator.md §8,
compute.md §4).

```yaml
simulator:
  jitter: 0.1                  # shared with the cluster simulator: ±10 % per step
  inventory:
    hosts:
    - {prefix: bm-std, host_type: bm-standard, count: 12}   # bm-std-001 ... bm-std-012
```

Host interfaces are not configured here: each host takes the interface list of its HostType
object, which the server reads once the bootstrap catalogue is seeded.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from osac.providers.simulator.runtime.step_timing import DEFAULT_JITTER

#: Host names are ``<prefix>-<nnn>``: the prefix is an RFC 1123 label short enough to leave room.
PREFIX_PATTERN = re.compile(r"^[a-z0-9]([-a-z0-9]{0,48}[a-z0-9])?$")
MAX_HOSTS_PER_ENTRY = 9999


@dataclass(frozen=True)
class InventoryEntry:
    """``count`` hosts of ``host_type`` named ``<prefix>-001`` onwards."""

    prefix: str
    host_type: str
    count: int


@dataclass(frozen=True)
class ComputeSettings:
    jitter: float = DEFAULT_JITTER
    inventory: tuple[InventoryEntry, ...] = ()


def parse_compute_settings(settings: Mapping[str, Any]) -> ComputeSettings:
    """Read ``jitter`` and ``inventory.hosts`` from the ``simulator`` section.

    :raises ValueError: naming the offending key, e.g.
        ``simulator.inventory.hosts[1].count: must be a whole number from 0 to 9999``.
    """
    jitter = settings.get("jitter", DEFAULT_JITTER)
    if isinstance(jitter, bool) or not isinstance(jitter, int | float) or not 0 <= jitter < 1:
        raise ValueError(f"simulator.jitter: '{jitter}' is not a number from 0 up to (not including) 1")
    inventory = settings.get("inventory") or {}
    if not isinstance(inventory, Mapping):
        raise ValueError("simulator.inventory: must be a mapping with 'hosts'")
    unknown = sorted(str(key) for key in inventory if key != "hosts")
    if unknown:
        raise ValueError(f"simulator.inventory: unknown key(s) {', '.join(unknown)}; expected hosts")
    return ComputeSettings(jitter=float(jitter), inventory=tuple(parse_inventory(inventory.get("hosts") or [])))


def parse_inventory(entries: Any) -> list[InventoryEntry]:
    """The ``simulator.inventory.hosts`` list, checked entry by entry."""
    where = "simulator.inventory.hosts"
    if isinstance(entries, str) or not isinstance(entries, Sequence):
        raise ValueError(f"{where}: must be a list of {{prefix, host_type, count}}")
    parsed: list[InventoryEntry] = []
    prefixes: set[str] = set()
    for index, entry in enumerate(entries):
        at = f"{where}[{index}]"
        if not isinstance(entry, Mapping):
            raise ValueError(f"{at}: must be a mapping {{prefix, host_type, count}}")
        unknown = sorted(str(key) for key in entry if key not in ("prefix", "host_type", "count"))
        if unknown:
            raise ValueError(f"{at}: unknown key(s) {', '.join(unknown)}; expected prefix, host_type, count")
        prefix = entry.get("prefix")
        if not isinstance(prefix, str) or not PREFIX_PATTERN.match(prefix):
            raise ValueError(f"{at}.prefix: '{prefix}' is not a lowercase name of letters, digits and '-' "
                             "(at most 50 characters)")
        if prefix in prefixes:
            raise ValueError(f"{at}.prefix: '{prefix}' is used by an earlier entry")
        prefixes.add(prefix)
        host_type = entry.get("host_type")
        if not isinstance(host_type, str) or not host_type:
            raise ValueError(f"{at}.host_type: required; the name of a HostType")
        count = entry.get("count")
        if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_HOSTS_PER_ENTRY:
            raise ValueError(f"{at}.count: must be a whole number from 0 to {MAX_HOSTS_PER_ENTRY}")
        parsed.append(InventoryEntry(prefix, host_type, count))
    return parsed
