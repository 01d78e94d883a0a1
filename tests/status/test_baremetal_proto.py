"""``BareMetalInstanceStatusView`` <-> private ``BareMetalInstanceStatus``: a lossless round trip
(including ``host`` and ``provisioning_steps``) that leaves ``hub``, unknown enum numbers and
unknown fields alone."""

from __future__ import annotations

from datetime import timedelta

from osac.api.private.v1 import bare_metal_instance_type_pb2 as pb
from osac.status.baremetal.derivation import BareMetalInstanceStatusView, ProvisioningStep, ProvisioningSteps
from osac.status.baremetal.gates import GATES, STEP_COMPLETED, STEP_PENDING
from osac.status.baremetal.proto import apply_view_to_status, view_from_status
from osac.status.conditions.views import ConditionView
from tests.support.baremetal_status import ADDRESS, T0, Instance, completed, host, leased

UNKNOWN_FIELD = bytes([0x98, 0x06, 0x01])  # field 99, varint 1


def derived_view() -> BareMetalInstanceStatusView:
    bmi = Instance()
    bmi.observe(host(), completed(4), leased(), at=timedelta(minutes=4))
    return bmi.status


def test_round_trip_is_lossless() -> None:
    view = derived_view()
    message = pb.BareMetalInstanceStatus()
    apply_view_to_status(view, message)
    assert message.state == pb.BARE_METAL_INSTANCE_STATE_RUNNING
    assert message.host == "bm-std-007"
    assert [s.gate for s in message.provisioning_steps] == list(GATES)
    assert message.network_attachment_statuses[0].ip_address == ADDRESS
    assert view_from_status(message) == view


def test_fields_the_view_does_not_own_survive() -> None:
    message = pb.BareMetalInstanceStatus(hub="simulated")
    message.MergeFromString(UNKNOWN_FIELD)
    apply_view_to_status(derived_view(), message)
    assert message.hub == "simulated"
    assert UNKNOWN_FIELD in message.SerializeToString()


def test_unknown_numbers_and_gates_survive() -> None:
    view = BareMetalInstanceStatusView(
        state=42,
        conditions=(ConditionView(9, 7, "FromTheFuture", "", T0),),
        restart_trigger=3,
        provisioning_steps=ProvisioningSteps((
            *completed(4).steps, ProvisioningStep("FirmwareChecked", 9, 2, T0, None, "newer")
        )),
    )
    message = pb.BareMetalInstanceStatus()
    apply_view_to_status(view, message)
    assert (message.state, message.conditions[0].type, message.provisioning_steps[4].status) == (42, 9, 9)
    assert view_from_status(message) == view


def test_an_empty_stored_record_reads_as_four_pending_gates() -> None:
    steps = view_from_status(pb.BareMetalInstanceStatus()).provisioning_steps
    assert [(s.gate, s.status) for s in steps] == [(gate, STEP_PENDING) for gate in GATES]


def test_rewriting_an_unchanged_status_changes_no_byte() -> None:
    message = pb.BareMetalInstanceStatus()
    apply_view_to_status(derived_view(), message)
    message.provisioning_steps[0].started_at.nanos += 321
    message.network_attachment_statuses[0].MergeFromString(UNKNOWN_FIELD)
    stored = message.SerializeToString()
    apply_view_to_status(view_from_status(message), message)
    assert message.SerializeToString() == stored
    assert message.provisioning_steps[0].status == STEP_COMPLETED
