"""Properties of the derivation over generated inputs (cluster-status.md §6): deterministic,
order-independent, fixpoint-stable, total, preserving, and never TRUE from an Unknown signal."""

from __future__ import annotations

import copy
import random
from datetime import timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from osac.status.clusters.derivation import (
    ClusterContext,
    ClusterStatusView,
    NodeSetSpec,
    NodeSetStatusView,
    StallThresholds,
    TerminalFailure,
    derive_cluster_status,
)
from osac.status.clusters.terms import CONTROL_PLANE_AVAILABLE, PROGRESSING, STAGES, WORKERS_READY
from osac.status.conditions.views import TRUE, ConditionView
from tests.status.conftest import T0, hc_condition, hosted_cluster, node_pool

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
KEYS = ("workers", "gpu", "old")
TIMES = st.one_of(st.none(), st.integers(-7200, 7200).map(lambda s: T0 + timedelta(seconds=s)))

signal = st.one_of(
    st.sampled_from(["True", "True", "False", "Unknown", None]),
    st.tuples(st.sampled_from(["True", "False", "Unknown", "Maybe"]),
              st.sampled_from(["AsExpected", "WaitingForNodeRef", "InstanceProvisionFailed", "",
                               "NotFound,ScalingUp", "ScalingUp,Broken"]),
              st.sampled_from(["", "Machine m-1: failed"])),
)

hosted_clusters = st.builds(
    hosted_cluster,
    infrastructure=signal, kube_api=signal, available=signal, degraded=signal, version=signal,
    cloud_destroyed=signal, hc_destroyed=signal,
    endpoint=st.one_of(st.none(), st.tuples(st.sampled_from(["10.0.1.240", "fd00::1", ""]), st.integers(0, 65535))),
    deleting=st.booleans(),
    base_domain=st.sampled_from(["example.net", ""]),
    extra_conditions=st.lists(st.builds(hc_condition, st.sampled_from(["Available", "Other"]), signal).filter(bool),
                              max_size=2),
)

node_pools = st.builds(
    node_pool,
    st.sampled_from([*KEYS[:2], *KEYS, None]),
    replicas=st.integers(0, 3), available=st.integers(0, 3), ready=signal, machines=signal, nodes=signal,
    deleting=st.booleans(), name=st.sampled_from([None, "p-1", "p-2"]),
)

json_values: st.SearchStrategy[Any] = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=3), st.floats(allow_nan=False)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=8,
)


@st.composite
def damaged(draw: st.DrawFn, base: st.SearchStrategy[dict[str, Any]]) -> Any:
    """A well-formed dict with one value somewhere replaced by garbage."""
    value = copy.deepcopy(draw(base))
    node: Any = value
    for _ in range(draw(st.integers(0, 4))):
        if isinstance(node, dict) and node:
            key = draw(st.sampled_from(sorted(node)))
            if draw(st.booleans()) or not isinstance(node[key], dict | list):
                node[key] = draw(json_values)
                return value
            node = node[key]
        elif isinstance(node, list) and node:
            index = draw(st.integers(0, len(node) - 1))
            if draw(st.booleans()) or not isinstance(node[index], dict | list):
                node[index] = draw(json_values)
                return value
            node = node[index]
    return value


# Mostly well-formed input, so the tables are exercised and not only the unreadable path.
any_hc = st.one_of(st.none(), hosted_clusters, hosted_clusters, hosted_clusters, damaged(hosted_clusters), json_values)
any_pools = st.one_of(st.lists(node_pools, max_size=4), st.lists(node_pools, max_size=4),
                      st.lists(st.one_of(node_pools, damaged(node_pools)), max_size=3), json_values)

node_set_views = st.builds(
    NodeSetStatusView,
    host_type=st.sampled_from(["bm-standard", "bm-h100"]), size=st.integers(0, 3),
    desired_replicas=st.integers(0, 3), current_replicas=st.integers(0, 3), ready_replicas=st.integers(0, 3),
    state=st.sampled_from([0, 1, 2, 3, 4, 9]), first_ready_time=TIMES,
)
condition_views = st.builds(
    ConditionView, type=st.sampled_from([1, 2, 3, 4, 5, 6, 7]), status=st.sampled_from([1, 2, 3]),
    reason=st.sampled_from(["AsExpected", "Stalled", "StageUnknown", "ProvisioningFailed", "NodeSetDegraded:gpu"]),
    message=st.sampled_from(["", "m"]), last_transition_time=TIMES,
)
previous_views = st.builds(
    ClusterStatusView,
    state=st.sampled_from([0, 1, 2, 3, 4, 5, 9]), state_transition_time=TIMES,
    stage=st.sampled_from(["", *STAGES, "Rebalancing"]), stage_entered_at=TIMES,
    conditions=st.lists(condition_views, max_size=8).map(tuple),
    node_sets=st.dictionaries(st.sampled_from(KEYS), node_set_views, max_size=3),
    api_url=st.sampled_from(["", "https://10.0.0.1:6443"]), console_url=st.sampled_from(["", "https://c"]),
    api_endpoint=st.sampled_from(["", "10.0.0.1"]), ingress_endpoint=st.sampled_from(["", "10.0.0.2"]),
)
contexts = st.builds(
    ClusterContext,
    node_sets=st.dictionaries(st.sampled_from(KEYS[:2]),
                              st.builds(NodeSetSpec, st.sampled_from(["bm-standard", "bm-h100"]), st.integers(0, 3)),
                              min_size=1, max_size=2),
    observation_readable=st.sampled_from([True, True, True, False]), observation_error=st.sampled_from(["", "timeout"]),
    deletion_requested=st.sampled_from([False, False, True]),
    terminal_failure=st.one_of(st.none(), st.none(), st.builds(TerminalFailure, st.sampled_from(["provision", "teardown"]),
                                                    st.sampled_from(["Bad", ""]), st.sampled_from(["", "why"]))),
    cleanup_pending=st.sampled_from([(), ("eip-1",)]),
    reserved_vips=st.sampled_from([None, ("10.0.0.1", "10.0.0.2")]),
)
thresholds = st.sampled_from([
    StallThresholds.DEFAULT,
    StallThresholds.from_section({"stall_thresholds": {"WorkersJoining": 60}, "progress_reasons": ["NotFound"],
                                  "host_type_overrides": {"bm-h100": {"WorkersJoining": "2h"}}}),
])
nows = st.integers(0, 4 * 3600).map(lambda s: T0 + timedelta(seconds=s))


