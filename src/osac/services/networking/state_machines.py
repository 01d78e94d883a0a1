"""The networking state machines (networking.md §3.2) as ``Behaviour.transitions`` maps.

The generic service refuses a private status write whose state change is not listed here
(FAILED_PRECONDITION ``invalid state transition X -> Y``). Writes that do not change the state are
always allowed. Create (– → PENDING) and Delete (→ DELETING) are the service's own writes.
"""

from __future__ import annotations

from collections.abc import Mapping

from osac.model.kinds import Kind

#: VN, Subnet, SG, ExternalIPPool, NATGateway, ExternalIPAttachment, NetworkClass.
STANDARD: dict[str, tuple[str, ...]] = {
    "PENDING": ("READY", "FAILED", "DELETING"),
    "READY": ("PENDING", "DELETING"),
    "FAILED": ("PENDING", "DELETING"),
    "DELETING": ("DELETE_FAILED",),
    "DELETE_FAILED": ("DELETING",),
}

#: ExternalIP: ALLOCATED replaces READY, without READY → PENDING (no mutable spec); ALLOCATED →
#: FAILED when the reservation is lost, FAILED → ALLOCATED when a retry succeeds.
EXTERNAL_IP: dict[str, tuple[str, ...]] = {
    "PENDING": ("ALLOCATED", "FAILED", "DELETING"),
    "ALLOCATED": ("FAILED", "DELETING"),
    "FAILED": ("ALLOCATED", "PENDING", "DELETING"),
    "DELETING": ("DELETE_FAILED",),
    "DELETE_FAILED": ("DELETING",),
}

#: Tenant: PENDING → READY | FAILED, FAILED → READY, any → DELETING ⇄ DELETE_FAILED.
TENANT: dict[str, tuple[str, ...]] = {
    "PENDING": ("READY", "FAILED", "DELETING"),
    "READY": ("DELETING",),
    "FAILED": ("READY", "DELETING"),
    "DELETING": ("DELETE_FAILED",),
    "DELETE_FAILED": ("DELETING",),
}


def transitions(kind: Kind, table: Mapping[str, tuple[str, ...]]) -> dict[int, frozenset[int]]:
    """``table`` (state suffixes) in the numbers of ``kind``'s state enum."""

    def number(suffix: str) -> int:
        value = kind.state_value(suffix)
        if value is None:
            raise ValueError(f"{kind.message} has no state {suffix}")
        return value

    return {number(src): frozenset(number(dst) for dst in dsts) for src, dsts in table.items()}


def short_state(kind: Kind, number: int) -> str:
    """``SUBNET_STATE_PENDING`` → ``PENDING`` (for messages that read as prose)."""
    name = kind.state_name(number)
    marker = "_STATE_"
    return name.split(marker, 1)[1] if marker in name else name
