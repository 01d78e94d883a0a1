"""The STAGE and HEALTH cell rules (cluster-status.md §14) against the shared golden table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format

from osac.api.private.v1 import cluster_type_pb2 as private
from osac.api.public.v1 import cluster_type_pb2 as public
from osac.status.clusters.cells import health_cell, stage_cell
from osac.status.clusters.derivation import view_from_status
from osac.status.conditions.views import ConditionView

GOLDEN = json.loads((Path(__file__).parent / "golden" / "cluster_cells.json").read_text())["cases"]
IDS = [case["name"] for case in GOLDEN]


@pytest.mark.parametrize("case", GOLDEN, ids=IDS)
def test_cells_from_status_json(case: dict[str, Any]) -> None:
    assert stage_cell(case["status"]) == case["stage"]
    assert health_cell(case["status"]) == case["health"]


@pytest.mark.parametrize("case", GOLDEN, ids=IDS)
@pytest.mark.parametrize("message_type", [public.ClusterStatus, private.ClusterStatus], ids=["public", "private"])
def test_cells_from_messages_and_views(case: dict[str, Any], message_type: Any) -> None:
    message = json_format.ParseDict(case["status"], message_type())
    assert (stage_cell(message), health_cell(message)) == (case["stage"], case["health"])
    view = view_from_status(message)
    assert (stage_cell(view), health_cell(view)) == (case["stage"], case["health"])
    assert stage_cell(view.conditions, view.stage) == case["stage"]
    assert health_cell(view.conditions) == case["health"]


def test_the_golden_table_covers_every_cell_rule() -> None:
    stages = {case["stage"] for case in GOLDEN}
    healths = {case["health"] for case in GOLDEN}
    assert {"StageUnknown", "-"} <= stages
    assert any(stage.startswith("Stalled (") for stage in stages)
    assert {"Healthy", "Unknown", "Degraded", "Scaling", "Deleting", "Failed", "Provisioning",
            "ControlPlaneUnavailable", "WorkersNotReady"} <= healths


def test_stalled_without_a_known_stage_prints_a_dash() -> None:
    conditions = [ConditionView(1, 1, "Stalled")]
    assert stage_cell(conditions) == "Stalled (-)"


def test_json_that_is_not_a_cluster_status_is_rejected() -> None:
    with pytest.raises(ValueError, match="not a cluster status"):
        stage_cell({"conditions": "nope"})
