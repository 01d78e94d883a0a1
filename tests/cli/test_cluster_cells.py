"""The pure parts of the cluster views, table-driven: the shared STAGE / HEALTH golden table run
through the ``get clusters`` columns, the describe rows (stage, health breakdown, node sets,
conditions), the ``wait`` verdicts and progress line, and ``OSAC_NOW``."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message

from osac.cli import main  # noqa: F401  (adds the cluster formatters to render.FORMATTERS)
from osac.cli.clusters.clock import reference_now
from osac.cli.clusters.describe import condition_rows, node_set_rows, state_text
from osac.cli.clusters.wait import Goal, node_set_counts, progress, usable_state, verdict
from osac.cli.errors import CliError
from osac.cli.output.fields import descriptor_of
from osac.cli.output.render import CellContext, cell
from osac.cli.output.tables import columns_for
from osac.model import protos, registry
from osac.model.kinds import Kind
from osac.status.clusters.summary import control_plane_text, duration_text, stage_text, workers_text

CELLS_GOLDEN = Path(__file__).resolve().parents[1] / "status" / "golden" / "cluster_cells.json"
CLUSTER = registry.get("cluster")
NOW = datetime(2026, 3, 4, 10, 43, 11, tzinfo=UTC)


def cluster(data: dict[str, Any]) -> Message:
    message = json_format.ParseDict(data, protos.message_class("osac.public.v1.Cluster")())
    message.status.SetInParent()  # type: ignore[attr-defined]
    return message


def status(data: dict[str, Any]) -> Message:
    return cluster({"status": data}).status  # type: ignore[attr-defined,no-any-return]


def ago(minutes: float) -> str:
    return (NOW - timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")


def cond(type_: str | int, state: str, reason: str, message: str = "", minutes_ago: float = 5) -> dict[str, Any]:
    return {
        "type": f"CLUSTER_CONDITION_TYPE_{type_}" if isinstance(type_, str) else type_,
        "status": f"CONDITION_STATUS_{state}" if state else 0,
        "reason": reason,
        "message": message,
        "last_transition_time": ago(minutes_ago),
    }


# -- the shared golden table -----------------------------------------------------------------------


def _golden_cases() -> list[Any]:
    if not CELLS_GOLDEN.exists():
        return [pytest.param(None, id="golden-table-missing")]
    cases = json.loads(CELLS_GOLDEN.read_text())
    items = cases["cases"] if isinstance(cases, dict) else cases
    return [pytest.param(case, id=case.get("name") or f"case-{index}") for index, case in enumerate(items)]


@pytest.mark.parametrize("case", _golden_cases())
def test_the_list_cells_follow_the_shared_golden_table(case: dict[str, Any] | None) -> None:
    assert case is not None, f"{CELLS_GOLDEN} is missing"
    obj = cluster({"status": case["status"]})
    columns = {c.header: c for c in columns_for(CLUSTER, descriptor_of(obj))}

    shown = {header: cell(obj, columns[header], CellContext()) for header in ("STAGE", "HEALTH")}

    assert shown == {"STAGE": case["stage"], "HEALTH": case["health"]}


def test_the_cluster_table_puts_stage_and_health_after_state() -> None:
    headers = [c.header for c in columns_for(CLUSTER, descriptor_of(cluster({})))]

    assert headers == ["NAME", "TENANT", "TEMPLATE", "STATE", "STAGE", "HEALTH", "API URL", "AGE", "ID"]


# -- describe: state and stage ---------------------------------------------------------------------


def test_state_shows_since_when() -> None:
    shown = state_text(status({"state": "CLUSTER_STATE_PROGRESSING", "state_transition_time": ago(41)}), NOW)

    assert shown == "PROGRESSING (since 2026-03-04 10:02:11Z, 41m ago)"


def test_an_unknown_state_number_prints_raw() -> None:
    assert state_text(status({"state": 9}), NOW) == "9"


@pytest.mark.parametrize(
    ("stage", "progressing", "expected"),
    [
        ("WorkersJoining", cond("PROGRESSING", "TRUE", "WorkersJoining"), "WorkersJoining for 23m (threshold 20m)"),
        ("WorkersJoining", cond("PROGRESSING", "TRUE", "Stalled", "WorkersJoining for 61m (threshold 60m): gpu 0/2"),
         "WorkersJoining for 23m  STALLED (threshold 1h)"),
        ("WorkersJoining", cond("PROGRESSING", "TRUE", "WorkersJoining", "Workers joining (threshold 1h30m)"),
         "WorkersJoining for 23m (threshold 1h30m)"),
        ("PreparingInfrastructure", cond("PROGRESSING", "TRUE", "PreparingInfrastructure"),
         "PreparingInfrastructure for 23m (threshold 15m)"),
        ("ControlPlaneStarting", cond("PROGRESSING", "TRUE", "StageUnknown", "KubeAPIServerAvailable unknown"),
         "ControlPlaneStarting for 23m  UNKNOWN (last known stage; signals unavailable)"),
        ("", cond("PROGRESSING", "FALSE", "StageUnknown"), "-  UNKNOWN (last known stage; signals unavailable)"),
        ("ControlPlaneStarting", cond("PROGRESSING", "FALSE", "Failed"), "ControlPlaneStarting for 23m"),
        ("", cond("PROGRESSING", "FALSE", "AsExpected"), "-"),
        ("Upgrading", cond("PROGRESSING", "TRUE", "Upgrading"), "Upgrading for 23m"),
        ("DestroyingControlPlane", None, "DestroyingControlPlane for 23m"),
    ],
    ids=["default-threshold", "stalled-override", "threshold-in-message", "preparing", "unknown",
         "unknown-idle", "failed", "idle", "newer-stage", "no-progressing"],
)
def test_stage_row(stage: str, progressing: dict[str, Any] | None, expected: str) -> None:
    data = {"stage": stage, "stage_entered_at": ago(23), "conditions": [progressing] if progressing else []}

    assert stage_text(status(data), NOW) == expected


def test_stage_row_shows_the_threshold_the_status_carries_before_any_stall() -> None:
    """Issue 17 item 3: ``stall_thresholds: {WorkersJoining: 60s}`` shows as ``threshold 1m``
    while the stage runs, from ``status.stage_threshold``, not the 20m default."""
    data = {"stage": "WorkersJoining", "stage_entered_at": ago(0.5), "stage_threshold": "60s",
            "conditions": [cond("PROGRESSING", "TRUE", "WorkersJoining", "Workers joining: workers 1/3")]}

    assert stage_text(status(data), NOW) == "WorkersJoining for 30s (threshold 1m)"


@pytest.mark.parametrize(
    ("delta", "text"),
    [(timedelta(minutes=20), "20m"), (timedelta(hours=1), "1h"), (timedelta(minutes=90), "1h30m"),
     (timedelta(seconds=45), "45s")],
)
def test_durations_read_as_configured(delta: timedelta, text: str) -> None:
    assert duration_text(delta) == text


# -- describe: health breakdown --------------------------------------------------------------------


def _node_sets(**states: str) -> dict[str, Any]:
    return {key: {"state": f"CLUSTER_NODE_SET_STATE_{state}"} for key, state in states.items()}


@pytest.mark.parametrize(
    ("conditions", "node_sets", "control_plane", "workers"),
    [
        ([cond("CONTROL_PLANE_AVAILABLE", "TRUE", "Available"), cond("WORKERS_READY", "TRUE", "Ready")],
         {}, "Available", "Ready"),
        ([cond("CONTROL_PLANE_AVAILABLE", "TRUE", "Available"), cond("WORKERS_READY", "FALSE", "WorkersDegraded")],
         _node_sets(gpu="DEGRADED", workers="READY", arm="DEGRADED"), "Available", "Degraded (node sets arm, gpu)"),
        ([cond("CONTROL_PLANE_AVAILABLE", "FALSE", "NotYetAvailable"),
          cond("WORKERS_READY", "FALSE", "WaitingForControlPlane")], {}, "NotYetAvailable", "WaitingForControlPlane"),
        ([cond("CONTROL_PLANE_AVAILABLE", "TRUE", "Available"), cond("WORKERS_READY", "FALSE", "Scaling"),
          cond("DEGRADED", "TRUE", "ControlPlaneDegraded")],
         _node_sets(workers="SCALING", gpu="READY"), "Available (degraded)", "Scaling (node set workers)"),
        ([], {}, "-", "-"),
    ],
    ids=["healthy", "degraded-node-sets", "starting", "scaling-hc-degraded", "no-conditions"],
)
def test_health_breakdown(
    conditions: list[dict[str, Any]], node_sets: dict[str, Any], control_plane: str, workers: str
) -> None:
    shown = status({"conditions": conditions, "node_sets": node_sets})

    assert (control_plane_text(shown), workers_text(shown)) == (control_plane, workers)


# -- describe: tables ------------------------------------------------------------------------------


def test_node_set_rows_join_spec_and_status_by_key() -> None:
    obj = cluster({
        "spec": {"node_sets": {
            "workers": {"host_type": "ht-1", "size": 5, "fabric_interface": "ens1f0"},
            "new": {"host_type": "ht-2", "size": 2},
        }},
        "status": {"node_sets": {
            "workers": {"host_type": "ht-1", "size": 5, "desired_replicas": 5, "current_replicas": 4,
                        "ready_replicas": 0, "state": "CLUSTER_NODE_SET_STATE_SCALING", "fabric_interface": "ens1f0"},
            "old": {"host_type": "ht-1", "size": 0, "desired_replicas": 1, "current_replicas": 1,
                    "state": 9},
        }},
    })

    rows = node_set_rows(obj, {"ht-1": "bm-standard"})

    assert rows == [
        ["new", "ht-2", "2", "-", "-", "-", "-", "-"],
        ["old", "bm-standard", "0", "1", "1", "0", "9", "-"],
        ["workers", "bm-standard", "5", "5", "4", "0", "SCALING", "ens1f0"],
    ]


def test_condition_rows_camel_case_types_and_print_unknown_numbers_raw() -> None:
    shown = status({"conditions": [
        cond("CONTROL_PLANE_AVAILABLE", "TRUE", "Available", "API server reachable", minutes_ago=23),
        cond(7, "TRUE", "FromTheFuture", minutes_ago=2),
        {"type": "CLUSTER_CONDITION_TYPE_FAILED", "status": 5, "reason": ""},
    ]})

    assert condition_rows(shown, NOW) == [
        ["ControlPlaneAvailable", "True", "Available", "23m", "API server reachable"],
        ["7", "True", "FromTheFuture", "2m", ""],
        ["Failed", "5", "-", "-", ""],
    ]


# -- wait ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("state", "goal", "done", "failure"),
    [
        ("PROGRESSING", Goal.READY, False, None),
        ("READY", Goal.READY, True, None),
        ("FAILED", Goal.READY, False, "is FAILED: ProvisioningFailed: bad image"),
        ("DELETING", Goal.READY, False, "is being deleted"),
        (None, Goal.READY, False, "was deleted"),
        ("READY", Goal.DELETED, False, None),
        ("FAILED", Goal.DELETED, False, None),
        ("DELETING", Goal.DELETED, False, None),
        ("DELETE_FAILED", Goal.DELETED, False, "is DELETE_FAILED: ProvisioningFailed: bad image"),
        (None, Goal.DELETED, True, None),
    ],
)
def test_wait_verdicts(state: str | None, goal: Goal, done: bool, failure: str | None) -> None:
    obj = None if state is None else cluster({"status": {
        "state": f"CLUSTER_STATE_{state}",
        "conditions": [cond("FAILED", "TRUE", "ProvisioningFailed", "bad image")],
    }})

    result = verdict(CLUSTER, obj, goal)

    assert (result.done, result.failure) == (done, failure)


def test_progress_names_state_stage_and_node_set_counts() -> None:
    obj = cluster({
        "spec": {"node_sets": {"workers": {"size": 3}, "gpu": {"size": 2}}},
        "status": {
            "state": "CLUSTER_STATE_PROGRESSING",
            "stage": "WorkersJoining",
            "conditions": [cond("PROGRESSING", "TRUE", "Stalled")],
            "node_sets": {"workers": {"size": 3, "desired_replicas": 3, "current_replicas": 2}},
        },
    })

    assert node_set_counts(obj) == "gpu 0/2, workers 2/3"
    assert progress(CLUSTER, obj) == "PROGRESSING  Stalled (WorkersJoining)  gpu 0/2, workers 2/3"


# -- OSAC_NOW --------------------------------------------------------------------------------------


def test_osac_now_fixes_the_reference_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OSAC_NOW", "2026-03-04T10:43:11Z")

    assert reference_now() == NOW


def test_a_malformed_osac_now_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OSAC_NOW", "yesterday")

    with pytest.raises(CliError, match="OSAC_NOW='yesterday' is not a time"):
        reference_now()


def test_without_osac_now_the_clock_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OSAC_NOW", raising=False)

    assert abs(reference_now() - datetime.now(UTC)) < timedelta(seconds=5)


@pytest.mark.parametrize("kind", [k for k in registry.kinds() if k.state_enum is not None], ids=lambda k: k.name)
def test_wait_for_ready_ends_in_the_usable_state_of_every_kind(kind: Kind) -> None:
    """``--for ready`` (and ``--for running``) ends at the kind's usable state and only there."""
    usable = {"compute_instance": "RUNNING", "bare_metal_instance": "RUNNING", "external_ip": "ALLOCATED"}.get(
        kind.name, "READY")
    assert usable_state(kind) == usable
    assert kind.state_enum is not None
    for value in kind.state_enum.values:
        obj = kind.message_class(private=True)()
        obj.status.state = value.number  # type: ignore[attr-defined]
        state = value.name.rsplit("_STATE_", 1)[-1]
        for goal in (Goal.READY, Goal.RUNNING):
            assert verdict(kind, obj, goal).done is (state == usable), (state, goal)
