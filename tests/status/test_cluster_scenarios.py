"""End-to-end stories of cluster-status.md §20, fed with dicts shaped as the simulator emits them
(simulator.md §3.1): scenarios 1, 6, 7, 9, 11, 12, 13 and 18."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from osac.status.clusters.cells import health_cell, stage_cell
from osac.status.clusters.derivation import TerminalFailure
from osac.status.clusters.terms import (
    AVAILABLE,
    CONTROL_PLANE_AVAILABLE,
    DEGRADED,
    FAILED,
    NODE_SET_DEGRADED,
    NODE_SET_PROVISIONING,
    NODE_SET_READY,
    NODE_SET_SCALING,
    PROGRESSING,
    STATE_DELETING,
    STATE_FAILED,
    STATE_PROGRESSING,
    STATE_READY,
    WORKERS_READY,
)
from osac.status.conditions.views import FALSE, TRUE, WARNING
from tests.status.conftest import (
    API_VIP,
    INGRESS_VIP,
    T0,
    Cluster,
    cond,
    context,
    hc_at,
    hosted_cluster,
    joining_pool,
    node_pool,
    ready_pool,
)

MIN = timedelta(minutes=1)
SEC = timedelta(seconds=1)
SIZES = {"workers": 3, "gpu": 2}


def _pools(workers: int, gpu: int, *, started: bool = True) -> list[dict[str, Any]]:
    """NodePools with ``workers``/``gpu`` nodes joined; a full pool is READY (§3.1 rows 5–8)."""
    def pool(key: str, size: int, joined: int) -> dict[str, Any]:
        if joined == size:
            return ready_pool(key, size)
        return joining_pool(key, size, joined) if started else node_pool(key, replicas=size)
    return [pool("workers", 3, workers), pool("gpu", 2, gpu)]


def _provision(cluster: Cluster) -> None:
    """Scenario 1's timeline: create, HC rows 1–4, nodes joining 20 s apart, version rolled out."""
    cluster.observe(None, [])
    cluster.observe(hc_at(1), _pools(0, 0, started=False), at=5 * SEC)
    cluster.observe(hc_at(2), _pools(0, 0, started=False), at=3 * MIN)
    cluster.observe(hc_at(3), _pools(0, 0, started=False), at=9 * MIN)
    cluster.observe(hc_at(4), _pools(0, 0, started=False), at=10 * MIN)
    cluster.observe(hc_at(4), _pools(0, 0), at=10 * MIN + 20 * SEC)
    cluster.observe(hc_at(4), _pools(1, 0), at=14 * MIN)
    cluster.observe(hc_at(4), _pools(2, 1), at=14 * MIN + 20 * SEC)
    cluster.observe(hc_at(4), _pools(3, 1), at=14 * MIN + 40 * SEC)
    cluster.observe(hc_at(4), _pools(3, 2), at=15 * MIN)
    cluster.observe(hc_at(9), _pools(3, 2), at=18 * MIN)


def _ready_cluster() -> Cluster:
    cluster = Cluster(ctx=context(SIZES))
    _provision(cluster)
    assert cluster.status.state == STATE_READY
    return cluster


def test_scenario_1_stages_in_order() -> None:
    cluster = Cluster(ctx=context(SIZES))
    _provision(cluster)
    stages = [result.status.stage for result in cluster.history]
    distinct = [stage for index, stage in enumerate(stages) if index == 0 or stages[index - 1] != stage]
    assert distinct == ["PreparingInfrastructure", "ControlPlaneStarting", "WorkersJoining", ""]

    assert sorted(cluster.events) == sorted([
        "StageChanged", "StageChanged", "StageChanged", "StageChanged",
        "VIPsDiscovered", "ControlPlaneAvailable", "WorkersReady", "ClusterReady",
    ])
    messages = [event.message for result in cluster.history for event in result.events if event.reason == "StageChanged"]
    assert messages == ['"" → PreparingInfrastructure', "PreparingInfrastructure → ControlPlaneStarting",
                        "ControlPlaneStarting → WorkersJoining", 'WorkersJoining → ""']

    def first(predicate: Any) -> int:
        return next(index for index, result in enumerate(cluster.history) if predicate(result.status))

    cp_index = first(lambda status: cond(status, CONTROL_PLANE_AVAILABLE).is_true)
    wr_index = first(lambda status: cond(status, WORKERS_READY).is_true)
    assert cp_index < wr_index
    with_cp = cluster.history[cp_index].status
    assert (with_cp.api_url, with_cp.api_endpoint, with_cp.ingress_endpoint) == (
        f"https://{API_VIP}:6443", API_VIP, INGRESS_VIP)
    assert all(not result.status.api_url for result in cluster.history[:cp_index])
    ready_index = first(lambda status: status.state == STATE_READY)
    assert all(not result.status.console_url for result in cluster.history[:ready_index])
    assert cluster.status.console_url == "https://console-openshift-console.apps.c-0192f3a4.example.net"

    transitions = {result.status.state_transition_time for result in cluster.history}
    assert transitions == {T0, T0 + 18 * MIN}
    assert cond(cluster.status, AVAILABLE).is_true
    assert (stage_cell(cluster.status), health_cell(cluster.status)) == ("-", "Healthy")


