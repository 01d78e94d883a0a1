"""Version skew and the view <-> ClusterStatus conversion (cluster-status.md §19, scenario 20)."""

from __future__ import annotations

import copy
import pickle
from dataclasses import replace
from datetime import timedelta

from google.protobuf import json_format

from osac.api.private.v1 import cluster_type_pb2 as private
from osac.api.public.v1 import cluster_type_pb2 as public
from osac.status.clusters.derivation import (
    ClusterStatusView,
    NodeSetStatusView,
    StallThresholds,
    apply_view_to_status,
    derive_cluster_status,
    view_from_status,
)
from osac.status.clusters.terms import NODE_SET_READY, STATE_READY
from osac.status.conditions.views import ConditionView
from tests.status.conftest import T0, Cluster, context, hc_at, ready_pool

STORED = {
    "state": "CLUSTER_STATE_READY",
    "state_transition_time": "2026-03-04T10:18:00.123456789Z",
    "stage": "",
    "stage_entered_at": "2026-03-04T10:18:00.123456789Z",
    "hub": "simulated",
    "kubeconfig_secret": "reserved",
    "api_url": "https://10.0.1.240:6443",
    "api_endpoint": "10.0.1.240",
    "ingress_endpoint": "10.0.1.241",
    "conditions": [
        {"type": 1, "status": 2, "reason": "AsExpected", "last_transition_time": "2026-03-04T10:18:00.000000001Z"},
        {"type": 7, "status": 3, "reason": "FromTheFuture", "message": "newer writer",
         "last_transition_time": "2026-03-04T10:19:00Z"},
    ],
    "node_sets": {
        "workers": {"host_type": "bm-standard", "size": 3, "desired_replicas": 3, "current_replicas": 3,
                    "ready_replicas": 3, "state": 9, "fabric_interface": "ens1f0",
                    "first_ready_time": "2026-03-04T10:16:00.000000500Z"},
    },
}


def _stored() -> private.ClusterStatus:
    return json_format.ParseDict(STORED, private.ClusterStatus())


def test_view_round_trip_is_lossless_including_unknown_numbers_and_nanoseconds() -> None:
    message = _stored()
    view = view_from_status(message)
    assert view.state == STATE_READY
    assert view.condition(7) == ConditionView(7, 3, "FromTheFuture", "newer writer", T0 + timedelta(minutes=19))
    assert view.node_sets["workers"].state == 9
    rewritten = _stored()
    apply_view_to_status(view, rewritten)
    assert rewritten == message
    fresh = private.ClusterStatus()
    apply_view_to_status(view, fresh)
    assert view_from_status(fresh) == view


def test_fields_the_view_does_not_own_are_left_alone() -> None:
    message = _stored()
    apply_view_to_status(ClusterStatusView(state=1, stage="PreparingInfrastructure", stage_entered_at=T0), message)
    assert (message.hub, message.kubeconfig_secret) == ("simulated", "reserved")
    assert (message.state, message.stage, len(message.conditions), len(message.node_sets)) == (
        1, "PreparingInfrastructure", 0, 0)
    assert not message.HasField("state_transition_time")
    assert message.stage_entered_at.ToDatetime().isoformat() == "2026-03-04T10:00:00"


def test_public_messages_convert_too() -> None:
    message = json_format.ParseDict({k: v for k, v in STORED.items() if k != "hub"}, public.ClusterStatus())
    assert view_from_status(message) == view_from_status(_stored())


def test_derivation_preserves_a_newer_condition_type() -> None:
    previous = view_from_status(_stored())
    ready_set = NodeSetStatusView(host_type="bm-standard", size=3, desired_replicas=3, current_replicas=3,
                                  ready_replicas=3, state=NODE_SET_READY, first_ready_time=T0)
    previous = replace(previous, node_sets={"workers": ready_set})
    result = derive_cluster_status(hc_at(9), [ready_pool("workers", 3)], previous, T0 + timedelta(hours=1),
                                   StallThresholds.DEFAULT, context())
    assert [c.type for c in result.status.conditions] == [1, 2, 3, 4, 5, 6, 7]
    assert result.status.condition(7) == previous.condition(7)


def test_an_unknown_node_set_state_survives_while_the_node_set_is_unknown() -> None:
    previous = view_from_status(_stored())
    result = derive_cluster_status(None, [], previous, T0 + timedelta(hours=1), StallThresholds.DEFAULT,
                                   context(observation_readable=False, observation_error="timeout"))
    assert result.status.node_sets["workers"].state == 9
    assert result.status.condition(7) == previous.condition(7)
    stored = _stored()
    apply_view_to_status(result.status, stored)
    assert stored.node_sets["workers"].state == 9
    assert [int(c.type) for c in stored.conditions] == [1, 2, 3, 4, 5, 6, 7]
    assert stored.hub == "simulated"


def test_a_state_number_from_a_newer_version_is_left_untouched_until_deletion() -> None:
    previous = ClusterStatusView(state=9, stage="Rebalancing", stage_entered_at=T0,
                                 conditions=(ConditionView(1, 1, "Rebalancing", "", T0),))
    untouched = derive_cluster_status(hc_at(9), [], previous, T0 + timedelta(hours=1), StallThresholds.DEFAULT,
                                      context())
    assert untouched.status == previous and untouched.events == ()
    deleted = derive_cluster_status(hc_at(9), [], previous, T0 + timedelta(hours=1), StallThresholds.DEFAULT,
                                    context(deletion_requested=True))
    assert (deleted.status.state, deleted.status.stage) == (4, "DestroyingCloudResources")
    assert [e.reason for e in deleted.events] == ["StageChanged", "Deleting"]


def test_a_status_surviving_storage_derives_identically() -> None:
    cluster = Cluster(ctx=context())
    cluster.observe(None, [])
    cluster.observe(hc_at(4), [ready_pool("workers", 3)], at=timedelta(minutes=10))
    stored = private.ClusterStatus(hub="simulated")
    apply_view_to_status(cluster.status, stored)
    restored = view_from_status(private.ClusterStatus.FromString(stored.SerializeToString()))
    assert restored == cluster.status


def test_views_and_thresholds_survive_copy_and_pickle() -> None:
    view = view_from_status(_stored())
    thresholds = StallThresholds.from_section({"host_type_overrides": {"bm-h100": {"Scaling": "40m"}}})
    for value in (view, thresholds):
        assert copy.deepcopy(value) == value
        assert pickle.loads(pickle.dumps(value)) == value
    restored = pickle.loads(pickle.dumps(view))
    assert list(restored.node_sets) == ["workers"]
    assert restored.node_sets["workers"].state == 9
