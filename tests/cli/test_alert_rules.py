"""``osac alert-rules``: the shipped Prometheus rules for cluster status (cluster-status.md §16)."""

from __future__ import annotations

import re

import pytest
import yaml
from prometheus_client import REGISTRY
from typer.testing import CliRunner

from osac.cli import alert_rules
from osac.cli.main import app


def rules_of(output: str) -> dict[str, dict[str, object]]:
    document = yaml.safe_load(output)
    [group] = document["groups"]
    assert group["name"] == "osac-clusters"
    return {rule["alert"]: rule for rule in group["rules"]}


def test_default_rules_are_the_three_of_the_spec() -> None:
    result = CliRunner().invoke(app, ["alert-rules"])
    assert result.exit_code == 0, result.output
    rules = rules_of(result.output)
    assert list(rules) == ["OsacClusterStalled", "OsacClusterStageUnknown", "OsacClusterFailed"]
    stalled, unknown, failed = rules.values()
    assert stalled["expr"] == "max by (cluster_id, cluster_name, tenant, stage) (osac_cluster_stalled_info) == 1"
    assert stalled["for"] == "5m"
    assert unknown["expr"] == "sum by (tenant) (osac_clusters_stage_unknown) > 0" and unknown["for"] == "10m"
    assert failed["expr"] == ('sum by (to) (increase(osac_cluster_state_transitions_total{to=~"FAILED|DELETE_FAILED"}'
                              '[5m])) > 0')
    assert "for" not in failed  # any entry into a failed state alerts at once
    assert {rule["labels"]["severity"] for rule in rules.values()} == {"warning", "critical"}
    assert "{{ $labels.cluster_name }}" in stalled["annotations"]["summary"]


def test_thresholds_are_options() -> None:
    result = CliRunner().invoke(app, ["alert-rules", "--stalled-for", "15m", "--stage-unknown-for", "1h30m",
                                      "--failure-window", "90s"])
    assert result.exit_code == 0, result.output
    rules = rules_of(result.output)
    assert rules["OsacClusterStalled"]["for"] == "15m"
    assert rules["OsacClusterStageUnknown"]["for"] == "1h30m"
    assert str(rules["OsacClusterFailed"]["expr"]).endswith("[90s])) > 0")


@pytest.mark.parametrize("option,value", [("--stalled-for", "5 min"), ("--stage-unknown-for", "0m"),
                                          ("--failure-window", "m5"), ("--stalled-for", "")])
def test_a_bad_duration_names_the_option_and_prints_no_rules(option: str, value: str) -> None:
    result = CliRunner().invoke(app, ["alert-rules", option, value])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert f"{option} '{value}' is not a Prometheus duration above zero; use e.g. 90s, 5m or 1h30m" in result.output


def test_every_metric_the_rules_read_is_exported() -> None:
    """The rules name metrics the reconcilers' metrics module registers (counters are collected
    under their name without ``_total``)."""
    import osac.controllers.cluster_metrics  # noqa: F401  (registers the cluster metrics)

    exported = {metric.name for metric in REGISTRY.collect()}
    for metric in alert_rules.METRICS:
        assert metric.removesuffix("_total") in exported, metric
    rendered = alert_rules.render("5m", "10m", "5m")
    assert set(re.findall(r"\bosac_[a-z_]+", rendered)) == set(alert_rules.METRICS)