@SETTINGS
@given(any_hc, any_pools, previous_views, nows, thresholds, contexts)
def test_total_deterministic_and_a_fixpoint(
    hc: Any, pools: Any, previous: ClusterStatusView, now: Any, limits: StallThresholds, ctx: ClusterContext
) -> None:
    first = derive_cluster_status(hc, pools, previous, now, limits, ctx)
    again = derive_cluster_status(copy.deepcopy(hc), copy.deepcopy(pools), previous, now, limits, ctx)
    assert again == first

    settled = derive_cluster_status(hc, pools, first.status, now, limits, ctx)
    assert settled.status == first.status
    assert settled.events == (() if not first.teardown_complete else (first.events[-1],))
    assert settled.teardown_complete == first.teardown_complete


@SETTINGS
@given(hosted_clusters, st.lists(node_pools, max_size=4), previous_views, nows, contexts, st.randoms())
def test_node_pool_order_does_not_matter(
    hc: Any, pools: list[Any], previous: ClusterStatusView, now: Any, ctx: ClusterContext, shuffler: random.Random
) -> None:
    shuffled = list(pools)
    shuffler.shuffle(shuffled)
    first = derive_cluster_status(hc, pools, previous, now, StallThresholds.DEFAULT, ctx)
    assert derive_cluster_status(hc, shuffled, previous, now, StallThresholds.DEFAULT, ctx) == first


@SETTINGS
@given(any_hc, any_pools, previous_views, nows, contexts)
def test_unknown_signals_never_yield_true(
    hc: Any, pools: Any, previous: ClusterStatusView, now: Any, ctx: ClusterContext
) -> None:
    result = derive_cluster_status(hc, pools, previous, now, StallThresholds.DEFAULT, ctx)
    status = result.status
    if previous.state not in (0, 1, 2, 3, 4, 5):
        return
    control_plane = status.condition(CONTROL_PLANE_AVAILABLE)
    assert control_plane is not None
    if control_plane.status == TRUE:
        assert ctx.observation_readable and isinstance(hc, dict)
        kinds = {c["type"]: c["status"] for c in hc["status"]["conditions"]}
        counts = [c["type"] for c in hc["status"]["conditions"]]
        assert kinds["KubeAPIServerAvailable"] == "True" and kinds["Available"] == "True"
        assert counts.count("Available") == 1
    workers = status.condition(WORKERS_READY)
    assert workers is not None
    if workers.status == TRUE:
        assert ctx.observation_readable
        assert all(node_set.state == 2 for key, node_set in status.node_sets.items() if key in ctx.node_sets)


@SETTINGS
@given(any_hc, any_pools, previous_views, nows, contexts)
def test_six_conditions_in_order_and_unknown_entries_preserved(
    hc: Any, pools: Any, previous: ClusterStatusView, now: Any, ctx: ClusterContext
) -> None:
    status = derive_cluster_status(hc, pools, previous, now, StallThresholds.DEFAULT, ctx).status
    if previous.state not in (0, 1, 2, 3, 4, 5) and not ctx.deletion_requested:
        assert status == previous
        return
    types = [c.type for c in status.conditions]
    assert types[:6] == [1, 2, 3, 4, 5, 6]
    assert [c for c in status.conditions if c.type not in range(1, 7)] == [
        c for c in previous.conditions if c.type not in range(1, 7)]
    progressing = status.condition(PROGRESSING)
    assert progressing is not None
    assert status.stage in ("", *STAGES)
    assert progressing.reason not in ("", None)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(any_hc, any_pools, st.integers(0, 1800), contexts), min_size=2, max_size=6), thresholds)
def test_every_status_of_a_history_is_a_fixpoint(steps: list[Any], limits: StallThresholds) -> None:
    """Statuses the derivation itself produced, step after step, as the reconciler would store them."""
    status, now = ClusterStatusView(), T0
    for hc, pools, seconds, ctx in steps:
        now += timedelta(seconds=seconds)
        result = derive_cluster_status(hc, pools, status, now, limits, ctx)
        settled = derive_cluster_status(hc, pools, result.status, now, limits, ctx)
        assert settled.status == result.status
        assert settled.events == (() if not result.teardown_complete else (result.events[-1],))
        status = result.status
