"""``ComputeInstanceStatusView`` <-> private ``ComputeInstanceStatus``: a lossless round trip that
leaves ``hub``, unknown enum numbers and unknown fields alone."""

from __future__ import annotations

from datetime import timedelta

from osac.api.private.v1 import compute_instance_type_pb2 as pb
from osac.status.compute.derivation import ComputeInstanceStatusView, ComputeNetworkAttachmentStatusView
from osac.status.compute.proto import apply_view_to_status, view_from_status
from osac.status.conditions.views import ConditionView
from tests.support.compute_status import ADDRESS, DONE, T0, Instance, dvs, vm, vmi

#: Field 99 (varint 1), as a newer version would write it.
UNKNOWN_FIELD = bytes([0x98, 0x06, 0x01])


def derived_view() -> ComputeInstanceStatusView:
    ci = Instance()
    ci.observe(vm("Running"), vmi(), dvs(*DONE), at=timedelta(minutes=2))
    return ci.status


def test_round_trip_is_lossless() -> None:
    view = derived_view()
    message = pb.ComputeInstanceStatus()
    apply_view_to_status(view, message)
    assert message.state == pb.COMPUTE_INSTANCE_STATE_RUNNING
    assert message.internal_ip_address == ADDRESS
    assert view_from_status(message) == view


def test_fields_the_view_does_not_own_survive() -> None:
    message = pb.ComputeInstanceStatus(hub="simulated")
    message.MergeFromString(UNKNOWN_FIELD)
    apply_view_to_status(derived_view(), message)
    assert message.hub == "simulated"
    assert UNKNOWN_FIELD in message.SerializeToString()


def test_unknown_enum_numbers_and_condition_types_survive() -> None:
    view = ComputeInstanceStatusView(
        state=42,
        conditions=(ConditionView(7, 9, "FromTheFuture", "newer", T0), ConditionView(2, 1, "AsExpected", "", T0)),
        last_restarted_at=T0,
        compute_network_attachment_statuses=(ComputeNetworkAttachmentStatusView("subnet-a", ADDRESS, True),),
    )
    message = pb.ComputeInstanceStatus()
    apply_view_to_status(view, message)
    assert message.state == 42
    assert [(c.type, c.status) for c in message.conditions] == [(7, 9), (2, 1)]
    assert view_from_status(message) == view


def test_rewriting_an_unchanged_status_keeps_stored_nanoseconds_and_entry_fields() -> None:
    message = pb.ComputeInstanceStatus()
    apply_view_to_status(derived_view(), message)
    message.state_transition_time.nanos += 789  # finer than a datetime holds
    message.conditions[0].MergeFromString(UNKNOWN_FIELD)
    stored = message.SerializeToString()
    apply_view_to_status(view_from_status(message), message)
    assert message.SerializeToString() == stored


def test_cleared_values_are_cleared() -> None:
    message = pb.ComputeInstanceStatus()
    apply_view_to_status(derived_view(), message)
    apply_view_to_status(ComputeInstanceStatusView(state=1), message)
    assert not message.HasField("state_transition_time")
    assert list(message.conditions) == [] and list(message.compute_network_attachment_statuses) == []
    assert message.internal_ip_address == ""
