"""``osac alert-rules``: the shipped Prometheus rules for cluster status (cluster-status.md §16) and
networking (networking.md §13)."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml
from prometheus_client import REGISTRY
from typer.testing import CliRunner

from osac.cli import alert_rules
from osac.cli.main import app


def rules_of(output: str, group_name: str = "osac-clusters") -> dict[str, dict[str, Any]]:
    document = yaml.safe_load(output)
    assert [group["name"] for group in document["groups"]] == ["osac-clusters", "osac-networking", "osac-controllers"]
    [group] = [group for group in document["groups"] if group["name"] == group_name]
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


def test_default_networking_rules_are_those_of_section_13() -> None:
    result = CliRunner().invoke(app, ["alert-rules"])
    assert result.exit_code == 0, result.output
    rules = rules_of(result.output, "osac-networking")
    assert {name: (rule["expr"], rule.get("for"), rule["labels"]["severity"]) for name, rule in rules.items()} == {
        "OsacExternalIPPoolNearlyFull": (
            "max by (pool) (osac_external_ip_pool_utilization_ratio) >= 0.9", "10m", "warning"),
        "OsacNetworkCleanupFailed": (
            "sum by (type) (increase(osac_network_cleanup_failures_total[5m])) > 0", None, "warning"),
        "OsacDefaultNetworkingFailed": (
            "sum by (reason) (increase(osac_default_networking_failures_total[5m])) > 0", None, "critical"),
        "OsacAutomaticAddressAllocationFailed": (
            'sum by (space, path) (increase(osac_ip_allocation_failures_total{path!="manual"}[5m])) > 0', None,
            "critical"),
        "OsacNetworkingObjectFailed": (
            'max by (type) (osac_networking_objects{state="FAILED"}) > 0', "15m", "warning"),
    }
    assert "{{ $labels.pool }}" in rules["OsacExternalIPPoolNearlyFull"]["annotations"]["summary"]
    assert "{{ $labels.type | toUpper }}_STATE_FAILED" in rules["OsacNetworkingObjectFailed"]["annotations"]["description"]


def test_networking_thresholds_are_options() -> None:
    result = CliRunner().invoke(app, ["alert-rules", "--pool-utilization", "0.75", "--pool-utilization-for", "30m",
                                      "--network-failure-window", "1h", "--networking-failed-for", "45m"])
    assert result.exit_code == 0, result.output
    rules = rules_of(result.output, "osac-networking")
    pool = rules["OsacExternalIPPoolNearlyFull"]
    assert (pool["expr"], pool["for"]) == ("max by (pool) (osac_external_ip_pool_utilization_ratio) >= 0.75", "30m")
    for name in ("OsacNetworkCleanupFailed", "OsacDefaultNetworkingFailed", "OsacAutomaticAddressAllocationFailed"):
        assert str(rules[name]["expr"]).endswith("[1h])) > 0"), name
    assert rules["OsacNetworkingObjectFailed"]["for"] == "45m"
    assert rules_of(result.output)["OsacClusterFailed"]["expr"].endswith("[5m])) > 0")  # the clusters' window is its own


@pytest.mark.parametrize("value", ["0", "1.5", "-0.2"])
def test_a_utilisation_outside_zero_to_one_is_refused(value: str) -> None:
    result = CliRunner().invoke(app, ["alert-rules", "--pool-utilization", value])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert f"--pool-utilization '{float(value):g}' is not a ratio above 0 and at most 1; use e.g. 0.9" in result.output


@pytest.mark.parametrize("option,value", [("--stalled-for", "5 min"), ("--stage-unknown-for", "0m"),
                                          ("--failure-window", "m5"), ("--stalled-for", ""),
                                          ("--pool-utilization-for", "10"), ("--network-failure-window", "0s"),
                                          ("--networking-failed-for", "15 m")])
def test_a_bad_duration_names_the_option_and_prints_no_rules(option: str, value: str) -> None:
    result = CliRunner().invoke(app, ["alert-rules", option, value])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert f"{option} '{value}' is not a Prometheus duration above zero; use e.g. 90s, 5m or 1h30m" in result.output


def test_every_metric_the_rules_read_is_exported() -> None:
    """The rules name metrics the reconcilers' and services' metrics modules register (counters
    are collected under their name without ``_total``)."""
    import osac.controllers.clusters.metrics  # noqa: F401  (registers the cluster metrics)
    import osac.controllers.networking.metrics  # noqa: F401  (registers the networking metrics)
    import osac.services.networking.allocation_metrics  # noqa: F401  (registers the allocation failures)
    from osac.controllers.runtime.metrics import default_metrics

    default_metrics()  # the controller runtime's metrics

    exported = {metric.name for metric in REGISTRY.collect()}
    for metric in alert_rules.METRICS:
        assert metric.removesuffix("_total") in exported, metric
    rendered = alert_rules.render("5m", "10m", "5m")
    assert set(re.findall(r"\bosac_[a-z_]+", rendered)) == set(alert_rules.METRICS)


def test_a_controller_falling_behind_alerts_on_its_oldest_waiting_key() -> None:
    result = CliRunner().invoke(app, ["alert-rules"])
    assert result.exit_code == 0, result.output
    [rule] = rules_of(result.output, "osac-controllers").values()
    assert rule["alert"] == "OsacControllerFallingBehind"
    assert rule["expr"] == "max by (kind) (osac_workqueue_oldest_seconds) > 5"
    assert rule["for"] == "2m" and rule["labels"]["severity"] == "warning"

    result = CliRunner().invoke(app, ["alert-rules", "--controller-lag", "0.5", "--controller-lag-for", "30s"])
    assert result.exit_code == 0, result.output
    [rule] = rules_of(result.output, "osac-controllers").values()
    assert rule["expr"] == "max by (kind) (osac_workqueue_oldest_seconds) > 0.5" and rule["for"] == "30s"


def test_a_controller_lag_of_zero_is_refused_naming_the_option() -> None:
    result = CliRunner().invoke(app, ["alert-rules", "--controller-lag", "0"])
    assert result.exit_code != 0
    assert result.stdout == ""
    assert "--controller-lag '0' is not a number of seconds above zero; use e.g. 5" in result.output
