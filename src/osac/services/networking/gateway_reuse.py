"""Gateway reuse on automatic paths (networking.md §9): the one helper every automatic path that
needs outbound access for a VN must use. Default networking creates gateways only on VNs it has
just created; anything later reuses the VN's gateway or fails, never adds a second SNAT rule.

=================  ====================================================================
VN's gateway       outcome
=================  ====================================================================
none               None: the caller may create one (in its own transaction)
READY              the gateway, nothing created
PENDING            FAILED_PRECONDITION ``NATGateway '<name>' for VirtualNetwork '<vn>' is
                   not ready yet; retry later``
FAILED, DELETING,  FAILED_PRECONDITION ``NATGateway '<name>' for VirtualNetwork '<vn>' is
DELETE_FAILED      <STATE>; delete it and retry`` (DELETING is not treated as absent)
=================  ====================================================================
"""

from __future__ import annotations

from google.protobuf.message import Message

from osac.model import registry
from osac.model.shape import id_of, metadata_of, status_of
from osac.services.core import references
from osac.services.core.errors import FailedPrecondition
from osac.services.networking import state_machines
from osac.store.objects import Tx


async def reuse_nat_gateway(tx: Tx, vn: Message) -> Message | None:
    """The VN's usable gateway, None if it has none; raises if it has an unusable one."""
    kind = registry.get("nat_gateway")
    condition = references.field_equals(tx, kind, "spec.virtual_network", id_of(vn))
    found = await tx.find(kind, condition, tenants=frozenset({metadata_of(vn).tenant}), lock="share")
    if not found:
        return None
    gateway = found[0]
    name = metadata_of(gateway).name or id_of(gateway)
    vn_name = metadata_of(vn).name or id_of(vn)
    state = status_of(gateway).state
    if metadata_of(gateway).HasField("deletion_timestamp") and state not in (
        kind.state_value("DELETING"), kind.state_value("DELETE_FAILED")
    ):
        state = kind.state_value("DELETING") or state  # a NATGateway kind has DELETING
    if state == kind.state_value("READY"):
        return gateway
    if state == kind.state_value("PENDING"):
        raise FailedPrecondition(f"NATGateway '{name}' for VirtualNetwork '{vn_name}' is not ready yet; retry later")
    raise FailedPrecondition(
        f"NATGateway '{name}' for VirtualNetwork '{vn_name}' is {state_machines.short_state(kind, state)}; "
        "delete it and retry"
    )
