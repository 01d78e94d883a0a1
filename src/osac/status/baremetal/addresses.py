"""Addresses of a bare-metal instance: the attachment statuses built from DHCP leases, and the
lease check that decides gate 4 (compute.md §3.2, networking.md §7.4).

The reconciler queries leases only while it needs them, so ``leases`` maps an interface to its
leased address (None: queried, no lease) and an interface missing from the mapping keeps the
address the status already shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from osac.status.baremetal.views import BareMetalAttachment, BareMetalNetworkAttachmentStatusView


@dataclass(frozen=True)
class LeaseCheck:
    """Gate 4's view of the leases: interfaces still without one, and leases on another address."""

    missing: tuple[str, ...]
    mismatched: tuple[tuple[str, str, str], ...]  # (interface, leased, reserved)

    @property
    def is_complete(self) -> bool:
        return not self.missing and not self.mismatched

    @property
    def mismatch_message(self) -> str:
        return "; ".join(
            f"interface {interface} leased {leased}, reserved {reserved}" for interface, leased, reserved in self.mismatched
        )

    @property
    def missing_message(self) -> str:
        return "no DHCP lease yet for interface(s) " + ", ".join(self.missing) if self.missing else ""


def check_leases(attachments: Sequence[BareMetalAttachment], leases: Mapping[str, str | None]) -> LeaseCheck:
    """Every attachment must hold a lease equal to its reservation for gate 4 to complete."""
    missing: list[str] = []
    mismatched: list[tuple[str, str, str]] = []
    for attachment in attachments:
        leased = leases.get(attachment.interface)
        if not leased:
            missing.append(attachment.interface)
        elif attachment.address and leased != attachment.address:
            mismatched.append((attachment.interface, leased, attachment.address))
    return LeaseCheck(tuple(missing), tuple(mismatched))


def attachment_statuses(
    attachments: Sequence[BareMetalAttachment],
    leases: Any,
    previous: Sequence[BareMetalNetworkAttachmentStatusView],
) -> tuple[BareMetalNetworkAttachmentStatusView, ...]:
    """One entry per attachment in spec order; the address is the lease when it equals the
    reservation. Leases that are not a mapping of names to addresses count as not queried."""
    observed = leases if _are_well_formed(leases) else {}
    shown = {status.interface: status.ip_address for status in previous}
    statuses = []
    for attachment in attachments:
        if attachment.interface in observed:
            leased = observed[attachment.interface] or ""
            address = leased if not attachment.address or leased == attachment.address else ""
        else:
            address = shown.get(attachment.interface, "")
        statuses.append(
            BareMetalNetworkAttachmentStatusView(
                interface=attachment.interface,
                subnet=attachment.subnet,
                ip_address=address,
                primary=attachment.primary,
            )
        )
    return tuple(statuses)


def primary_address(statuses: Sequence[BareMetalNetworkAttachmentStatusView]) -> str:
    """A lone attachment is primary even if stored without the flag."""
    primary = next((s for s in statuses if s.primary), statuses[0] if len(statuses) == 1 else None)
    return "" if primary is None else primary.ip_address


def _are_well_formed(leases: Any) -> bool:
    return isinstance(leases, Mapping) and all(
        isinstance(name, str) and (address is None or isinstance(address, str)) for name, address in leases.items()
    )