def test_scenario_18_replays_add_no_events() -> None:
    cluster = _ready_cluster()
    settled = cluster.status
    for _ in range(100):
        replay = cluster.observe(hc_at(9), _pools(3, 2))
        assert replay.events == ()
        assert replay.status == settled


def test_scenario_6_degraded_independent_of_stage() -> None:
    cluster = Cluster(ctx=context(SIZES))
    cluster.observe(None, [])
    cluster.observe(hc_at(4), _pools(0, 0), at=10 * MIN)
    failing = node_pool("gpu", replicas=3, available=2,
                        machines=("False", "InstanceProvisionFailed", "Machine m-3: InstanceProvisionFailed"))
    cluster.ctx = context({"workers": 3, "gpu": 3})
    result = cluster.observe(hc_at(4), [ready_pool("workers", 3), failing], at=12 * MIN)
    status = result.status
    assert cond(status, CONTROL_PLANE_AVAILABLE).status == TRUE
    assert (cond(status, WORKERS_READY).status, cond(status, WORKERS_READY).reason) == (FALSE, "WorkersDegraded")
    assert (cond(status, DEGRADED).status, cond(status, DEGRADED).reason) == (TRUE, "NodeSetDegraded:gpu")
    assert status.node_sets["gpu"].state == NODE_SET_DEGRADED
    assert status.node_sets["workers"].state == NODE_SET_READY
    assert (status.state, status.stage) == (STATE_PROGRESSING, "WorkersJoining")
    assert health_cell(status) == "Degraded"
    assert [e.reason for e in result.events if e.type == WARNING] == ["Degraded"]


def test_scenario_6_on_a_ready_cluster_and_clearing() -> None:
    cluster = _ready_cluster()
    lost = node_pool("gpu", replicas=2, available=1, ready="True", machines="True",
                     nodes=("False", "NodeConditionsFailed", "node gpu-1 NotReady"))
    degraded = cluster.observe(hc_at(9), [ready_pool("workers", 3), lost], at=30 * MIN)
    assert degraded.status.state == STATE_READY
    assert (cond(degraded.status, AVAILABLE).status, cond(degraded.status, AVAILABLE).reason) == (FALSE, "Degraded")
    assert [(e.reason, e.message) for e in degraded.events] == [("Degraded", "NodeSetDegraded:gpu")]
    cleared = cluster.observe(hc_at(9), _pools(3, 2), at=31 * MIN)
    assert cond(cleared.status, DEGRADED).status == FALSE
    assert [e.reason for e in cleared.events] == ["WorkersReady", "DegradationCleared"]
    hc_degraded = cluster.observe(hc_at(9, degraded=("True", "EtcdDegraded", "etcd slow")), _pools(3, 2), at=32 * MIN)
    assert cond(hc_degraded.status, DEGRADED).reason == "ControlPlaneDegraded"
    assert hc_degraded.status.state == STATE_READY


def test_scenario_7_scaling_is_separate_from_state() -> None:
    cluster = _ready_cluster()
    since = cluster.status.state_transition_time
    cluster.ctx = context({"workers": 5, "gpu": 2})
    requested = cluster.observe(hc_at(9), _pools(3, 2), at=30 * MIN)
    assert requested.status.node_sets["workers"].state == NODE_SET_SCALING
    assert requested.status.node_sets["workers"].desired_replicas == 3
    counts = []
    for minute, joined in ((31, 3), (33, 4), (35, 5)):
        pool = ready_pool("workers", 5) if joined == 5 else joining_pool("workers", 5, joined)
        result = cluster.observe(hc_at(9), [pool, ready_pool("gpu", 2)], at=minute * MIN)
        counts.append(result.status.node_sets["workers"].current_replicas)
        if joined < 5:
            assert result.status.node_sets["workers"].state == NODE_SET_SCALING
            assert result.status.node_sets["workers"].desired_replicas == 5
            assert (cond(result.status, WORKERS_READY).reason, result.status.stage) == ("Scaling", "Scaling")
            assert (stage_cell(result.status), health_cell(result.status)) == ("Scaling", "Scaling")
        assert result.status.state == STATE_READY
        assert result.status.state_transition_time == since
    assert counts == [3, 4, 5]
    assert (cluster.status.stage, cluster.status.node_sets["workers"].state) == ("", NODE_SET_READY)
    assert cond(cluster.status, WORKERS_READY).is_true
    assert cluster.events.count("ClusterReady") == 1


