"""Lookups the networking reconcilers share: which network class, and so which managers, an
object's fabric operations go to (networking.md §2: no fallback to another manager).

The managers come back metered: each of their calls is timed into
``osac_network_provider_operation_seconds{manager, operation, result}`` (§13), whichever
reconciler makes it."""

from __future__ import annotations

from google.protobuf.message import Message

from osac.api.private.v1.network_class_type_pb2 import NetworkClass
from osac.api.private.v1.virtual_network_type_pb2 import VirtualNetwork
from osac.controllers.networking.metrics import metered
from osac.model import registry
from osac.model.shape import as_kind, metadata_of, status_of
from osac.providers.interfaces import FabricManager, K8sNetworkManager, TerminalProviderError
from osac.providers.registry import ManagerNotRegistered, ManagerRegistry
from osac.store.objects import Tx


async def get(tx: Tx, kind_name: str, object_id: str) -> Message | None:
    """Any stored object by kind and id (being deleted or not)."""
    if not object_id:
        return None
    return await tx.get(registry.get(kind_name), object_id)


async def network_class_of(tx: Tx, vn_id: str) -> NetworkClass | None:
    vn = await get(tx, "virtual_network", vn_id)
    if vn is None:
        return None
    network_class = await get(tx, "network_class", as_kind(vn, VirtualNetwork).spec.network_class)
    return None if network_class is None else as_kind(network_class, NetworkClass)


async def default_network_class(tx: Tx) -> NetworkClass | None:
    kind = registry.get("network_class")
    for candidate in await tx.find(kind, tenants=frozenset({"shared"})):
        network_class = as_kind(candidate, NetworkClass)
        if network_class.is_default:
            return network_class
    return None


def fabric_of(managers: ManagerRegistry, network_class: NetworkClass | None) -> FabricManager:
    """The class's fabric manager; a missing class or unregistered manager is terminal."""
    if network_class is None:
        raise TerminalProviderError("NetworkClassNotFound", "the network class of this object does not exist")
    try:
        return metered(managers.fabric(network_class.fabric_manager))
    except ManagerNotRegistered as error:
        raise TerminalProviderError("ManagerNotRegistered", str(error)) from None


def k8s_of(managers: ManagerRegistry, network_class: NetworkClass | None) -> K8sNetworkManager | None:
    if network_class is None or not network_class.k8s_manager:
        return None
    try:
        return metered(managers.k8s(network_class.k8s_manager))
    except ManagerNotRegistered as error:
        raise TerminalProviderError("ManagerNotRegistered", str(error)) from None


async def fabric_for_vn(tx: Tx, managers: ManagerRegistry, vn_id: str) -> FabricManager:
    return fabric_of(managers, await network_class_of(tx, vn_id))


async def external_fabric(tx: Tx, managers: ManagerRegistry) -> FabricManager:
    """External addresses are announced by the default class's fabric manager."""
    return fabric_of(managers, await default_network_class(tx))


def state_name(kind_name: str, obj: Message) -> str:
    """``PENDING`` from ``SUBNET_STATE_PENDING`` (for messages)."""
    full = registry.get(kind_name).state_name(status_of(obj).state)
    return full.split("_STATE_", 1)[-1]


def waiting_message(kind_name: str, obj: Message | None, object_id: str, wanted: str = "READY") -> str | None:
    """``waiting for VirtualNetwork 'app' (PENDING)`` unless ``obj`` is in state ``wanted``."""
    kind = registry.get(kind_name)
    if obj is None:
        return f"waiting for {kind.message} '{object_id}' (not found)"
    if status_of(obj).state == kind.state_value(wanted):
        return None
    label = metadata_of(obj).name or object_id
    return f"waiting for {kind.message} '{label}' ({state_name(kind_name, obj)})"
