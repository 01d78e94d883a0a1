"""CONTROL_PLANE_AVAILABLE = KubeAPIServerAvailable AND Available (cluster-status.md §5.2, scenario 5)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from osac.status.clusters.terms import CONTROL_PLANE_AVAILABLE
from osac.status.conditions.views import FALSE, TRUE
from tests.status.conftest import Cluster, cond, hc_at, hc_condition, hosted_cluster, node_pool

# U is Unknown or absent; both spellings are exercised for every U cell.
U_VALUES = ("Unknown", None)
TABLE = [
    ("True", "True", TRUE, "Available"),
    ("True", "False", FALSE, "NotYetAvailable"),
    ("False", "True", FALSE, "NotYetAvailable"),
    ("False", "False", FALSE, "NotYetAvailable"),
    *[("False", u, FALSE, "NotYetAvailable") for u in U_VALUES],
    *[(u, "False", FALSE, "NotYetAvailable") for u in U_VALUES],
    *[("True", u, FALSE, "StageUnknown") for u in U_VALUES],
    *[(u, "True", FALSE, "StageUnknown") for u in U_VALUES],
    *[(a, b, FALSE, "StageUnknown") for a in U_VALUES for b in U_VALUES],
]


def _past_preparing() -> Cluster:
    """A cluster in ControlPlaneStarting: its HostedCluster is expected to exist."""
    cluster = Cluster()
    cluster.observe(None, [])
    cluster.observe(hc_at(2), [node_pool("workers", replicas=3)], at=timedelta(minutes=3))
    assert cluster.status.stage == "ControlPlaneStarting"
    return cluster


@pytest.mark.parametrize(
    ("kube_api", "available", "status", "reason"), TABLE,
    ids=[f"KAS={a or 'absent'}-Available={b or 'absent'}" for a, b, _, _ in TABLE],
)
def test_control_plane_truth_table(kube_api: str | None, available: str | None, status: int, reason: str) -> None:
    cluster = _past_preparing()
    hc = hc_at(2, kube_api=kube_api, available=available, endpoint=("10.0.1.240", 6443))
    result = cluster.observe(hc, [node_pool("workers", replicas=3)], at=timedelta(minutes=4))
    control_plane = cond(result.status, CONTROL_PLANE_AVAILABLE)
    assert (control_plane.status, control_plane.reason) == (status, reason)
    if status == FALSE:
        # The message names each signal that is not True.
        if kube_api != "True":
            assert "KubeAPIServerAvailable" in control_plane.message
        if available != "True":
            assert "Available" in control_plane.message.replace("KubeAPIServerAvailable", "")
    else:
        assert control_plane.message == "API server reachable at 10.0.1.240:6443"


def test_failing_signal_message_carries_reason_and_message() -> None:
    cluster = _past_preparing()
    hc = hc_at(2, kube_api=("False", "APIServerDown", "etcd quorum lost"), available="True")
    control_plane = cond(cluster.observe(hc, [], at=timedelta(minutes=4)).status, CONTROL_PLANE_AVAILABLE)
    assert control_plane.message == "KubeAPIServerAvailable False (APIServerDown: etcd quorum lost)"


@pytest.mark.parametrize("odd_status", ["true", "TRUE", "Yes", "", True, 1])
def test_any_status_other_than_exactly_true_or_false_is_unknown(odd_status: object) -> None:
    cluster = _past_preparing()
    hc = hc_at(4)
    for item in hc["status"]["conditions"]:
        if item["type"] == "Available":
            item["status"] = odd_status
    control_plane = cond(cluster.observe(hc, [], at=timedelta(minutes=4)).status, CONTROL_PLANE_AVAILABLE)
    assert (control_plane.status, control_plane.reason) == (FALSE, "StageUnknown")


def test_a_duplicated_condition_type_reads_as_unknown() -> None:
    cluster = _past_preparing()
    hc = hc_at(4, extra_conditions=[hc_condition("Available", "True")])
    control_plane = cond(cluster.observe(hc, [], at=timedelta(minutes=4)).status, CONTROL_PLANE_AVAILABLE)
    assert (control_plane.status, control_plane.reason) == (FALSE, "StageUnknown")


def test_unreadable_observation() -> None:
    cluster = _past_preparing()
    result = cluster.observe(None, [], at=timedelta(minutes=4), observation_readable=False,
                             observation_error="hub timeout")
    control_plane = cond(result.status, CONTROL_PLANE_AVAILABLE)
    assert (control_plane.status, control_plane.reason) == (FALSE, "StageUnknown")
    assert "hub timeout" in control_plane.message


def test_hosted_cluster_not_created_yet() -> None:
    cluster = Cluster()
    result = cluster.observe(None, [])
    control_plane = cond(result.status, CONTROL_PLANE_AVAILABLE)
    assert (control_plane.status, control_plane.reason) == (FALSE, "NotYetAvailable")
    assert result.status.stage == "PreparingInfrastructure"


def test_hosted_cluster_missing_after_preparing() -> None:
    cluster = _past_preparing()
    control_plane = cond(cluster.observe(None, [], at=timedelta(minutes=4)).status, CONTROL_PLANE_AVAILABLE)
    assert (control_plane.status, control_plane.reason) == (FALSE, "StageUnknown")


def test_endpoint_without_port_uses_6443_and_ipv6_is_bracketed() -> None:
    cluster = _past_preparing()
    hc = hosted_cluster(infrastructure="True", kube_api="True", available="True", endpoint=("fd00::1", 0))
    result = cluster.observe(hc, [], at=timedelta(minutes=4))
    assert cond(result.status, CONTROL_PLANE_AVAILABLE).message == "API server reachable at [fd00::1]:6443"
    assert result.status.api_url == "https://[fd00::1]:6443"
