"""IPAM errors.

IpamError                   every IPAM failure below; ``str()`` names the scope and the problem
 +-- AddressesExhausted      a range has no free address (the API answers RESOURCE_EXHAUSTED)
 +-- AllocationConflict      the unique constraints refused an allocation on every retry (INTERNAL)
 +-- RangeNotFound           the scope / kind / parent has no range: the subnet or pool was never
 |                           given one, or it was dropped (INTERNAL: a service bug)
 +-- RangesInUse             ``drop_ranges`` on a subnet or pool whose addresses are still allocated
                             (FAILED_PRECONDITION; the delete gates should have prevented it)
LayoutError(ValueError)      a CIDR cannot be laid out: too small, host bits set, not IPv4
                             (INVALID_ARGUMENT; the message names the problem)

The service turns these into API messages with the object's name (networking.md §5.5): the
exceptions carry the scope, kind and numbers, not the names, which IPAM never sees.
"""

from __future__ import annotations


class IpamError(Exception):
    pass


class AddressesExhausted(IpamError):
    def __init__(self, scope: str, kind: str, needed: int, available: int) -> None:
        super().__init__(f"no free {kind} addresses in {scope} (needed {needed}, available {available})")
        self.scope = scope
        self.kind = kind
        self.needed = needed
        self.available = available


class AllocationConflict(IpamError):
    """Raised after the allocation was retried (inside a SAVEPOINT) and the unique constraints of
    ``ip_allocations`` still refused it. With the range row locked this means the tables are
    inconsistent (an address below ``next_unused`` that is neither allocated nor free, or the
    reverse), never ordinary contention."""

    def __init__(self, scope: str, kind: str, attempts: int, detail: str) -> None:
        super().__init__(
            f"could not allocate a {kind} address in {scope}: the unique constraints refused "
            f"{attempts} attempts ({detail})"
        )
        self.scope = scope
        self.kind = kind
        self.attempts = attempts


class RangeNotFound(IpamError):
    def __init__(self, scope: str, kind: str, parent: str | None) -> None:
        where = f"{scope}" if parent is None or parent == scope else f"{scope} (parent {parent})"
        super().__init__(f"no {kind} address range in {where}; it was never added or was dropped")
        self.scope = scope
        self.kind = kind
        self.parent = parent


class RangesInUse(IpamError):
    def __init__(self, parent: str, allocated: int) -> None:
        super().__init__(
            f"cannot drop the address ranges of {parent}: {allocated} address(es) are still allocated; "
            "release them first"
        )
        self.parent = parent
        self.allocated = allocated


class LayoutError(ValueError):
    """A subnet or pool CIDR that cannot be laid out; the message is fit for INVALID_ARGUMENT."""
