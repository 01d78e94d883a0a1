"""The deprecated ComputeInstance field 14 ``spec.network_attachments`` (networking.md §7.2).

Clients written before multi-NIC send field 14; it is accepted for the life of the v1 API and
converted to field 18 (same subnets and SGs, the first entry primary), so only field 18 is
stored and returned. Sending both is ambiguous and refused. Each use is counted in
``osac_deprecated_field_uses_total{field}`` (§13) to know when the field can go.
"""

from __future__ import annotations

from typing import Any

from prometheus_client import Counter

from osac.services.core.errors import InvalidArgument

DEPRECATED_FIELD = "spec.network_attachments"
REPLACEMENT_FIELD = "spec.compute_network_attachments"
MUTUALLY_EXCLUSIVE = f"{DEPRECATED_FIELD} and {REPLACEMENT_FIELD} are mutually exclusive"

DEPRECATED_FIELD_USES = Counter(
    "osac_deprecated_field_uses_total",
    "Requests that used a deprecated API field, by field path.",
    ["field"],
)
DEPRECATED_FIELD_USES.labels(DEPRECATED_FIELD)  # exported from zero


def convert_on_create(spec: Any) -> bool:
    """Move field 14 into field 18 (first entry primary); returns whether field 14 was used.

    :raises InvalidArgument: both fields are non-empty (``MUTUALLY_EXCLUSIVE``).
    """
    if not spec.network_attachments:
        return False
    if spec.compute_network_attachments:
        raise InvalidArgument(MUTUALLY_EXCLUSIVE)
    _convert(spec, [index == 0 for index in range(len(spec.network_attachments))])
    return True


def convert_on_update(spec: Any, stored_spec: Any) -> bool:
    """Field 14 in an Update replaces field 18 when field 18 was left as stored (an older client
    echoes only what it knows) or empty. The primary flags are kept by position: field 14 has no
    way to say which attachment is primary, so it cannot change that immutable choice.

    :raises InvalidArgument: field 18 was changed as well (``MUTUALLY_EXCLUSIVE``).
    """
    if not spec.network_attachments:
        return False
    stored = list(stored_spec.compute_network_attachments)
    if spec.compute_network_attachments and list(spec.compute_network_attachments) != stored:
        raise InvalidArgument(MUTUALLY_EXCLUSIVE)
    flags = [item.primary for item in stored]
    flags += [False] * (len(spec.network_attachments) - len(flags))
    _convert(spec, flags)
    return True


def _convert(spec: Any, primary_flags: list[bool]) -> None:
    del spec.compute_network_attachments[:]
    for old, primary in zip(spec.network_attachments, primary_flags, strict=False):
        spec.compute_network_attachments.add(
            subnet=old.subnet, security_groups=list(old.security_groups), primary=primary
        )
    spec.ClearField("network_attachments")
    DEPRECATED_FIELD_USES.labels(DEPRECATED_FIELD).inc()
