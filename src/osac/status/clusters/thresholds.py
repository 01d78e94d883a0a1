"""Stall thresholds and the node-set progress reasons: the tunable part of cluster status.

Both come from the ``cluster_status`` section of the configuration file::

    cluster_status:
      stall_thresholds: {WorkersJoining: 20m, ControlPlaneStarting: 1800}   # text or seconds
      host_type_overrides: {bm-h100: {WorkersJoining: 60m}}                  # WorkersJoining, Scaling
      progress_reasons: [NotFound, WaitingForNodeRef, ...]                   # replaces the default set

Thresholds given merge over the defaults of cluster-status.md §9.1; a stage or host type left out
keeps its default. Mistakes (an unknown stage, a zero or unreadable duration) are rejected when
the configuration is loaded, naming the key, rather than silently disabling stall detection.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from types import MappingProxyType
from typing import Any, ClassVar

from osac.status.clusters.terms import (
    CONTROL_PLANE_STARTING,
    DESTROYING_CLOUD_RESOURCES,
    DESTROYING_CONTROL_PLANE,
    NODE_SET_STAGES,
    PREPARING_INFRASTRUCTURE,
    SCALING,
    STAGES,
    WORKERS_JOINING,
)

#: The threshold of a stage that has none (a token a newer version added): it never stalls.
NEVER = timedelta.max

DEFAULT_STALL_THRESHOLDS: Mapping[str, timedelta] = MappingProxyType({
    PREPARING_INFRASTRUCTURE: timedelta(minutes=15),
    CONTROL_PLANE_STARTING: timedelta(minutes=30),
    WORKERS_JOINING: timedelta(minutes=20),
    SCALING: timedelta(minutes=20),
    DESTROYING_CLOUD_RESOURCES: timedelta(minutes=20),
    DESTROYING_CONTROL_PLANE: timedelta(minutes=15),
})

#: NodePool reasons that mean "not there yet" rather than "broken" (§8.3).
DEFAULT_PROGRESS_REASONS: frozenset[str] = frozenset({
    "NotFound",
    "WaitingForNodeRef",
    "NodeProvisioning",
    "WaitingForInfrastructure",
    "WaitingForBootstrapData",
    "WaitingForAvailableMachines",
    "ScalingUp",
    "ScalingDown",
    "AsExpected",
})

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)([hms])")
_UNIT_SECONDS = {"h": 3600, "m": 60, "s": 1}


@dataclass(frozen=True)
class StallThresholds:
    """How long each stage may take before it is reported ``Stalled`` (§9.1), and which False
    NodePool reasons count as progress rather than failure (§8.3).

    The progress reasons travel with the thresholds because both are the operator's judgement of
    what "slow but fine" looks like, configured together and applied at the next derivation."""

    per_stage: Mapping[str, timedelta] = field(default_factory=lambda: DEFAULT_STALL_THRESHOLDS)
    host_type_overrides: Mapping[str, Mapping[str, timedelta]] = field(default_factory=lambda: MappingProxyType({}))
    progress_reasons: frozenset[str] = DEFAULT_PROGRESS_REASONS

    DEFAULT: ClassVar[StallThresholds]

    def __post_init__(self) -> None:
        # Callers may pass plain dicts; a private read-only copy keeps the value frozen in fact.
        object.__setattr__(self, "per_stage", MappingProxyType(dict(self.per_stage)))
        object.__setattr__(self, "host_type_overrides", MappingProxyType(
            {host_type: MappingProxyType(dict(stages)) for host_type, stages in self.host_type_overrides.items()}
        ))
        object.__setattr__(self, "progress_reasons", frozenset(self.progress_reasons))

    def __reduce__(self) -> tuple[type[StallThresholds], tuple[Any, ...]]:
        # A read-only mapping cannot be pickled; rebuild from plain copies (copy, deepcopy, pickle).
        overrides = {host_type: dict(stages) for host_type, stages in self.host_type_overrides.items()}
        return (StallThresholds, (dict(self.per_stage), overrides, self.progress_reasons))

    def with_host_type_ids(self, names: Mapping[str, str]) -> StallThresholds:
        """These thresholds with the overrides of each host type also under its id (``names``:
        id -> name), for node sets that reference their host type by id as stored clusters do.
        Overrides are configured by name."""
        by_id = {host_type_id: self.host_type_overrides[name] for host_type_id, name in names.items()
                 if name in self.host_type_overrides}
        if not by_id:
            return self
        return StallThresholds(self.per_stage, {**self.host_type_overrides, **by_id}, self.progress_reasons)

    def for_stage(self, stage: str, host_types: Iterable[str]) -> timedelta:
        """The threshold of ``stage``. For ``WorkersJoining`` and ``Scaling``, ``host_types`` are
        those of the node sets not READY yet: the slowest of them sets the pace, so the largest
        override (or the stage default) wins; with none the default applies."""
        base = self.per_stage.get(stage, NEVER)
        if stage not in NODE_SET_STAGES:
            return base
        chosen = [self.host_type_overrides.get(host_type, {}).get(stage, base) for host_type in host_types]
        return max(chosen, default=base)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> StallThresholds:
        """From the whole configuration mapping (its ``cluster_status`` section, if any).

        :raises ValueError: a value of the section is invalid; the message names the key."""
        return cls.from_section(config.get("cluster_status"))

    @classmethod
    def from_section(cls, section: Mapping[str, Any] | None) -> StallThresholds:
        """From the ``cluster_status`` section itself; keys other than the three above are left
        to their owners.

        :raises ValueError: a value of the section is invalid; the message names the key."""
        if section is None:
            return cls.DEFAULT
        if not isinstance(section, Mapping):
            raise ValueError("cluster_status must be a mapping")
        per_stage = dict(DEFAULT_STALL_THRESHOLDS)
        for stage, value in _mapping(section, "stall_thresholds", "cluster_status.stall_thresholds").items():
            key = f"cluster_status.stall_thresholds.{stage}"
            if stage not in STAGES:
                raise ValueError(f"{key}: unknown stage; use one of {', '.join(STAGES)}")
            per_stage[stage] = parse_threshold(value, key)
        overrides: dict[str, Mapping[str, timedelta]] = {}
        where = "cluster_status.host_type_overrides"
        for host_type, stages in _mapping(section, "host_type_overrides", where).items():
            by_stage: dict[str, timedelta] = {}
            for stage, value in _mapping({host_type: stages}, host_type, f"{where}.{host_type}").items():
                key = f"{where}.{host_type}.{stage}"
                if stage not in NODE_SET_STAGES:
                    raise ValueError(f"{key}: only {' and '.join(sorted(NODE_SET_STAGES))} can be overridden per host type")
                by_stage[stage] = parse_threshold(value, key)
            overrides[str(host_type)] = MappingProxyType(by_stage)
        reasons = section.get("progress_reasons")
        if reasons is None:
            progress = DEFAULT_PROGRESS_REASONS
        elif isinstance(reasons, list | tuple) and all(isinstance(r, str) and r for r in reasons):
            progress = frozenset(reasons)
        else:
            raise ValueError("cluster_status.progress_reasons must be a list of reason tokens")
        return cls(MappingProxyType(per_stage), MappingProxyType(overrides), progress)


StallThresholds.DEFAULT = StallThresholds()


def parse_threshold(value: Any, key: str) -> timedelta:
    """``20m``, ``1h30m``, ``90s``, ``1.5h`` or a number of seconds, as a positive duration.

    :raises ValueError: anything else, naming ``key``."""
    seconds: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        seconds = float(value)
    elif isinstance(value, str):
        text = value.strip().lower()
        if re.fullmatch(r"\d+(?:\.\d+)?", text):
            seconds = float(text)
        elif text and _DURATION_PART.sub("", text) == "":
            seconds = sum(float(n) * _UNIT_SECONDS[unit] for n, unit in _DURATION_PART.findall(text))
    if seconds is None or not seconds > 0 or seconds > NEVER.total_seconds() / 2:
        raise ValueError(f"{key}: {value!r} is not a positive duration; use e.g. 20m, 1h30m, 90s or 1200 (seconds)")
    return timedelta(seconds=seconds)


def _mapping(parent: Mapping[str, Any], name: str, key: str) -> Mapping[str, Any]:
    value = parent.get(name)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(f"{key} must be a mapping")
    return value