def test_scenario_7_adding_and_removing_node_sets() -> None:
    cluster = _ready_cluster()
    cluster.ctx = context({"workers": 3, "gpu": 2, "infra": 2})
    added = cluster.observe(hc_at(9), _pools(3, 2), at=30 * MIN)
    assert (added.status.node_sets["infra"].state, added.status.stage) == (NODE_SET_PROVISIONING, "Scaling")
    cluster.observe(hc_at(9), [*_pools(3, 2), ready_pool("infra", 2)], at=40 * MIN)
    assert cluster.status.stage == ""

    cluster.ctx = context({"workers": 3, "infra": 2})
    draining = node_pool("gpu", replicas=0, available=1, deleting=True)
    removing = cluster.observe(hc_at(9), [ready_pool("workers", 3), ready_pool("infra", 2), draining], at=41 * MIN)
    assert removing.status.stage == "Scaling"
    assert cond(removing.status, WORKERS_READY).reason == "Scaling"
    gone = cluster.observe(hc_at(9), [ready_pool("workers", 3), ready_pool("infra", 2)], at=42 * MIN)
    assert gone.status.stage == ""
    assert sorted(gone.status.node_sets) == ["infra", "workers"]


def test_scenario_9_deletion_visible_until_cleanup() -> None:
    cluster = _ready_cluster()
    deleting = cluster.observe(hc_at(9), _pools(3, 2), at=30 * MIN, deletion_requested=True,
                               cleanup_pending=("external-ip api", "external-ip ingress"))
    assert (deleting.status.state, deleting.status.stage) == (STATE_DELETING, "DestroyingCloudResources")
    assert [e.reason for e in deleting.events] == ["StageChanged", "Deleting"]
    assert health_cell(deleting.status) == "Deleting"
    assert cond(deleting.status, PROGRESSING).message == (
        "Destroying cloud resources: the HostedCluster deletion has not started; 2 NodePools remaining; "
        "waiting for cleanup of external-ip api, external-ip ingress"
    )

    hc = hc_at(9, deleting=True, cloud_destroyed="False")
    cluster.observe(hc, _pools(3, 2), at=31 * MIN, cleanup_pending=())
    assert cluster.status.stage == "DestroyingCloudResources"
    assert cond(cluster.status, PROGRESSING).message == (
        "Destroying cloud resources: CloudResourcesDestroyed False (AsExpected); 2 NodePools remaining")
    hc = hc_at(9, deleting=True, cloud_destroyed="True")
    destroyed = cluster.observe(hc, _pools(3, 2), at=34 * MIN)
    assert destroyed.status.stage == "DestroyingControlPlane"
    cluster.observe(hc, [], at=39 * MIN)
    assert not cluster.history[-1].teardown_complete
    cluster.observe(hc_at(9, deleting=True, cloud_destroyed="True", hc_destroyed=("False", "Waiting")), [],
                    at=40 * MIN, cleanup_pending=("host bm-3",))
    assert not cluster.history[-1].teardown_complete
    done = cluster.observe(None, [], at=41 * MIN, cleanup_pending=())
    assert done.teardown_complete
    assert (done.status.state, done.status.stage) == (STATE_DELETING, "DestroyingControlPlane")
    assert [e.reason for e in done.events] == ["TeardownComplete"]
    assert cluster.events.count("Deleting") == 1


def test_scenario_11_terminal_provisioning_failure() -> None:
    cluster = Cluster(ctx=context(SIZES))
    cluster.observe(None, [])
    failure = TerminalFailure("provision", "InvalidReleaseImage", "quay.io/x: manifest unknown", T0 + MIN)
    failed = cluster.observe(None, [], at=MIN, terminal_failure=failure)
    status = failed.status
    assert status.state == STATE_FAILED
    assert (cond(status, FAILED).status, cond(status, FAILED).reason) == (TRUE, "ProvisioningFailed")
    assert (cond(status, PROGRESSING).status, cond(status, PROGRESSING).reason) == (FALSE, "Failed")
    assert [(e.type, e.reason) for e in failed.events] == [(WARNING, "ProvisioningFailed")]
    assert health_cell(status) == "Failed"
    for minute in (2, 3):
        assert cluster.observe(None, [], at=minute * MIN).events == ()

    ready = _ready_cluster()
    after = ready.observe(hc_at(9), _pools(3, 2), at=30 * MIN, terminal_failure=failure)
    assert after.status.state == STATE_READY
    assert after.events == ()


