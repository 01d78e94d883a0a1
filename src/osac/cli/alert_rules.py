"""``osac alert-rules``: the Prometheus alerting rules shipped for cluster status and networking.

Group ``osac-clusters``, three alerts on the metrics of cluster-status.md §16:

- ``OsacClusterStalled``: a cluster has been Stalled (``osac_cluster_stalled_info``) for
  ``--stalled-for`` (default 5m); one alert per cluster, naming it.
- ``OsacClusterStageUnknown``: a tenant has had clusters whose stage cannot be read
  (``osac_clusters_stage_unknown``) for ``--stage-unknown-for`` (default 10m).
- ``OsacClusterFailed``: a cluster entered FAILED or DELETE_FAILED
  (``osac_cluster_state_transitions_total``) within ``--failure-window`` (default 5m).

Group ``osac-networking``, the rules of networking.md §13:

- ``OsacExternalIPPoolNearlyFull``: a pool's ``osac_external_ip_pool_utilization_ratio`` has
  been at least ``--pool-utilization`` (default 0.9) for ``--pool-utilization-for`` (10m).
- ``OsacNetworkCleanupFailed``, ``OsacDefaultNetworkingFailed``,
  ``OsacAutomaticAddressAllocationFailed``: any increase, within ``--network-failure-window``
  (5m), of ``osac_network_cleanup_failures_total``, ``osac_default_networking_failures_total``
  or ``osac_ip_allocation_failures_total{path!="manual"}`` (a manual create refused for lack of
  addresses is the caller's answer, not an operator's problem).
- ``OsacNetworkingObjectFailed``: objects of a kind have been FAILED
  (``osac_networking_objects{state="FAILED"}``) for ``--networking-failed-for`` (15m).

Group ``osac-controllers``, the controllers' own health (docs/controllers.md "Pass cost and
overload"):

- ``OsacControllerFallingBehind``: the key that has waited longest in a kind's work queue
  (``osac_workqueue_oldest_seconds``) has waited more than ``--controller-lag`` seconds (default 5)
  for ``--controller-lag-for`` (2m): the controller is over capacity and the status of what
  changes is getting late. A controller that keeps up holds that age near zero.

Every threshold is an option.

The output is a Prometheus rules file (``rule_files:`` in prometheus.yml, or a PrometheusRule's
``spec``); stdout carries only the YAML so it can be redirected into place.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from osac.cli.errors import CliError

GROUP = "osac-clusters"
NETWORKING_GROUP = "osac-networking"
CONTROLLERS_GROUP = "osac-controllers"
#: A Prometheus duration: units from years to milliseconds, largest first, at least one.
_DURATION = re.compile(r"^(?=\d)((\d+)y)?((\d+)w)?((\d+)d)?((\d+)h)?((\d+)m)?((\d+)s)?((\d+)ms)?$")
#: Every metric the rules read (checked against what a server exports).
METRICS = (
    "osac_cluster_stalled_info", "osac_clusters_stage_unknown", "osac_cluster_state_transitions_total",
    "osac_external_ip_pool_utilization_ratio", "osac_network_cleanup_failures_total",
    "osac_default_networking_failures_total", "osac_ip_allocation_failures_total", "osac_networking_objects",
    "osac_workqueue_oldest_seconds", "osac_workqueue_depth", "osac_reconcile_total", "osac_reconcile_cpu_seconds",
)


def check_duration(option: str, value: str) -> str:
    if not _DURATION.match(value) or set(value) <= set("0ywdhms"):
        raise CliError(f"{option} '{value}' is not a Prometheus duration above zero; use e.g. 90s, 5m or 1h30m")
    return value


def check_ratio(option: str, value: float) -> float:
    if not 0 < value <= 1:
        raise CliError(f"{option} '{value:g}' is not a ratio above 0 and at most 1; use e.g. 0.9")
    return value


def alert_rules(
    stalled_for: str = "5m",
    stage_unknown_for: str = "10m",
    failure_window: str = "5m",
    *,
    pool_utilization: float = 0.9,
    pool_utilization_for: str = "10m",
    network_failure_window: str = "5m",
    networking_failed_for: str = "15m",
    controller_lag: float = 5.0,
    controller_lag_for: str = "2m",
) -> dict[str, Any]:
    """The rules file as a mapping (``yaml.safe_dump`` gives the file).

    :raises CliError: a duration that is not a Prometheus duration above zero, a utilisation
        outside (0, 1], or a controller lag that is not a number of seconds above zero; the
        message names the option.
    """
    check_duration("--stalled-for", stalled_for)
    check_duration("--stage-unknown-for", stage_unknown_for)
    check_duration("--failure-window", failure_window)
    check_ratio("--pool-utilization", pool_utilization)
    check_duration("--pool-utilization-for", pool_utilization_for)
    check_duration("--network-failure-window", network_failure_window)
    check_duration("--networking-failed-for", networking_failed_for)
    if not controller_lag > 0:
        raise CliError(f"--controller-lag '{controller_lag:g}' is not a number of seconds above zero; use e.g. 5")
    check_duration("--controller-lag-for", controller_lag_for)
    return {"groups": [
        _cluster_group(stalled_for, stage_unknown_for, failure_window),
        _networking_group(pool_utilization, pool_utilization_for, network_failure_window, networking_failed_for),
        _controllers_group(controller_lag, controller_lag_for),
    ]}


def _controllers_group(lag: float, lag_for: str) -> dict[str, Any]:
    return {"name": CONTROLLERS_GROUP, "rules": [
        {
            "alert": "OsacControllerFallingBehind",
            "expr": f"max by (kind) (osac_workqueue_oldest_seconds) > {lag:g}",
            "for": lag_for,
            "labels": {"severity": "warning"},
            "annotations": {
                "summary": "The {{ $labels.kind }} controller is falling behind: a key has waited "
                           "{{ $value | humanizeDuration }} for a worker",
                "description": "Changes are queued faster than the controller reconciles them, so status "
                               "updates are late. See osac_workqueue_depth{kind=\"{{ $labels.kind }}\"}, "
                               "rate(osac_reconcile_total[1m]) and osac_reconcile_cpu_seconds.",
            },
        },
    ]}


def _cluster_group(stalled_for: str, stage_unknown_for: str, failure_window: str) -> dict[str, Any]:
    failed = 'osac_cluster_state_transitions_total{to=~"FAILED|DELETE_FAILED"}'
    return {"name": GROUP, "rules": [
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
    ]}


def _networking_group(pool_utilization: float, pool_utilization_for: str, window: str, failed_for: str) -> dict[str, Any]:
    def increase(selector: str, by: str) -> str:
        return f"sum by ({by}) (increase({selector}[{window}])) > 0"

    return {"name": NETWORKING_GROUP, "rules": [
        {
            "alert": "OsacExternalIPPoolNearlyFull",
            "expr": f"max by (pool) (osac_external_ip_pool_utilization_ratio) >= {pool_utilization:g}",
            "for": pool_utilization_for,
            "labels": {"severity": "warning"},
            "annotations": {
                "summary": "ExternalIPPool {{ $labels.pool }} is {{ $value | humanizePercentage }} allocated",
                "description": "Automatic external IPs and tenant onboarding with NAT fail once no READY pool "
                               "has a free address. Add a pool or CIDRs: osac get external_ip_pools --private",
            },
        },
        {
            "alert": "OsacNetworkCleanupFailed",
            "expr": increase("osac_network_cleanup_failures_total", "type"),
            "labels": {"severity": "warning"},
            "annotations": {
                "summary": "A {{ $labels.type }} could not be torn down (DELETE_FAILED)",
                "description": "Its message names what is left; fix the cause, then Delete again or Signal. "
                               "osac get {{ $labels.type }} --private --filter "
                               "\"this.status.state == {{ $labels.type | toUpper }}_STATE_DELETE_FAILED\"",
            },
        },
        {
            "alert": "OsacDefaultNetworkingFailed",
            "expr": increase("osac_default_networking_failures_total", "reason"),
            "labels": {"severity": "critical"},
            "annotations": {
                "summary": "Default networking of a tenant failed: {{ $labels.reason }}",
                "description": "The tenant is FAILED; its DEFAULT_NETWORKING_READY message names the failed "
                               "default. After fixing the cause, Signal the tenant. osac get tenants --private "
                               "--filter \"this.status.state == TENANT_STATE_FAILED\"",
            },
        },
        {
            "alert": "OsacAutomaticAddressAllocationFailed",
            "expr": increase('osac_ip_allocation_failures_total{path!="manual"}', "space, path"),
            "labels": {"severity": "critical"},
            "annotations": {
                "summary": "{{ $labels.path }} requests were refused: no {{ $labels.space }} address left",
                "description": "Workload creates with automatic external access or tenant onboarding fail "
                               "with RESOURCE_EXHAUSTED until capacity is added.",
            },
        },
        {
            "alert": "OsacNetworkingObjectFailed",
            "expr": 'max by (type) (osac_networking_objects{state="FAILED"}) > 0',
            "for": failed_for,
            "labels": {"severity": "warning"},
            "annotations": {
                "summary": "{{ $value }} {{ $labels.type }} object(s) FAILED",
                "description": "A provider error left them FAILED; their status message says why. Fix the "
                               "cause, then Signal them. osac get {{ $labels.type }} --private --filter "
                               "\"this.status.state == {{ $labels.type | toUpper }}_STATE_FAILED\"",
            },
        },
    ]}


def render(
    stalled_for: str,
    stage_unknown_for: str,
    failure_window: str,
    *,
    pool_utilization: float = 0.9,
    pool_utilization_for: str = "10m",
    network_failure_window: str = "5m",
    networking_failed_for: str = "15m",
    controller_lag: float = 5.0,
    controller_lag_for: str = "2m",
) -> str:
    rules = alert_rules(
        stalled_for, stage_unknown_for, failure_window,
        pool_utilization=pool_utilization, pool_utilization_for=pool_utilization_for,
        network_failure_window=network_failure_window, networking_failed_for=networking_failed_for,
        controller_lag=controller_lag, controller_lag_for=controller_lag_for,
    )
    return str(yaml.safe_dump(rules, sort_keys=False, width=120))
