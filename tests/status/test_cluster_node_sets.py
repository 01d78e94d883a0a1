"""Node sets: attribution by label (§8.2) and the state table (§8.3), scenario 8."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest

from osac.status.clusters.derivation import (
    ClusterStatusView,
    NodeSetStatusView,
    StallThresholds,
    derive_cluster_status,
)
from osac.status.clusters.terms import (
    DEGRADED,
    NODE_SET_DEGRADED,
    NODE_SET_PROVISIONING,
    NODE_SET_READY,
    NODE_SET_SCALING,
    WORKERS_READY,
)
from osac.status.conditions.views import TRUE
from tests.status.conftest import T0, cond, context, hc_at, joining_pool, node_pool, ready_pool

EARLIER = T0 - timedelta(hours=1)
NOW = T0


def _previous(state: int = 1, stage: str = "WorkersJoining", **node_sets: NodeSetStatusView) -> ClusterStatusView:
    return ClusterStatusView(state=state, state_transition_time=EARLIER, stage=stage, stage_entered_at=EARLIER,
                             node_sets=node_sets or {"workers": _never_ready()})


def _never_ready(state: int = NODE_SET_PROVISIONING, desired: int = 3, current: int = 0) -> NodeSetStatusView:
    return NodeSetStatusView(host_type="bm-standard", size=3, desired_replicas=desired, current_replicas=current,
                             state=state, fabric_interface="ens1f0")


def _was_ready(state: int = NODE_SET_READY, desired: int = 3, current: int = 3) -> NodeSetStatusView:
    return replace(_never_ready(state, desired, current), ready_replicas=current, first_ready_time=EARLIER)


def _derive(
    pools: list[dict[str, Any]], previous: ClusterStatusView, sizes: dict[str, Any] | None = None,
    thresholds: StallThresholds = StallThresholds.DEFAULT, **ctx: Any,
) -> Any:
    return derive_cluster_status(hc_at(4), pools, previous, NOW, thresholds, context(sizes, **ctx))


def _node_set(pools: list[dict[str, Any]], previous: ClusterStatusView, **kwargs: Any) -> NodeSetStatusView:
    return _derive(pools, previous, **kwargs).status.node_sets["workers"]


# -- §8.3 rows, first match --------------------------------------------------------------------------


def test_row1_unreadable_keeps_previous() -> None:
    previous = _previous(workers=_was_ready())
    result = derive_cluster_status(None, [], previous, NOW, StallThresholds.DEFAULT,
                                   context(observation_readable=False, observation_error="timeout"))
    assert result.status.node_sets["workers"] == previous.node_sets["workers"]
    assert cond(result.status, WORKERS_READY).reason == "StageUnknown"


def test_row1_duplicate_key_keeps_previous_and_makes_the_node_set_unknown() -> None:
    previous = _previous(workers=_was_ready())
    pools = [ready_pool("workers", 3), node_pool("workers", replicas=3, name="impostor")]
    result = _derive(pools, previous)
    assert result.status.node_sets["workers"] == previous.node_sets["workers"]
    workers_ready = cond(result.status, WORKERS_READY)
    assert workers_ready.reason == "StageUnknown"
    assert "2 NodePools carry node-set label workers" in workers_ready.message


def test_row2_no_node_pool_never_ready_is_provisioning() -> None:
    node_set = _node_set([], _previous(workers=_never_ready(desired=7, current=2)))
    assert (node_set.state, node_set.desired_replicas, node_set.current_replicas, node_set.ready_replicas) == (
        NODE_SET_PROVISIONING, 3, 0, 0)


def test_row3_no_node_pool_ever_ready_keeps_previous() -> None:
    previous = _previous(workers=_was_ready())
    result = _derive([], previous)
    assert result.status.node_sets["workers"] == previous.node_sets["workers"]
    assert cond(result.status, WORKERS_READY).reason == "StageUnknown"


@pytest.mark.parametrize("signal", ["ready", "machines", "nodes"])
def test_row4_a_failure_signal_degrades(signal: str) -> None:
    pool = joining_pool("workers", 3, 2)
    failing = {"ready": "Ready", "machines": "AllMachinesReady", "nodes": "AllNodesHealthy"}[signal]
    for item in pool["status"]["conditions"]:
        if item["type"] == failing:
            item.update(status="False", reason="InstanceProvisionFailed", message="Machine m-3: InstanceProvisionFailed")
    result = _derive([pool], _previous())
    assert result.status.node_sets["workers"].state == NODE_SET_DEGRADED
    assert cond(result.status, DEGRADED).message == "workers: Machine m-3: InstanceProvisionFailed"


@pytest.mark.parametrize(
    ("reason", "state"),
    [
        ("WaitingForNodeRef,NodeProvisioning", NODE_SET_PROVISIONING),
        ("WaitingForNodeRef, InstanceProvisionFailed", NODE_SET_DEGRADED),
        ("", NODE_SET_DEGRADED),
        ("ScalingUp", NODE_SET_PROVISIONING),
    ],
    ids=["all-progress-tokens", "one-failure-token", "no-reason", "progress"],
)
def test_row4_comma_separated_reasons_fail_if_any_token_is_outside_the_progress_set(reason: str, state: int) -> None:
    pool = node_pool("workers", replicas=3, available=1, nodes=("False", reason))
    assert _node_set([pool], _previous()).state == state


def test_row4_progress_reasons_are_configurable() -> None:
    pool = node_pool("workers", replicas=3, available=1, nodes=("False", "WaitingForNodeRef"))
    strict = StallThresholds(progress_reasons=frozenset({"NotFound"}))
    assert _node_set([pool], _previous()).state == NODE_SET_PROVISIONING
    assert _node_set([pool], _previous(), thresholds=strict).state == NODE_SET_DEGRADED


@pytest.mark.parametrize("unknown", ["Unknown", None], ids=["Unknown", "absent"])
def test_row5_ever_ready_with_an_unknown_signal_keeps_previous_state(unknown: str | None) -> None:
    previous = _previous(state=2, stage="", workers=_was_ready())
    pool = node_pool("workers", replicas=3, available=2, ready="True", machines="True", nodes=unknown)
    result = _derive([pool], previous)
    node_set = result.status.node_sets["workers"]
    assert node_set.state == NODE_SET_READY
    assert (node_set.current_replicas, node_set.ready_replicas) == (2, 0)
    assert cond(result.status, WORKERS_READY).reason == "StageUnknown"


def test_row6_all_true_and_target_reached_is_ready_and_records_first_ready_time() -> None:
    node_set = _node_set([ready_pool("workers", 3)], _previous())
    assert (node_set.state, node_set.ready_replicas, node_set.first_ready_time) == (NODE_SET_READY, 3, NOW)


def test_row6_first_ready_time_is_never_moved() -> None:
    previous = _previous(state=2, stage="", workers=_was_ready())
    assert _node_set([ready_pool("workers", 3)], previous).first_ready_time == EARLIER


def test_row6_an_empty_pool_reporting_false_as_expected_is_ready() -> None:
    pool = node_pool("workers", replicas=0, ready=("False", "AsExpected"), machines=("False", "AsExpected"),
                     nodes=("False", "AsExpected"))
    node_set = _derive([pool], _previous(), sizes={"workers": 0}).status.node_sets["workers"]
    assert node_set.state == NODE_SET_READY


def test_row7_never_ready_is_provisioning() -> None:
    node_set = _node_set([joining_pool("workers", 3, 2)], _previous())
    assert (node_set.state, node_set.desired_replicas, node_set.current_replicas, node_set.ready_replicas) == (
        NODE_SET_PROVISIONING, 3, 2, 0)


@pytest.mark.parametrize(
    ("previous_node_set", "pool", "size"),
    [
        (_was_ready(state=NODE_SET_SCALING), joining_pool("workers", 3, 2), 3),
        (_was_ready(), ready_pool("workers", 3), 5),
        (_was_ready(desired=3), joining_pool("workers", 5, 3), 5),
        (_was_ready(), node_pool("workers", replicas=3, available=2, ready="True", machines="True",
                                 nodes="True", deleting=True), 3),
    ],
    ids=["previous-scaling", "size-differs-from-desired", "desired-changed", "pool-deleting"],
)
def test_row8_scaling(previous_node_set: NodeSetStatusView, pool: dict[str, Any], size: int) -> None:
    previous = _previous(state=2, stage="", workers=previous_node_set)
    node_set = _derive([pool], previous, sizes={"workers": size}).status.node_sets["workers"]
    assert node_set.state == NODE_SET_SCALING


def test_row9_a_lost_node_degrades_a_node_set_that_was_ready() -> None:
    previous = _previous(state=2, stage="", workers=_was_ready())
    pool = node_pool("workers", replicas=3, available=2, ready=("False", "WaitingForAvailableMachines"),
                     machines="True", nodes="True")
    result = _derive([pool], previous)
    assert result.status.node_sets["workers"].state == NODE_SET_DEGRADED
    assert cond(result.status, DEGRADED).message == "workers: 2/3 nodes available"


def test_ready_replicas_need_ready_and_all_nodes_healthy() -> None:
    pool = node_pool("workers", replicas=3, available=3, ready="True", machines=("False", "WaitingForInfrastructure"),
                     nodes="True")
    node_set = _node_set([pool], _previous())
    assert (node_set.current_replicas, node_set.ready_replicas, node_set.state) == (3, 3, NODE_SET_PROVISIONING)


def test_spec_fields_come_from_the_context() -> None:
    node_set = _derive([], _previous(), sizes={"workers": ("bm-h100", 3)}).status.node_sets["workers"]
    assert (node_set.host_type, node_set.size, node_set.fabric_interface) == ("bm-h100", 3, "ens1f0")


# -- §8.2 attribution, scenario 8 ----------------------------------------------------------------------


@pytest.mark.parametrize("order", [("a", "b"), ("b", "a")])
def test_two_node_sets_of_one_host_type_follow_their_labels(order: tuple[str, str]) -> None:
    sizes = {"a": ("bm-standard", 2), "b": ("bm-standard", 4)}
    previous = _previous(a=_never_ready(), b=_never_ready())
    pools = {"a": joining_pool("a", 2, 2), "b": joining_pool("b", 4, 1)}
    result = _derive([pools[key] for key in order], previous, sizes=sizes)
    assert result.status.node_sets["a"].current_replicas == 2
    assert result.status.node_sets["b"].current_replicas == 1


def test_a_fault_on_one_node_set_marks_and_names_only_that_one() -> None:
    sizes = {"a": ("bm-standard", 2), "b": ("bm-standard", 4)}
    failing_b = node_pool("b", replicas=4, available=3, machines=("False", "InstanceProvisionFailed", "Machine m-4"))
    result = _derive([ready_pool("a", 2), failing_b], _previous(a=_never_ready(), b=_never_ready()), sizes=sizes)
    assert result.status.node_sets["a"].state == NODE_SET_READY
    assert result.status.node_sets["b"].state == NODE_SET_DEGRADED
    degraded = cond(result.status, DEGRADED)
    assert (degraded.status, degraded.reason) == (TRUE, "NodeSetDegraded:b")
    assert cond(result.status, WORKERS_READY).message == "Node set b degraded (3/4 available)"


def test_an_unlabelled_node_pool_is_ignored_and_counted() -> None:
    pools = [ready_pool("workers", 3), ready_pool("workers", 3) | {"metadata": {"name": "stray", "labels": {}}}]
    result = _derive(pools, _previous())
    assert result.unattributed_node_pools == 1
    assert result.status.node_sets["workers"].state == NODE_SET_READY
    assert list(result.status.node_sets) == ["workers"]


def test_a_removed_node_set_drains_as_scaling_until_its_pool_is_gone() -> None:
    previous = _previous(state=2, stage="", workers=_was_ready(), old=_was_ready())
    draining = node_pool("old", replicas=0, available=2, deleting=True)
    during = _derive([ready_pool("workers", 3), draining], previous)
    assert during.status.stage == "Scaling"
    assert during.status.node_sets["old"].state == NODE_SET_SCALING
    assert (during.status.node_sets["old"].size, during.status.node_sets["old"].current_replicas) == (0, 2)
    assert cond(during.status, WORKERS_READY).reason == "Scaling"
    after = derive_cluster_status(hc_at(4), [ready_pool("workers", 3)], during.status, NOW + timedelta(minutes=2),
                                  StallThresholds.DEFAULT, context())
    assert list(after.status.node_sets) == ["workers"]
    assert after.status.stage == ""
    assert cond(after.status, WORKERS_READY).status == TRUE
