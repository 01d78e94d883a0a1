"""Resuming the teardown of an instance that gave up (networking.md §10.2: "Delete again or
Signal resumes from the failed step with a fresh budget"; compute.md §2.6).

An instance whose cleanup passed its retry limit is DELETE_FAILED and its reconciler leaves it
alone. Its status belongs to the derivation, but DELETE_FAILED is also the only record that
cleanup gave up, so withdrawing it is how a Delete again or a Signal resumes: the state goes
back to DELETING (stamped as a transition like any other) and, in the same transaction, the
auto-provisioned children that are DELETE_FAILED themselves are deleted again, which sends them
back to DELETING with a fresh budget of their own. The write is an ordinary change, so the
level-triggered reconciler runs again and counts its attempts from zero.
"""

from __future__ import annotations

from google.protobuf.message import Message

from osac.model import registry
from osac.model.kinds import Kind
from osac.model.labels import AUTO_FOR_LABEL
from osac.model.shape import id_of, status_of
from osac.services.core.behaviour import WriteContext
from osac.services.core.context import Caller
from osac.services.core.references import has_label

#: The kinds a workload's auto-provisioned external access is made of.
AUTO_CHILD_KINDS = ("external_ip_attachment", "external_ip")


async def resume_teardown(ctx: WriteContext, kind: Kind, obj: Message) -> bool:
    """Move a DELETE_FAILED ``obj`` back to DELETING and re-delete its failed auto-provisioned
    children. Returns whether ``obj`` changed (False unless it was DELETE_FAILED)."""
    status = status_of(obj)
    if status.state != kind.state_value("DELETE_FAILED"):
        return False
    status.state = kind.state_value("DELETING") or status.state  # a kind with DELETE_FAILED has DELETING
    for child_kind_name in AUTO_CHILD_KINDS:
        child_kind = registry.get(child_kind_name)
        children = await ctx.tx.find(child_kind, has_label(ctx.tx, child_kind, AUTO_FOR_LABEL, id_of(obj)))
        for child in children:
            if status_of(child).state == child_kind.state_value("DELETE_FAILED"):
                await ctx.services[child_kind_name].delete_in(ctx.tx, Caller.system(), id_of(child))
    return True
