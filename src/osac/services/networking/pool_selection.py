"""Pool selection for the automatic paths (networking.md §5.5): default networking and
auto-provisioned external IPs pick a pool per address, never the caller.

The choice: the READY, live IPv4 pool with the most available addresses; ties → lowest
``metadata.name``, then id. None with capacity → RESOURCE_EXHAUSTED, exactly
``ExternalIPPool exhaustion: no available capacity in any READY pool for IPv4`` (logged as
``ExternalIPPoolExhausted``).
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING

from google.protobuf.message import Message

from osac.api.private.v1.external_ip_pool_type_pb2 import ExternalIPPool
from osac.api.private.v1.external_ip_type_pb2 import ExternalIP
from osac.model import registry
from osac.model.shape import as_kind, id_of, metadata_of, status_of
from osac.services.core.context import Caller
from osac.services.core.errors import ResourceExhausted
from osac.services.networking import addresses, external_ip_pool, gates, reservations
from osac.services.networking.allocation_metrics import EXTERNAL, count_failure
from osac.store.objects import Tx

if TYPE_CHECKING:
    from osac.services.core.catalog import Services

log = logging.getLogger(__name__)

EXHAUSTED_IPV4 = "ExternalIPPool exhaustion: no available capacity in any READY pool for IPv4"
FAMILIES = {"ipv4": external_ip_pool.IP_FAMILY_IPV4}


async def ranked_pools(tx: Tx, family: str = "ipv4", exclude: Collection[str] = ()) -> list[tuple[Message, int]]:
    """Candidate pools with their available counts, best first (READY, live, of ``family``,
    with free addresses)."""
    if family not in FAMILIES:
        raise ValueError(f"external addresses are allocated for IPv4 only, not {family!r}")
    kind = registry.get("external_ip_pool")
    ready = kind.state_value("READY")
    pools = [
        p for p in await tx.find(kind)
        if as_kind(p, ExternalIPPool).spec.ip_family == FAMILIES[family]
        and status_of(p).state == ready
        and not gates.is_being_deleted(kind, p)
        and id_of(p) not in exclude
    ]
    available = await addresses.pool_availability(tx, [id_of(p) for p in pools])
    ranked = [(p, available[id_of(p)]) for p in pools if available[id_of(p)] > 0]
    ranked.sort(key=lambda item: (-item[1], metadata_of(item[0]).name, id_of(item[0])))
    return ranked


async def select_pool(tx: Tx, family: str = "ipv4", exclude: Collection[str] = (), *, tenant: str = "",
                      name: str = "") -> Message:
    """The pool to reserve the next automatic address from; ``tenant`` and ``name`` (of the
    ExternalIP wanting it) only name the request in the ``ExternalIPPoolExhausted`` record.

    :raises ResourceExhausted: no READY pool of ``family`` has a free address.
    """
    ranked = await ranked_pools(tx, family, exclude)
    if not ranked:
        log.warning("no READY %s pool has a free address for ExternalIP '%s' of tenant '%s'", family, name, tenant,
                    extra={"event": "ExternalIPPoolExhausted", "family": family, "tenant": tenant,
                           "external_ip": name})
        count_failure(EXTERNAL)
        raise ResourceExhausted(EXHAUSTED_IPV4)
    return ranked[0][0]


async def create_external_ip(
    tx: Tx, services: Services, *, tenant: str, name: str, labels: Mapping[str, str]
) -> ExternalIP:
    """Create an ExternalIP (as the service itself) in the best pool, inside the caller's
    transaction. Its address is reserved at commit (``reservations``); a pool exhausted by
    concurrent requests by then is skipped for the next best one.

    :raises ResourceExhausted: ``EXHAUSTED_IPV4``, now or at commit.
    """
    kind = registry.get("external_ip")
    pool = await select_pool(tx, tenant=tenant, name=name)
    eip = as_kind(kind.private_class()(), ExternalIP)
    metadata_of(eip).name = name
    metadata_of(eip).tenant = tenant
    metadata_of(eip).labels.update(labels)
    eip.spec.pool = id_of(pool)
    created = as_kind(await services[kind.name].create_in(tx, Caller.system(), eip), ExternalIP)

    async def next_pool(tx: Tx, tried: set[str]) -> Message:
        return await select_pool(tx, exclude=tried, tenant=tenant, name=name)

    reservations.fall_back(tx, created.id, next_pool)
    return created
