"""Removing a workload's auto-provisioned external access (networking.md §10.1 step 3, §10.2).

A workload created with ``auto_external_ip_attachment`` owns ExternalIPAttachments and
ExternalIPs labelled ``osac.openshift.io/auto-provisioned-for=<workload id>``. When the workload
is deleted they go first, in order: the attachments (their DNAT is removed by their own
reconciler), and only once every one of them is archived, the ExternalIPs (released by theirs).
Deleting goes through the normal service path, so each child's own finalizer confirms its
teardown; this module only asks and looks.

Each call does one step and reports what is left, so a workload reconciler can keep its
finalizer (and, for clusters, pass ``cleanup_pending`` to the derivation) until nothing remains.
A child that reached DELETE_FAILED is reported as failed with its message; the workload then
becomes DELETE_FAILED itself (§10.2). Manual ExternalIPs and manual attachments are never
touched here: manual attachments are detached by the attachment reconciler.
"""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf.message import Message

from osac.model import registry
from osac.model.labels import AUTO_FOR_LABEL
from osac.model.shape import id_of, metadata_of, status_of
from osac.services.core.catalog import Services
from osac.services.core.context import Caller
from osac.services.core.references import has_label
from osac.store.objects import Tx, object_label

#: Order of removal: a child kind goes only once every object of the previous one is archived.
ORDER = ("external_ip_attachment", "external_ip")


@dataclass(frozen=True)
class AutoCleanup:
    """What is left of a workload's auto-provisioned children after one step."""

    #: ``ExternalIPAttachment 'auto-…-api' (0199…)`` for every child still stored.
    pending: tuple[str, ...] = ()
    #: ``ExternalIP 'auto-…' (0199…) release failed: <message>`` for children in DELETE_FAILED.
    failed: tuple[str, ...] = ()
    #: (kind name, id) of every child still stored.
    children: tuple[tuple[str, str], ...] = ()

    @property
    def done(self) -> bool:
        return not self.pending

    def failure_message(self) -> str:
        """The parent's DELETE_FAILED message naming every leftover (§10.2)."""
        return "cleanup incomplete: " + "; ".join(self.failed or self.pending)


async def auto_children(tx: Tx, kind_name: str, parent_id: str) -> list[Message]:
    """The live children of one kind labelled auto-provisioned for ``parent_id``."""
    kind = registry.get(kind_name)
    return await tx.find(kind, has_label(tx, kind, AUTO_FOR_LABEL, parent_id))


async def clean_auto_provisioned(services: Services, parent_id: str) -> AutoCleanup:
    """Ask for the next removal and report what remains.

    Deletes (idempotently: a child already being deleted is left alone, one in DELETE_FAILED is
    reported) the children of the first kind in ``ORDER`` that still has any."""
    async with services.store.write() as tx:
        for kind_name in ORDER:
            children = await auto_children(tx, kind_name, parent_id)
            if not children:
                continue
            kind = registry.get(kind_name)
            failed_state = kind.state_value("DELETE_FAILED")
            pending: list[str] = []
            failed: list[str] = []
            keys: list[tuple[str, str]] = []
            for child in children:
                label = object_label(kind, child)
                pending.append(label)
                keys.append((kind_name, id_of(child)))
                if status_of(child).state == failed_state:
                    verb = "release" if kind_name == "external_ip" else "detach"
                    failed.append(f"{label} {verb} failed: {status_of(child).message}")
                elif not metadata_of(child).HasField("deletion_timestamp"):
                    await services[kind_name].delete_in(tx, Caller.system(), id_of(child))
            return AutoCleanup(tuple(pending), tuple(failed), tuple(keys))
    return AutoCleanup()


async def retry_failed_children(services: Services, parent_id: str) -> int:
    """Delete again every auto-provisioned child in DELETE_FAILED (the parent was deleted again or
    signalled: §10.2 "resumes from the failed step with a fresh budget"). Returns how many."""
    resumed = 0
    async with services.store.write() as tx:
        for kind_name in ORDER:
            kind = registry.get(kind_name)
            for child in await auto_children(tx, kind_name, parent_id):
                if status_of(child).state == kind.state_value("DELETE_FAILED"):
                    await services[kind_name].delete_in(tx, Caller.system(), id_of(child))
                    resumed += 1
    return resumed

