"""How long the simulated HyperShift takes (simulator.md §3.1, §4, §8).

Durations are the table values at speed 1, optionally overridden per step by
``simulator.durations`` (``{cluster.3: 4m}``), multiplied by a jitter factor and divided by the
speed in effect when the step is scheduled (``instant``: 0). The jitter factor of a step is drawn
from its own random stream, seeded by (``simulator.seed``, object kind, object name, step), so it
depends neither on the order in which objects are processed nor on random ids, and a restarted
process draws the same value again.

Keys (``cluster.<row of §3.1>`` plus the rows the table leaves implicit):

==========================  =========  =================================================
``cluster.1``               5 s        HostedCluster / NodePool created
``cluster.2``               3 min      InfrastructureReady
``cluster.3``               6 min      KubeAPIServerAvailable, control-plane endpoint
``cluster.4``               1 min      Available
``cluster.5``               20 s       between two machine starts of one NodePool
``cluster.6``               2 min      machine infrastructure ready (virtual)
``cluster.6.baremetal``     8 min      machine infrastructure ready (bare-metal host)
``cluster.7``               2 min      node joined, once its port is active
``cluster.8``               0          NodePool ready after its last node
``cluster.9``               3 min      ClusterVersionSucceeding after all NodePools are ready
``cluster.removal``         1 min      per machine removed (scale-down, NodePool deletion)
``cluster.teardown.1``      5 s        deletionTimestamp set (offset from the delete call)
``cluster.teardown.2``      3 min      CloudResourcesDestroyed
``cluster.teardown.3``      5 min      NodePools gone
``cluster.teardown.4``      7 min      HostedClusterDestroyed
``cluster.teardown.5``      7.5 min    HostedCluster not found
==========================  =========  =================================================

Teardown keys are offsets from the delete call, as in the table; each teardown step is scheduled
after the previous one by the difference, so jitter never reorders them.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from osac.providers.simulator.runtime.context import Speed

PREFIX = "cluster."

DEFAULT_SECONDS: Mapping[str, float] = {
    "cluster.1": 5.0,
    "cluster.2": 180.0,
    "cluster.3": 360.0,
    "cluster.4": 60.0,
    "cluster.5": 20.0,
    "cluster.6": 120.0,
    "cluster.6.baremetal": 480.0,
    "cluster.7": 120.0,
    "cluster.8": 0.0,
    "cluster.9": 180.0,
    "cluster.removal": 60.0,
    "cluster.teardown.1": 5.0,
    "cluster.teardown.2": 180.0,
    "cluster.teardown.3": 300.0,
    "cluster.teardown.4": 420.0,
    "cluster.teardown.5": 450.0,
}
TEARDOWN_KEYS = tuple(f"cluster.teardown.{row}" for row in range(1, 6))

DEFAULT_JITTER = 0.1

_UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0}
_PART = re.compile(r"(\d+(?:\.\d+)?)([hms])")


def parse_duration(value: object) -> float:
    """Seconds of ``90``, ``"90"``, ``"30s"``, ``"4m"``, ``"1h"`` or ``"1m30s"``.

    :raises ValueError: a negative, non-finite or unreadable value.
    """
    if isinstance(value, bool):
        raise ValueError(f"'{value}' is not a duration such as 30s, 4m or 1h")
    if isinstance(value, int | float):
        seconds = float(value)
    elif isinstance(value, str):
        text = value.strip().lower()
        try:
            seconds = float(text)
        except ValueError:
            parts = _PART.findall(text)
            if not parts or "".join(number + unit for number, unit in parts) != text:
                raise ValueError(f"'{value}' is not a duration such as 30s, 4m or 1h") from None
            seconds = sum(float(number) * _UNITS[unit] for number, unit in parts)
    else:
        raise ValueError(f"'{value}' is not a duration such as 30s, 4m or 1h")
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"'{value}' is not a duration such as 30s, 4m or 1h")
    return seconds


@dataclass(frozen=True)
class ClusterSettings:
    """The cluster simulator's part of the ``simulator`` configuration section."""

    seconds: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_SECONDS))
    jitter: float = DEFAULT_JITTER
    label_faults: bool = False


def parse_cluster_settings(settings: Mapping[str, Any]) -> ClusterSettings:
    """Read ``durations`` (its ``cluster.*`` keys; other prefixes belong to other simulators),
    ``jitter`` (0 ≤ j < 1) and ``label_faults`` from the ``simulator`` section.

    :raises ValueError: naming the offending key, e.g. ``simulator.durations.cluster.12: unknown
        step; expected one of ...``.
    """
    durations = settings.get("durations") or {}
    if not isinstance(durations, Mapping):
        raise ValueError("simulator.durations: must be a mapping such as {cluster.3: 4m}")
    seconds = dict(DEFAULT_SECONDS)
    for key, value in durations.items():
        name = str(key)
        if not name.startswith(PREFIX):
            continue
        if name not in DEFAULT_SECONDS:
            raise ValueError(f"simulator.durations.{name}: unknown step; expected one of {', '.join(DEFAULT_SECONDS)}")
        try:
            seconds[name] = parse_duration(value)
        except ValueError as error:
            raise ValueError(f"simulator.durations.{name}: {error}") from None
    offsets = [seconds[key] for key in TEARDOWN_KEYS]
    if any(later < earlier for earlier, later in zip(offsets, offsets[1:], strict=False)):
        raise ValueError(
            "simulator.durations: cluster.teardown.1-5 are offsets from the delete call and must not "
            f"decrease ({', '.join(f'{o:g}s' for o in offsets)})")
    jitter = settings.get("jitter", DEFAULT_JITTER)
    if isinstance(jitter, bool) or not isinstance(jitter, int | float) or not 0 <= jitter < 1:
        raise ValueError(f"simulator.jitter: '{jitter}' is not a number from 0 up to (not including) 1")
    label_faults = settings.get("label_faults", False)
    if not isinstance(label_faults, bool):
        raise ValueError(f"simulator.label_faults: '{label_faults}' is not true or false")
    return ClusterSettings(seconds=seconds, jitter=float(jitter), label_faults=label_faults)


@dataclass(frozen=True)
class ClusterTiming:
    """Turns a table key into the delay of one concrete step."""

    speed: Speed
    seed: int
    settings: ClusterSettings = field(default_factory=ClusterSettings)

    def table_seconds(self, key: str) -> float:
        """The configured duration at speed 1, before jitter; teardown keys as chain deltas."""
        if key in TEARDOWN_KEYS:
            index = TEARDOWN_KEYS.index(key)
            previous = self.settings.seconds[TEARDOWN_KEYS[index - 1]] if index else 0.0
            return self.settings.seconds[key] - previous
        return self.settings.seconds[key]

    def jitter_factor(self, kind: str, name: str, step: str) -> float:
        """The step's factor in ``[1 - jitter, 1 + jitter]``, from its own seeded stream."""
        if self.settings.jitter == 0:
            return 1.0
        stream = random.Random(f"{self.seed}/{kind}/{name}/{step}")
        return stream.uniform(1 - self.settings.jitter, 1 + self.settings.jitter)

    def delay(self, key: str, *, kind: str, name: str, step: str) -> timedelta:
        """The delay of ``step`` of object ``kind``/``name`` for table ``key`` at the current speed."""
        base = self.table_seconds(key)
        if base == 0:
            return timedelta(0)
        seconds = self.speed.scale(base * self.jitter_factor(kind, name, step))
        return timedelta(microseconds=round(seconds * 1_000_000))
