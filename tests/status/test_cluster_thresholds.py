"""Stall thresholds and progress reasons from the ``cluster_status`` configuration (§8.3, §9.1)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from osac.status.clusters.derivation import StallThresholds
from osac.status.clusters.thresholds import DEFAULT_PROGRESS_REASONS, NEVER

MIN = timedelta(minutes=1)


def test_defaults_are_the_spec_table() -> None:
    thresholds = StallThresholds.DEFAULT
    assert {stage: thresholds.for_stage(stage, ()) for stage in thresholds.per_stage} == {
        "PreparingInfrastructure": 15 * MIN,
        "ControlPlaneStarting": 30 * MIN,
        "WorkersJoining": 20 * MIN,
        "Scaling": 20 * MIN,
        "DestroyingCloudResources": 20 * MIN,
        "DestroyingControlPlane": 15 * MIN,
    }
    assert "WaitingForNodeRef" in thresholds.progress_reasons
    assert StallThresholds.from_section(None) == thresholds
    assert StallThresholds.from_config({}) == thresholds


@pytest.mark.parametrize(
    ("value", "expected"),
    [("20m", 20 * MIN), ("1h30m", 90 * MIN), ("90s", timedelta(seconds=90)), ("1.5h", 90 * MIN),
     (1200, 20 * MIN), (90.5, timedelta(seconds=90.5)), ("600", 10 * MIN), (" 2H ", 120 * MIN)],
)
def test_durations_as_text_or_seconds(value: Any, expected: timedelta) -> None:
    thresholds = StallThresholds.from_section({"stall_thresholds": {"WorkersJoining": value}})
    assert thresholds.for_stage("WorkersJoining", ()) == expected
    assert thresholds.for_stage("ControlPlaneStarting", ()) == 30 * MIN


def test_from_the_whole_configuration() -> None:
    config = {"simulator": {"speed": 60}, "cluster_status": {"stall_thresholds": {"Scaling": "45m"}}}
    assert StallThresholds.from_config(config).for_stage("Scaling", ()) == 45 * MIN


def test_host_type_overrides_take_the_largest_of_the_lagging_node_sets() -> None:
    thresholds = StallThresholds.from_section({
        "host_type_overrides": {"bm-h100": {"WorkersJoining": "60m", "Scaling": "40m"}, "bm-a10": {"WorkersJoining": "30m"}},
    })
    assert thresholds.for_stage("WorkersJoining", ["bm-h100", "bm-standard"]) == 60 * MIN
    assert thresholds.for_stage("WorkersJoining", ["bm-a10", "bm-standard"]) == 30 * MIN
    assert thresholds.for_stage("WorkersJoining", ["bm-standard"]) == 20 * MIN
    assert thresholds.for_stage("WorkersJoining", []) == 20 * MIN
    assert thresholds.for_stage("Scaling", ["bm-a10", "bm-h100"]) == 40 * MIN
    # Only the node-set stages can be overridden; host types do not affect the others.
    assert thresholds.for_stage("ControlPlaneStarting", ["bm-h100"]) == 30 * MIN


def test_an_override_shorter_than_the_default_applies_when_it_is_the_only_lagging_type() -> None:
    thresholds = StallThresholds.from_section({"host_type_overrides": {"vm-small": {"WorkersJoining": "5m"}}})
    assert thresholds.for_stage("WorkersJoining", ["vm-small"]) == 5 * MIN
    assert thresholds.for_stage("WorkersJoining", ["vm-small", "bm-standard"]) == 20 * MIN


def test_a_stage_without_a_threshold_never_stalls() -> None:
    assert StallThresholds.DEFAULT.for_stage("Rebalancing", ()) == NEVER


def test_progress_reasons_replace_the_default_set() -> None:
    thresholds = StallThresholds.from_section({"progress_reasons": ["NotFound", "Provisioning"]})
    assert thresholds.progress_reasons == frozenset({"NotFound", "Provisioning"})
    assert StallThresholds.from_section({}).progress_reasons == DEFAULT_PROGRESS_REASONS


def test_the_value_is_frozen_against_later_changes_of_the_input() -> None:
    per_stage = {"WorkersJoining": 5 * MIN}
    thresholds = StallThresholds(per_stage=per_stage)
    per_stage["WorkersJoining"] = 50 * MIN
    assert thresholds.for_stage("WorkersJoining", ()) == 5 * MIN
    with pytest.raises(TypeError):
        thresholds.per_stage["WorkersJoining"] = MIN  # type: ignore[index]


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"stall_thresholds": {"Stalled": "20m"}}, "cluster_status.stall_thresholds.Stalled: unknown stage"),
        ({"stall_thresholds": {"WorkersJoining": "20x"}}, "cluster_status.stall_thresholds.WorkersJoining"),
        ({"stall_thresholds": {"WorkersJoining": 0}}, "not a positive duration"),
        ({"stall_thresholds": {"WorkersJoining": -5}}, "not a positive duration"),
        ({"stall_thresholds": {"WorkersJoining": True}}, "not a positive duration"),
        ({"stall_thresholds": {"WorkersJoining": ""}}, "not a positive duration"),
        ({"stall_thresholds": ["WorkersJoining"]}, "cluster_status.stall_thresholds must be a mapping"),
        ({"host_type_overrides": {"bm-h100": {"ControlPlaneStarting": "1h"}}},
         "cluster_status.host_type_overrides.bm-h100.ControlPlaneStarting: only Scaling and WorkersJoining"),
        ({"host_type_overrides": {"bm-h100": "1h"}}, "cluster_status.host_type_overrides.bm-h100 must be a mapping"),
        ({"progress_reasons": "NotFound"}, "cluster_status.progress_reasons must be a list"),
        ({"progress_reasons": ["NotFound", 3]}, "cluster_status.progress_reasons must be a list"),
    ],
)
def test_mistakes_are_rejected_naming_the_key(section: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace(".", r"\.")):
        StallThresholds.from_section(section)


def test_a_section_that_is_not_a_mapping_is_rejected() -> None:
    with pytest.raises(ValueError, match="cluster_status must be a mapping"):
        StallThresholds.from_config({"cluster_status": ["oops"]})
