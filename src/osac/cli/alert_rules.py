"""``osac alert-rules``: the Prometheus alerting rules shipped for cluster status.

Three alerts on the metrics of cluster-status.md §16, thresholds configurable:

- ``OsacClusterStalled``: a cluster has been Stalled (``osac_cluster_stalled_info``) for
  ``--stalled-for`` (default 5m); one alert per cluster, naming it.
- ``OsacClusterStageUnknown``: a tenant has had clusters whose stage cannot be read
  (``osac_clusters_stage_unknown``) for ``--stage-unknown-for`` (default 10m).
- ``OsacClusterFailed``: a cluster entered FAILED or DELETE_FAILED
  (``osac_cluster_state_transitions_total``) within ``--failure-window`` (default 5m).

The output is a Prometheus rules file (``rule_files:`` in prometheus.yml, or a PrometheusRule's
``spec``); stdout carries only the YAML so it can be redirected into place.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from osac.cli.errors import CliError

GROUP = "osac-clusters"
#: A Prometheus duration: units from years to milliseconds, largest first, at least one.
_DURATION = re.compile(r"^(?=\d)((\d+)y)?((\d+)w)?((\d+)d)?((\d+)h)?((\d+)m)?((\d+)s)?((\d+)ms)?$")
#: Every metric the rules read (checked against what a server exports).
METRICS = ("osac_cluster_stalled_info", "osac_clusters_stage_unknown", "osac_cluster_state_transitions_total")


def check_duration(option: str, value: str) -> str:
    if not _DURATION.match(value) or set(value) <= set("0ywdhms"):
        raise CliError(f"{option} '{value}' is not a Prometheus duration above zero; use e.g. 90s, 5m or 1h30m")
    return value


def alert_rules(stalled_for: str = "5m", stage_unknown_for: str = "10m", failure_window: str = "5m") -> dict[str, Any]:
    """The rules file as a mapping (``yaml.safe_dump`` gives the file)."""
    check_duration("--stalled-for", stalled_for)
    check_duration("--stage-unknown-for", stage_unknown_for)
    check_duration("--failure-window", failure_window)
    failed = 'osac_cluster_state_transitions_total{to=~"FAILED|DELETE_FAILED"}'
    return {"groups": [{"name": GROUP, "rules": [
        {
            "alert": "OsacClusterStalled",
            "expr": "max by (cluster_id, cluster_name, tenant, stage) (osac_cluster_stalled_info) == 1",
            "for": stalled_for,
            "labels": {"severity": "warning"},
            "annotations": {
                "summary": "Cluster {{ $labels.tenant }}/{{ $labels.cluster_name }} is stalled in stage "
                           "{{ $labels.stage }}",
                "description": "The stage has run past its threshold. See the STALLED condition's message: "
                               "osac describe cluster {{ $labels.cluster_id }} --private",
            },
        },
        {
            "alert": "OsacClusterStageUnknown",
            "expr": "sum by (tenant) (osac_clusters_stage_unknown) > 0",
            "for": stage_unknown_for,
            "labels": {"severity": "warning"},
            "annotations": {
                "summary": "{{ $value }} cluster(s) of tenant {{ $labels.tenant }} have a stage that cannot be read",
                "description": "The hosted-cluster signals are unreadable (StageUnknown); check the provider "
                               "connection. osac get clusters --private "
                               "--filter \"this.status.stage == 'StageUnknown'\"",
            },
        },
        {
            "alert": "OsacClusterFailed",
            "expr": f"sum by (to) (increase({failed}[{failure_window}])) > 0",
            "labels": {"severity": "critical"},
            "annotations": {
                "summary": "A cluster entered {{ $labels.to }}",
                "description": "See its FAILED condition and events: osac get clusters --private "
                               "--filter \"this.status.state == CLUSTER_STATE_{{ $labels.to }}\"",
            },
        },
    ]}]}


def render(stalled_for: str, stage_unknown_for: str, failure_window: str) -> str:
    rules = alert_rules(stalled_for, stage_unknown_for, failure_window)
    return str(yaml.safe_dump(rules, sort_keys=False, width=120))