def test_scenario_12_stage_unknown_and_recovery() -> None:
    cluster = Cluster(ctx=context(SIZES))
    cluster.observe(None, [])
    cluster.observe(hc_at(4), _pools(1, 0), at=10 * MIN)
    entered = cluster.status.stage_entered_at
    unknown = cluster.observe(None, [], at=12 * MIN, observation_readable=False, observation_error="hub timeout")
    status = unknown.status
    progressing = cond(status, PROGRESSING)
    assert (progressing.status, progressing.reason) == (TRUE, "StageUnknown")
    assert "hub timeout" in progressing.message and "last known stage: WorkersJoining" in progressing.message
    assert (stage_cell(status), health_cell(status)) == ("StageUnknown", "Unknown")
    assert (status.stage, status.stage_entered_at) == ("WorkersJoining", entered)
    assert [(e.type, e.reason) for e in unknown.events] == [(WARNING, "StageUnknown")]
    # Past the WorkersJoining threshold while unknown: no stall, no second warning.
    for minute in (20, 40, 60):
        later = cluster.observe(None, [], at=minute * MIN)
        assert later.events == () and later.requeue_after is None
        assert cond(later.status, PROGRESSING).reason == "StageUnknown"
    recovered = cluster.observe(hc_at(9), _pools(3, 2), at=61 * MIN, observation_readable=True, observation_error="")
    assert recovered.status.state == STATE_READY
    recovery = [e.reason for e in recovered.events]
    assert recovery.count("SignalsRecovered") == 1 and recovery.count("StageChanged") == 1
    assert recovery.count("WorkersReady") == 1  # a real transition while unknown: workers were not ready before
    assert cluster.events.count("ControlPlaneAvailable") == 1
    assert "Stalled" not in cluster.events


def test_scenario_12_hc_conditions_removed() -> None:
    cluster = Cluster(ctx=context(SIZES))
    cluster.observe(None, [])
    cluster.observe(hc_at(4), _pools(1, 0), at=10 * MIN)
    bare = hc_at(4)
    bare["status"]["conditions"] = []
    result = cluster.observe(bare, _pools(1, 0), at=11 * MIN)
    assert cond(result.status, PROGRESSING).reason == "StageUnknown"
    assert (cond(result.status, CONTROL_PLANE_AVAILABLE).status, cond(result.status, CONTROL_PLANE_AVAILABLE).reason) \
        == (FALSE, "StageUnknown")
    assert result.status.stage == "WorkersJoining"


def test_scenario_12_hc_vanished_on_a_ready_cluster() -> None:
    cluster = _ready_cluster()
    vanished = cluster.observe(None, _pools(3, 2), at=30 * MIN)
    status = vanished.status
    assert status.state == STATE_READY
    assert (cond(status, PROGRESSING).status, cond(status, PROGRESSING).reason) == (FALSE, "StageUnknown")
    assert (cond(status, AVAILABLE).status, cond(status, AVAILABLE).reason) == (FALSE, "StageUnknown")
    assert (stage_cell(status), health_cell(status)) == ("StageUnknown", "Unknown")
    assert [e.reason for e in vanished.events] == ["StageUnknown"]
    back = cluster.observe(hc_at(9), _pools(3, 2), at=31 * MIN)
    # issue 17 item 12: both were TRUE before the signals were lost, so no repeat of their events
    assert [e.reason for e in back.events] == ["SignalsRecovered"]
    assert cluster.events.count("ControlPlaneAvailable") == 1 and cluster.events.count("WorkersReady") == 1
    assert health_cell(back.status) == "Healthy"


def test_scenario_13_unknown_is_never_coerced() -> None:
    cluster = _ready_cluster()
    result = cluster.observe(hc_at(9, available=("Unknown", "StatusUnknown")), _pools(3, 2), at=30 * MIN)
    status = result.status
    assert (cond(status, CONTROL_PLANE_AVAILABLE).status, cond(status, CONTROL_PLANE_AVAILABLE).reason) == (
        FALSE, "StageUnknown")
    assert cond(status, AVAILABLE).status == FALSE
    assert status.state == STATE_READY


def test_hc_degraded_with_unknown_hosted_cluster_name_has_no_console_url() -> None:
    cluster = Cluster(ctx=context({"workers": 3}))
    cluster.observe(None, [])
    cluster.observe(hosted_cluster(infrastructure="True", kube_api="True", available="True", version="True",
                                   base_domain=""), [ready_pool("workers", 3)], at=MIN)
    assert cluster.status.state == STATE_READY
    assert cluster.status.console_url == ""
