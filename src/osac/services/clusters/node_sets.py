"""Node sets of clusters and cluster templates (api.md §11.4–§11.6, networking.md §7.3).

A node set is an entry of the map ``node_sets``; its **key** is its identity and the key of its
NodePool. A cluster's keys come from its template: an omitted map is the template's, a given
entry must name a template key and may omit ``host_type`` (the template's is stored) but not
name another. Sizes are > 0 at create and >= 0 afterwards; node sets may be added (template keys
again) or removed on Update as long as one remains; an existing node set's ``host_type`` never
changes.

Every node set of a cluster stores ``fabric_interface``: its host type's first interface with
role ``fabric`` when the node set is first stored (at create, or when added later). Editing the
host type afterwards does not change it. A host type without one cannot serve a node set.
References (``host_type``) are already resolved to ids when these functions run.
"""

from __future__ import annotations

from collections.abc import Mapping

from google.protobuf.message import Message

from osac.api.private.v1.cluster_template_type_pb2 import ClusterTemplate, ClusterTemplateNodeSet
from osac.api.private.v1.cluster_type_pb2 import ClusterNodeSet, ClusterSpec
from osac.api.private.v1.host_type_type_pb2 import HostType
from osac.model import registry
from osac.model.shape import as_kind, name_or_id
from osac.services.clusters import spec_rules
from osac.services.core.errors import InvalidArgument
from osac.services.networking import gates
from osac.store.objects import Tx

FABRIC_ROLE = "fabric"
#: The fields of ``ClusterNodeSet`` a spec carries; the others are status (cluster-status.md §8.1).
SPEC_FIELDS = ("host_type", "size", "fabric_interface")


def first_fabric_interface(host_type: HostType) -> str:
    """The host type's first ``fabric`` interface ("" when it has none): its default for the
    tenant network (api.md §11.4)."""
    for interface in host_type.interfaces:
        if interface.role == FABRIC_ROLE:
            return interface.name
    return ""


async def fabric_interface(tx: Tx, key: str, host_type_id: str) -> str:
    """The ``fabric_interface`` node set ``key`` stores.

    :raises InvalidArgument: ``host type '<name>' of node set '<key>' has no interface with role
        'fabric'`` (networking.md §7.3).
    """
    host_type = as_kind(await gates.load(tx, registry.get("host_type"), host_type_id), HostType)
    found = first_fabric_interface(host_type)
    if not found:
        raise InvalidArgument(f"host type '{name_or_id(host_type)}' of node set '{key}' has no interface with role 'fabric'")
    return found


# -- templates ------------------------------------------------------------------------------------


async def validate_template(tx: Tx, node_sets: Mapping[str, ClusterTemplateNodeSet]) -> None:
    """A template's default node sets: at least one; keys DNS labels; a host type with a fabric
    interface; size > 0."""
    if not node_sets:
        raise InvalidArgument("node_sets: required; a template needs at least one node set (e.g. workers)")
    for key in sorted(node_sets):
        entry = node_sets[key]
        here = f"node_sets['{key}']"
        spec_rules.node_set_key(key, here)
        if not entry.host_type:
            raise InvalidArgument(f"{here}.host_type: required; name a HostType")
        if entry.size <= 0:
            raise InvalidArgument(f"{here}.size: must be greater than 0, got {entry.size}")
        await fabric_interface(tx, key, entry.host_type)


# -- clusters -------------------------------------------------------------------------------------


def _keep_spec_fields(entry: Message) -> None:
    """``spec.node_sets`` carries only host_type, size and fabric_interface (api.md §11.6)."""
    for field in entry.DESCRIPTOR.fields:
        if field.name not in SPEC_FIELDS:
            entry.ClearField(field.name)


async def _from_template(
    tx: Tx, key: str, entry: ClusterNodeSet, template: ClusterTemplate, template_label: str, path: str
) -> None:
    """Check a node set the cluster names against the template's entry of that key and fill in
    the template's host type when it is omitted."""
    offered = template.node_sets
    if key not in offered:
        known = ", ".join(f"'{k}'" for k in sorted(offered)) or "none"
        raise InvalidArgument(f"{path}: {template_label} has no node set '{key}'; its node sets are {known}")
    wanted = offered[key].host_type
    given = entry.host_type
    if given and given != wanted:
        host_kind = registry.get("host_type")
        wanted_name = name_or_id(await gates.load(tx, host_kind, wanted))
        given_name = name_or_id(await gates.load(tx, host_kind, given))
        raise InvalidArgument(
            f"{path}.host_type: {template_label} gives node set '{key}' host type '{wanted_name}'; omit "
            f"host_type or use '{wanted_name}' (got '{given_name}')"
        )
    entry.host_type = wanted


async def resolve_on_create(tx: Tx, spec: ClusterSpec, template: ClusterTemplate, template_label: str) -> None:
    """Fill and check ``spec.node_sets`` of a new cluster: the template's when omitted; every
    size > 0; ``fabric_interface`` from each host type."""
    node_sets = spec.node_sets
    if not node_sets:
        for key, offered in template.node_sets.items():
            node_sets[key].host_type = offered.host_type
            node_sets[key].size = offered.size
    for key in sorted(node_sets):
        entry = node_sets[key]
        path = f"spec.node_sets['{key}']"
        await _from_template(tx, key, entry, template, template_label, path)
        if entry.size <= 0:
            raise InvalidArgument(f"{path}.size: must be greater than 0 at create, got {entry.size}")
        _keep_spec_fields(entry)
        entry.fabric_interface = await fabric_interface(tx, key, entry.host_type)


async def resolve_on_update(
    tx: Tx, spec: ClusterSpec, stored_spec: ClusterSpec, template: ClusterTemplate, template_label: str
) -> None:
    """Check ``spec.node_sets`` of an Update against the stored ones: one at least; sizes >= 0;
    an existing node set keeps its host type (omitted = kept) and fabric interface; an added one
    is checked like at create."""
    node_sets = spec.node_sets
    before = stored_spec.node_sets
    if not node_sets:
        raise InvalidArgument("spec.node_sets: a cluster keeps at least one node set; delete the cluster to remove them all")
    for key in sorted(node_sets):
        entry = node_sets[key]
        path = f"spec.node_sets['{key}']"
        if entry.size < 0:
            raise InvalidArgument(f"{path}.size: must not be negative, got {entry.size}")
        if key in before:
            old = before[key]
            if entry.host_type and entry.host_type != old.host_type:
                raise InvalidArgument(f"{path}.host_type is immutable")
            entry.host_type = old.host_type
            _keep_spec_fields(entry)
            entry.fabric_interface = old.fabric_interface
            continue
        await _from_template(tx, key, entry, template, template_label, path)
        _keep_spec_fields(entry)
        entry.fabric_interface = await fabric_interface(tx, key, entry.host_type)


def grown(spec: ClusterSpec, stored_spec: ClusterSpec | None) -> dict[str, int]:
    """Node sets whose requested size exceeds the stored one (all of them on create): key → new
    size. Only these need more node addresses (networking.md §5.3)."""
    before: Mapping[str, ClusterNodeSet] = stored_spec.node_sets if stored_spec is not None else {}
    return {
        key: entry.size
        for key, entry in spec.node_sets.items()
        if entry.size > 0 and (key not in before or entry.size > before[key].size)
    }
