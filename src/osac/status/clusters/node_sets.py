"""Node-set status from NodePools (cluster-status.md §8).

A node set is matched to its NodePool by the node-set label only, never by host type, so two
node sets of one host type cannot mix. When the observation cannot say anything trustworthy
about a node set (unreadable, two NodePools with one key, a once-ready pool gone or reporting
Unknown) the node set is *unknown*: its previous state is kept and the cluster reports
StageUnknown rather than inventing progress or a regression.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime

from osac.status.clusters.inputs import NodeSetSpec
from osac.status.clusters.signals import ConditionSignal, NodePoolSignals, Observation
from osac.status.clusters.terms import (
    NODE_SET_DEGRADED,
    NODE_SET_PROVISIONING,
    NODE_SET_READY,
    NODE_SET_SCALING,
    NODE_SET_UNSPECIFIED,
)
from osac.status.clusters.views import NodeSetStatusView


@dataclass(frozen=True, slots=True)
class NodeSetOutcome:
    """One node set after derivation. ``note`` explains an unknown node set (why nothing could be
    concluded) or a degraded one (the failing signals), for condition messages."""

    key: str
    view: NodeSetStatusView
    is_known: bool = True
    is_removed: bool = False
    note: str = ""

    @property
    def is_ready(self) -> bool:
        return self.view.state == NODE_SET_READY

    @property
    def is_degraded(self) -> bool:
        return self.view.state == NODE_SET_DEGRADED

    @property
    def is_changing(self) -> bool:
        """Part of a resize: what holds a READY cluster in stage ``Scaling``."""
        return self.is_removed or self.view.state in (NODE_SET_SCALING, NODE_SET_PROVISIONING)

    def fraction(self) -> str:
        """``gpu 2/3``: nodes joined of nodes requested."""
        return f"{self.key} {self.view.current_replicas}/{self.view.size}"


@dataclass(frozen=True)
class NodeSets:
    """Every node set of the spec, plus removed ones whose NodePool still drains, by key."""

    items: tuple[NodeSetOutcome, ...]

    @property
    def requested(self) -> tuple[NodeSetOutcome, ...]:
        return tuple(item for item in self.items if not item.is_removed)

    @property
    def removed(self) -> tuple[NodeSetOutcome, ...]:
        return tuple(item for item in self.items if item.is_removed)

    @property
    def unknown(self) -> tuple[NodeSetOutcome, ...]:
        return tuple(item for item in self.items if not item.is_known)

    @property
    def degraded(self) -> tuple[NodeSetOutcome, ...]:
        """Node sets whose status says DEGRADED, including one kept from the previous status
        while it is unknown: a degradation is not reported cleared just because it went unseen."""
        return tuple(item for item in self.items if item.is_degraded)

    @property
    def not_ready(self) -> tuple[NodeSetOutcome, ...]:
        return tuple(item for item in self.items if item.is_removed or not item.is_ready)

    @property
    def are_all_ready(self) -> bool:
        """Row 3 of the WORKERS_READY table: every requested node set READY, nothing draining."""
        return not self.removed and all(item.is_known and item.is_ready for item in self.requested)

    @property
    def are_changing(self) -> bool:
        return any(item.is_changing for item in self.items)

    def views(self) -> dict[str, NodeSetStatusView]:
        return {item.key: item.view for item in self.items}

    def progress(self) -> str:
        """``3 of 5 nodes (gpu 0/2, workers 3/3)``; removed node sets are named as draining."""
        requested = self.requested
        joined = sum(item.view.current_replicas for item in requested)
        wanted = sum(item.view.size for item in requested)
        text = f"{joined} of {wanted} nodes"
        if requested:
            text += f" ({', '.join(item.fraction() for item in requested)})"
        draining = [f"{item.key} ({item.view.current_replicas} nodes)" for item in self.removed]
        if draining:
            text += f"; removing {', '.join(draining)}"
        return text

    def lagging(self) -> str:
        """``gpu 2/3``: only the node sets not READY, the ones a stall is waiting for."""
        return ", ".join(item.fraction() for item in self.not_ready)


def derive_node_sets(
    observation: Observation,
    specs: Mapping[str, NodeSetSpec],
    previous: Mapping[str, NodeSetStatusView],
    progress_reasons: frozenset[str],
    now: datetime,
) -> NodeSets:
    """The node sets of §8.3 (first matching row), in key order."""
    items = [
        _requested(key, spec, observation, previous.get(key), progress_reasons, now)
        for key, spec in specs.items()
    ]
    if observation.is_readable:
        removed_keys = set(observation.node_pools) - set(specs)
    else:
        removed_keys = set(previous) - set(specs)
    items.extend(_removed(key, observation, previous.get(key)) for key in removed_keys)
    return NodeSets(tuple(sorted(items, key=lambda item: item.key)))


def is_failure(signal: ConditionSignal, progress_reasons: frozenset[str]) -> bool:
    """False with a reason outside the progress set; in a comma-separated reason one such token
    suffices. A False without any reason is a failure too: nothing says it is progress."""
    if not signal.is_false:
        return False
    tokens = [token.strip() for token in signal.reason.split(",") if token.strip()]
    return not tokens or any(token not in progress_reasons for token in tokens)


def _requested(
    key: str,
    spec: NodeSetSpec,
    observation: Observation,
    previous: NodeSetStatusView | None,
    progress_reasons: frozenset[str],
    now: datetime,
) -> NodeSetOutcome:
    first_ready_time = previous.first_ready_time if previous is not None else None
    ever_ready = first_ready_time is not None

    def view(desired: int, current: int, ready: int, state: int, first_ready: datetime | None) -> NodeSetStatusView:
        return NodeSetStatusView(spec.host_type, spec.size, desired, current, ready, state, spec.fabric_interface,
                                 first_ready)

    def kept(note: str) -> NodeSetOutcome:
        if previous is None:
            return NodeSetOutcome(key, view(spec.size, 0, 0, NODE_SET_UNSPECIFIED, None), is_known=False, note=note)
        return NodeSetOutcome(key, view(previous.desired_replicas, previous.current_replicas,
                                        previous.ready_replicas, previous.state, first_ready_time),
                              is_known=False, note=note)

    if not observation.is_readable:
        return kept("the observation is unreadable")
    pools = observation.node_pools.get(key, ())
    if len(pools) > 1:
        return kept(_duplicates(key, pools))
    if not pools:
        if ever_ready:
            return kept("its NodePool is missing")
        return NodeSetOutcome(key, view(spec.size, 0, 0, NODE_SET_PROVISIONING, None))
    pool = pools[0]
    size, desired, current = spec.size, pool.desired_replicas, pool.current_replicas
    ready = _ready_replicas(pool)
    signals = pool.signals
    failures = [signal for signal in signals if is_failure(signal, progress_reasons)]
    if failures:
        return NodeSetOutcome(key, view(desired, current, ready, NODE_SET_DEGRADED, first_ready_time),
                              note=_failure_note(failures))
    is_empty = size == desired == current == 0
    unknown = [signal for signal in signals if signal.is_unknown]
    if ever_ready and unknown and not is_empty:
        assert previous is not None  # ever ready implies a previous entry
        note = ", ".join(signal.describe() for signal in unknown)
        return NodeSetOutcome(key, view(desired, current, ready, previous.state, first_ready_time), is_known=False,
                              note=f"NodePool {pool.name}: {note}")
    if size == desired == current and (is_empty or all(signal.is_true for signal in signals)):
        return NodeSetOutcome(key, view(desired, current, ready, NODE_SET_READY, first_ready_time or now))
    if not ever_ready:
        return NodeSetOutcome(key, view(desired, current, ready, NODE_SET_PROVISIONING, None))
    assert previous is not None
    if (previous.state == NODE_SET_SCALING or size != desired or desired != previous.desired_replicas
            or pool.is_deleting):
        return NodeSetOutcome(key, view(desired, current, ready, NODE_SET_SCALING, first_ready_time))
    return NodeSetOutcome(key, view(desired, current, ready, NODE_SET_DEGRADED, first_ready_time),
                          note=f"{current}/{size} nodes available")


def _removed(key: str, observation: Observation, previous: NodeSetStatusView | None) -> NodeSetOutcome:
    """A key no longer in the spec: its NodePool drains, which keeps the cluster ``Scaling``."""
    base = previous if previous is not None else NodeSetStatusView()
    if not observation.is_readable:
        return NodeSetOutcome(key, base, is_known=False, is_removed=True, note="the observation is unreadable")
    pools = observation.node_pools[key]
    if len(pools) > 1:
        return NodeSetOutcome(key, base, is_known=False, is_removed=True, note=_duplicates(key, pools))
    pool = pools[0]
    view = replace(base, size=0, desired_replicas=pool.desired_replicas, current_replicas=pool.current_replicas,
                   ready_replicas=_ready_replicas(pool), state=NODE_SET_SCALING)
    return NodeSetOutcome(key, view, is_removed=True)


def _ready_replicas(pool: NodePoolSignals) -> int:
    """No per-node count exists upstream: all joined nodes count once the pool is Ready and healthy."""
    return pool.current_replicas if pool.ready.is_true and pool.all_nodes_healthy.is_true else 0


def _duplicates(key: str, pools: tuple[NodePoolSignals, ...]) -> str:
    names = ", ".join(pool.name or "(unnamed)" for pool in pools)
    return f"{len(pools)} NodePools carry node-set label {key} ({names})"


def _failure_note(failures: list[ConditionSignal]) -> str:
    return "; ".join(signal.message or signal.describe() for signal in failures)
