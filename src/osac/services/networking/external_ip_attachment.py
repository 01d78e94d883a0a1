"""ExternalIPAttachment semantics (networking.md §3.1, §4, §8; api.md §11.3).

Create:

- exactly one target (``compute_instance``, ``cluster`` or ``baremetal_instance``), of the same
  tenant, live and not FAILED / DELETING / DELETE_FAILED (it need not run yet);
- ``target_endpoint`` required for a cluster (API or INGRESS), UNSPECIFIED otherwise;
- the ExternalIP ALLOCATED (or created in the same transaction), live and unconsumed;
- one attachment per ``(target, endpoint)``: ALREADY_EXISTS.

The consumer and target rules are claims (``consumers``), released when the attachment is
archived. A new attachment is PENDING with reason ``WaitingForIPAddress`` until the reconciler
has both the allocated address and the target address.
"""

from __future__ import annotations

from google.protobuf.message import Message

from osac.api.private.v1.external_ip_attachment_type_pb2 import (
    EXTERNAL_IP_ATTACHMENT_ENDPOINT_API,
    EXTERNAL_IP_ATTACHMENT_ENDPOINT_INGRESS,
    EXTERNAL_IP_ATTACHMENT_ENDPOINT_UNSPECIFIED,
    ExternalIPAttachment,
)
from osac.api.private.v1.external_ip_type_pb2 import ExternalIP
from osac.model import registry
from osac.model.kinds import Kind
from osac.model.shape import as_kind, id_of, metadata_of, status_of
from osac.services.core.behaviour import Behaviour, WriteContext
from osac.services.core.errors import FailedPrecondition, InvalidArgument
from osac.services.networking import consumers, gates, reservations, state_machines
from osac.store.objects import Tx, object_label

#: ``spec.target`` oneof field → kind name.
TARGET_KINDS = {
    "compute_instance": "compute_instance",
    "cluster": "cluster",
    "baremetal_instance": "bare_metal_instance",
}
ENDPOINT_UNSPECIFIED = EXTERNAL_IP_ATTACHMENT_ENDPOINT_UNSPECIFIED
ENDPOINT_API = EXTERNAL_IP_ATTACHMENT_ENDPOINT_API
ENDPOINT_INGRESS = EXTERNAL_IP_ATTACHMENT_ENDPOINT_INGRESS
ENDPOINT_NAMES: dict[int, str] = {ENDPOINT_UNSPECIFIED: "UNSPECIFIED", ENDPOINT_API: "API", ENDPOINT_INGRESS: "INGRESS"}
WAITING_FOR_IP_ADDRESS = "WaitingForIPAddress"


def target_field(kind_name: str) -> str:
    """The ``spec.target`` field for a workload kind name."""
    for field, name in TARGET_KINDS.items():
        if name == kind_name:
            return field
    raise ValueError(f"{kind_name} cannot be the target of an ExternalIPAttachment")


class ExternalIPAttachmentBehaviour(Behaviour[ExternalIPAttachment]):
    def __init__(self, kind: Kind) -> None:
        super().__init__(kind)
        self.transitions = state_machines.transitions(kind, state_machines.STANDARD)

    async def prepare(self, ctx: WriteContext, obj: ExternalIPAttachment, stored: ExternalIPAttachment | None) -> None:
        if stored is not None:
            return  # every spec field is immutable
        tx = ctx.tx
        spec = obj.spec
        if not spec.external_ip:
            raise InvalidArgument("spec.external_ip: required; name the ExternalIP to attach")
        field = spec.WhichOneof("target")
        if field is None or not getattr(spec, field):
            raise InvalidArgument(
                "spec.target: exactly one of spec.compute_instance, spec.cluster or spec.baremetal_instance is required"
            )
        target_kind = registry.get(TARGET_KINDS[field])
        endpoint = spec.target_endpoint
        if target_kind.name == "cluster":
            if endpoint not in (ENDPOINT_API, ENDPOINT_INGRESS):
                raise InvalidArgument(
                    "spec.target_endpoint: required for a Cluster target; use "
                    "EXTERNAL_IP_ATTACHMENT_ENDPOINT_API or EXTERNAL_IP_ATTACHMENT_ENDPOINT_INGRESS"
                )
        elif endpoint != ENDPOINT_UNSPECIFIED:
            raise InvalidArgument(
                f"spec.target_endpoint: only a Cluster target has endpoints; leave it unset for a {target_kind.message}"
            )
        target = await gates.load(tx, target_kind, getattr(spec, field))
        check_target(target_kind, target, obj.metadata.tenant)
        eip = await gates.require_ready(tx, registry.get("external_ip"), spec.external_ip, ready="ALLOCATED")
        await consumers.claim_external_ip(tx, eip, self.kind.name, obj.id)
        await consumers.claim_target(
            tx, target_kind.name, target, endpoint, ENDPOINT_NAMES.get(endpoint, str(endpoint)), obj.id
        )
        status = obj.status
        status.external_ip_address = as_kind(eip, ExternalIP).status.address
        if not status.external_ip_address:  # created in this transaction: copied once reserved
            reservations.when_reserved(tx, spec.external_ip, reservations.amending(tx, self.kind, obj, _copy_address))
        if not status.reason:
            status.reason = WAITING_FOR_IP_ADDRESS
        gates.add_sibling(obj.id)

    async def after_archive(self, tx: Tx, obj: ExternalIPAttachment) -> None:
        await consumers.release(tx, self.kind.name, obj.id)


def check_target(kind: Kind, target: Message, tenant: str) -> None:
    """Same tenant, live, not FAILED / DELETING / DELETE_FAILED (§3.1)."""
    label = object_label(kind, target)
    if metadata_of(target).tenant != tenant:
        raise InvalidArgument(f"spec.target: {kind.message} '{id_of(target)}' not found")
    if gates.is_being_deleted(kind, target):
        raise FailedPrecondition(f"{label} is being deleted")
    state = status_of(target).state
    if state == kind.state_value("FAILED"):
        raise FailedPrecondition(f"{label} is FAILED (state {kind.state_name(state)}); an ExternalIP cannot be attached to it")


def _copy_address(stored: Message, address: str, _pool_id: str) -> None:
    as_kind(stored, ExternalIPAttachment).status.external_ip_address = address
