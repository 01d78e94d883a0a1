"""Reading the HyperShift dicts (§5.1, §6.1): malformed input is an unreadable observation."""

from __future__ import annotations

import copy
from datetime import timedelta
from typing import Any

import pytest
from google.protobuf import json_format, struct_pb2

from osac.status.clusters.derivation import ClusterStatusView, StallThresholds, derive_cluster_status
from osac.status.clusters.terms import CONTROL_PLANE_AVAILABLE, PROGRESSING, WORKERS_READY
from osac.status.conditions.views import FALSE
from tests.status.conftest import T0, Cluster, cond, context, hc_at, joining_pool, ready_pool


def _joining() -> Cluster:
    cluster = Cluster()
    cluster.observe(None, [])
    cluster.observe(hc_at(4), [joining_pool("workers", 3, 1)], at=timedelta(minutes=10))
    assert cluster.status.stage == "WorkersJoining"
    return cluster


def _set(document: Any, path: str, value: Any) -> Any:
    document = copy.deepcopy(document)
    *parents, last = path.split(".")
    node = document
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return document


GOOD_HC = hc_at(4)
GOOD_POOL = joining_pool("workers", 3, 1)

MALFORMED: list[tuple[str, Any, Any]] = [
    ("hc-not-a-mapping", ["HostedCluster"], [GOOD_POOL]),
    ("hc-status-a-list", _set(GOOD_HC, "status", []), [GOOD_POOL]),
    ("hc-conditions-not-a-list", _set(GOOD_HC, "status.conditions", {"type": "Available"}), [GOOD_POOL]),
    ("hc-condition-without-type", _set(GOOD_HC, "status.conditions.0", {"status": "True"}), [GOOD_POOL]),
    ("hc-condition-not-a-mapping", _set(GOOD_HC, "status.conditions.1", "Available=True"), [GOOD_POOL]),
    ("hc-port-text", _set(GOOD_HC, "status.controlPlaneEndpoint.port", "6443"), [GOOD_POOL]),
    ("hc-port-out-of-range", _set(GOOD_HC, "status.controlPlaneEndpoint.port", 70000), [GOOD_POOL]),
    ("hc-name-a-number", _set(GOOD_HC, "metadata.name", 7), [GOOD_POOL]),
    ("hc-dns-a-string", _set(GOOD_HC, "spec.dns", "example.net"), [GOOD_POOL]),
    ("pools-not-a-list", GOOD_HC, {"workers": GOOD_POOL}),
    ("pools-a-string", GOOD_HC, "workers"),
    ("pool-not-a-mapping", GOOD_HC, [None]),
    ("pool-replicas-negative", GOOD_HC, [_set(GOOD_POOL, "spec.replicas", -1)]),
    ("pool-replicas-text", GOOD_HC, [_set(GOOD_POOL, "spec.replicas", "3")]),
    ("pool-replicas-fraction", GOOD_HC, [_set(GOOD_POOL, "status.replicas", 1.5)]),
    ("pool-replicas-bool", GOOD_HC, [_set(GOOD_POOL, "status.replicas", True)]),
    ("pool-labels-a-list", GOOD_HC, [_set(GOOD_POOL, "metadata.labels", ["workers"])]),
    ("pool-label-a-number", GOOD_HC, [_set(GOOD_POOL, "metadata.labels", {"osac.openshift.io/node-set": 1})]),
    ("one-bad-pool-among-good", GOOD_HC, [ready_pool("gpu", 2), _set(GOOD_POOL, "status.conditions", "x")]),
]


@pytest.mark.parametrize(("hc", "pools"), [row[1:] for row in MALFORMED], ids=[row[0] for row in MALFORMED])
def test_malformed_input_is_an_unreadable_observation(hc: Any, pools: Any) -> None:
    cluster = _joining()
    result = cluster.observe(hc, pools, at=timedelta(minutes=11))
    progressing = cond(result.status, PROGRESSING)
    assert progressing.reason == "StageUnknown"
    assert "malformed observation" in progressing.message
    assert (cond(result.status, CONTROL_PLANE_AVAILABLE).status,
            cond(result.status, CONTROL_PLANE_AVAILABLE).reason) == (FALSE, "StageUnknown")
    assert cond(result.status, WORKERS_READY).reason == "StageUnknown"
    assert result.status.stage == "WorkersJoining"


def test_prose_fields_of_any_type_are_dropped_not_fatal() -> None:
    cluster = _joining()
    hc = _set(hc_at(4), "status.conditions.1.message", {"odd": True})
    hc = _set(hc, "status.conditions.1.reason", None)
    result = cluster.observe(hc, [GOOD_POOL], at=timedelta(minutes=11))
    assert cond(result.status, PROGRESSING).reason == "WorkersJoining"


def test_unlisted_fields_and_condition_types_are_ignored() -> None:
    cluster = _joining()
    hc = copy.deepcopy(hc_at(4))
    hc["status"]["conditions"].append({"type": "ValidReleaseImage", "status": "False", "reason": "Nope"})
    hc["status"]["version"] = {"history": [1, 2, 3]}
    hc["spec"]["release"] = ["anything"]
    result = cluster.observe(hc, [GOOD_POOL], at=timedelta(minutes=11))
    assert cond(result.status, PROGRESSING).reason == "WorkersJoining"


def test_an_observation_carried_as_a_protobuf_struct_reads_the_same() -> None:
    """Struct numbers are floats (``3.0``); they are the same observation."""
    def through_struct(document: dict[str, Any]) -> dict[str, Any]:
        message = struct_pb2.Struct()
        message.update(document)
        converted: dict[str, Any] = json_format.MessageToDict(message)
        return converted

    pools = [ready_pool("workers", 3), joining_pool("gpu", 2, 1)]
    ctx = context({"workers": 3, "gpu": 2})
    plain = derive_cluster_status(hc_at(4), pools, ClusterStatusView(), T0, StallThresholds.DEFAULT, ctx)
    carried = derive_cluster_status(through_struct(hc_at(4)), [through_struct(p) for p in pools],
                                    ClusterStatusView(), T0, StallThresholds.DEFAULT, ctx)
    assert isinstance(through_struct(hc_at(4))["status"]["controlPlaneEndpoint"]["port"], float)
    assert carried == plain
    assert plain.status.node_sets["gpu"].current_replicas == 1
