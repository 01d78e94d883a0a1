"""The sweep for orphaned auto-provisioned children (networking.md §10.2).

A workload's auto-provisioned ExternalIPAttachments and ExternalIPs (labelled
``osac.openshift.io/auto-provisioned-for=<workload id>``) are removed by the workload's own cleanup,
and its finalizer keeps the workload until they are gone (``auto_cleanup.py``). They can outlive
it only if a provider admin removed the workload's finalizers privately; then nothing else would
ever delete them, and their external addresses would stay taken. The sweep finds children whose
parent is no longer stored (no live ComputeInstance, Cluster or BareMetalInstance has that id)
and deletes them through the normal path, in the cleanup's order: attachments first (their DNAT is
removed by their reconciler), an ExternalIP only once no attachment of the same parent is left
(its release is confirmed by its reconciler). Each delete it asks for is counted in
``osac_network_orphans_deleted_total{type}``.

It runs every ``networking.orphan_sweep_interval`` (default 10 minutes) in the process holding
the ExternalIPAttachment lease, so one process sweeps at a time. A sweep reads the children by
label and their parents by id: a few queries whatever the number of objects.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from google.protobuf.message import Message
from prometheus_client import Counter

from osac.controllers.workloads.auto_cleanup import ORDER
from osac.model import registry
from osac.model.labels import AUTO_FOR_LABEL
from osac.model.shape import id_of, metadata_of
from osac.services.core.catalog import Services
from osac.services.core.context import Caller
from osac.services.core.errors import FailedPrecondition, NotFound
from osac.services.core.references import where
from osac.store.objects import Tx, object_label
from osac.tasks import raise_if_cancelled

log = logging.getLogger(__name__)

SWEEP_INTERVAL = timedelta(minutes=10)
#: The kinds a child can be auto-provisioned for.
PARENT_KINDS = ("compute_instance", "cluster", "bare_metal_instance")
#: The sweep runs where attachments are reconciled.
LEASE_KIND = "external_ip_attachment"

ORPHANS_DELETED = Counter(
    "osac_network_orphans_deleted_total",
    "Auto-provisioned networking objects deleted by the sweep because their parent workload was gone.",
    ["type"],
)
for _kind in ORDER:
    ORPHANS_DELETED.labels(_kind)


def sweep_interval(config: Mapping[str, Any]) -> timedelta:
    """``networking.orphan_sweep_interval`` in seconds (default 600).

    :raises ValueError: not a positive number.
    """
    value = (config.get("networking") or {}).get("orphan_sweep_interval", SWEEP_INTERVAL.total_seconds())
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ValueError(f"networking.orphan_sweep_interval: expected a positive number of seconds, got {value!r}")
    return timedelta(seconds=value)


@dataclass
class SweepOutcome:
    """What one sweep asked to delete, by kind: ``ExternalIP 'auto-…' (0199…)`` labels."""

    deleted: dict[str, list[str]] = field(default_factory=dict)


async def _labelled_children(tx: Tx, kind_name: str) -> list[Message]:
    kind = registry.get(kind_name)
    return await tx.find(kind, where(tx, kind, f'"{AUTO_FOR_LABEL}" in this.metadata.labels'))


async def _live_parents(tx: Tx, parent_ids: set[str]) -> set[str]:
    live: set[str] = set()
    for kind_name in PARENT_KINDS:
        live |= await tx.existing(registry.get(kind_name), parent_ids)
    return live


async def sweep_orphans(services: Services) -> SweepOutcome:
    """One sweep, in one write transaction (a parent's archive and the sweep's read of it cannot
    interleave with the deletes)."""
    outcome = SweepOutcome()
    async with services.store.write() as tx:
        children = {kind_name: await _labelled_children(tx, kind_name) for kind_name in ORDER}
        parents = {metadata_of(child).labels[AUTO_FOR_LABEL] for found in children.values() for child in found}
        if not parents:
            return outcome
        live = await _live_parents(tx, parents)
        with_attachments = {metadata_of(child).labels[AUTO_FOR_LABEL]
                            for child in children["external_ip_attachment"]}
        for kind_name in ORDER:
            kind = registry.get(kind_name)
            for child in children[kind_name]:
                parent = metadata_of(child).labels[AUTO_FOR_LABEL]
                if parent in live or metadata_of(child).HasField("deletion_timestamp"):
                    continue
                if kind_name == "external_ip" and parent in with_attachments:
                    continue  # its parent's attachments go first; a later sweep takes it
                try:
                    await services[kind_name].delete_in(tx, Caller.system(), id_of(child))
                except (FailedPrecondition, NotFound) as error:
                    log.info("orphan %s not deleted yet: %s", object_label(kind, child), error)
                    continue
                outcome.deleted.setdefault(kind_name, []).append(object_label(kind, child))
                log.warning("deleting orphaned %s: its parent workload '%s' is gone", object_label(kind, child), parent,
                            extra={"event": "OrphanDeleted", "type": kind_name, "parent": parent,
                                   "tenant": metadata_of(child).tenant})
    for kind_name, labels in outcome.deleted.items():
        ORPHANS_DELETED.labels(kind_name).inc(len(labels))
    return outcome


async def follow_orphans(services: Services, held: Callable[[], frozenset[str]], interval: timedelta) -> None:
    """Sweep every ``interval`` while this process holds the attachment lease, for the life of
    the process."""
    while True:
        await asyncio.sleep(interval.total_seconds())
        if LEASE_KIND not in held():
            continue
        try:
            await sweep_orphans(services)
        except Exception as error:  # the next sweep tries again; the controllers go on
            raise_if_cancelled(error)
            log.warning("the orphan sweep failed", exc_info=True)
