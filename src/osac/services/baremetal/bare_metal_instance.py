"""BareMetalInstance semantics (api.md §11.9; compute.md §3; networking.md §5.3, §6.4, §7.4, §8).

Create, in one transaction:

- ``spec.host_type`` required: a bare-metal host type (it lists its interfaces, one of them
  ``lifecycle``); ``run_strategy`` UNSPECIFIED is stored as ALWAYS;
- attachments: omitted ones resolved to the tenant's defaults and stored; validated against the
  host type's interfaces (``workload_interfaces``: count, unknown / lifecycle / repeated / missing
  interface, a lone attachment's default ``fabric`` interface stored); a lone attachment stored
  primary, else exactly one primary; one VirtualNetwork, SGs in it, subnets and SGs READY;
- one workload address reserved per attachment (``workload_addresses``), used by the gates of
  compute.md §3.2 for the port's DHCP reservation;
- the initial status (``workload_status``): PROVISIONING with every condition FALSE;
- with ``auto_external_ip_attachment``: an ExternalIP and an attachment to the instance (primary
  address), labelled auto-provisioned, and the auto-cleanup finalizer.

Update: attachments keep their positions, subnets, interfaces and primary flag; SG lists may
change (new SGs in the VN and READY); ``run_strategy`` and ``restart_trigger`` may change. Status,
including the private ``host`` and ``provisioning_steps``, is the derivation's alone: API input to
it is ignored. Archiving releases the attachment addresses.

Retrying failed work (compute.md §3.2, §3.4): an Update or a private Signal resets a failed
provisioning gate to PENDING (attempts reset, completed gates kept), so the level-triggered
reconciler runs it again; Delete again or Signal on a DELETE_FAILED instance resumes its teardown
(``workload_teardown``).
"""

from __future__ import annotations

from dataclasses import replace

from osac.api.private.v1 import bare_metal_instance_type_pb2 as bare_metal
from osac.api.private.v1.bare_metal_instance_type_pb2 import BareMetalInstance, BareMetalInstanceRunStrategy
from osac.api.private.v1.host_type_type_pb2 import HostType
from osac.model import registry
from osac.model.shape import as_kind
from osac.services.baremetal import interfaces
from osac.services.core.behaviour import Behaviour, WriteContext
from osac.services.core.errors import InvalidArgument
from osac.services.networking import gates
from osac.services.workloads import addresses, attachment_rules, initial_status, network_attachments, teardown
from osac.status.baremetal import proto
from osac.store.objects import Tx

ATTACHMENTS = "spec.network_attachments"
WORKLOAD = "BareMetalInstance"
#: Fields of an attachment fixed at create (the SG list is mutable).
IMMUTABLE_ATTACHMENT_FIELDS = ("subnet", "interface", "primary")
RUN_STRATEGIES = (
    bare_metal.BARE_METAL_INSTANCE_RUN_STRATEGY_ALWAYS,
    bare_metal.BARE_METAL_INSTANCE_RUN_STRATEGY_HALTED,
)


class BareMetalInstanceBehaviour(Behaviour[BareMetalInstance]):
    derived_status = True

    def initialize(self, obj: BareMetalInstance) -> None:
        """Nothing: ``prepare`` stores the first derivation's status once the spec is valid."""

    async def prepare(self, ctx: WriteContext, obj: BareMetalInstance, stored: BareMetalInstance | None) -> None:
        if stored is None:
            await self._prepare_create(ctx, obj)
        else:
            await self._prepare_update(ctx, obj, stored)

    async def _prepare_create(self, ctx: WriteContext, obj: BareMetalInstance) -> None:
        tx = ctx.tx
        spec = obj.spec
        if not spec.host_type:
            raise InvalidArgument("spec.host_type: required; name a bare-metal HostType (e.g. bm-standard)")
        host_type = as_kind(await gates.load(tx, registry.get("host_type"), spec.host_type), HostType)
        interfaces.require_bare_metal("spec.host_type", host_type)
        spec.run_strategy = run_strategy(spec.run_strategy, default=bare_metal.BARE_METAL_INSTANCE_RUN_STRATEGY_ALWAYS)
        items = spec.network_attachments
        await attachment_rules.fill_omitted(ctx, obj, items, WORKLOAD)
        interfaces.resolve_interfaces(ATTACHMENTS, items, host_type)
        attachment_rules.require_one_primary(ATTACHMENTS, items)
        await network_attachments.validate(tx, ATTACHMENTS, items, workload=WORKLOAD)
        attachment_rules.reserve_on_create(tx, self.kind, obj, items)
        obj.status.CopyFrom(initial_status.initial_bare_metal_instance_status(tx.clock.now(), spec.restart_trigger))

    async def _prepare_update(self, ctx: WriteContext, obj: BareMetalInstance, stored: BareMetalInstance) -> None:
        spec = obj.spec
        attachment_rules.keep_positions(
            ATTACHMENTS, WORKLOAD, stored.spec.network_attachments, spec.network_attachments,
            IMMUTABLE_ATTACHMENT_FIELDS,
        )
        await attachment_rules.check_changed_security_groups(
            ctx, ATTACHMENTS, stored.spec.network_attachments, spec.network_attachments
        )
        spec.run_strategy = run_strategy(spec.run_strategy, default=stored.spec.run_strategy)
        rerun_failed_gate(obj)

    async def on_signal(self, ctx: WriteContext, obj: BareMetalInstance) -> bool:
        if obj.metadata.HasField("deletion_timestamp"):
            return await teardown.resume_teardown(ctx, self.kind, obj)
        return rerun_failed_gate(obj)

    async def restart_teardown(self, ctx: WriteContext, obj: BareMetalInstance) -> None:
        await teardown.resume_teardown(ctx, self.kind, obj)

    async def after_create(self, ctx: WriteContext, obj: BareMetalInstance) -> None:
        await attachment_rules.provision_auto_access(ctx, self.kind, obj)

    async def after_archive(self, tx: Tx, obj: BareMetalInstance) -> None:
        await addresses.release_attachment_addresses(tx, self.kind.name, obj.id)


def rerun_failed_gate(obj: BareMetalInstance) -> bool:
    """Reset the failed gate of the stored gate record, if any; returns whether it changed."""
    view = proto.view_from_status(obj.status)
    steps = view.provisioning_steps.rerun_failed()
    if steps == view.provisioning_steps:
        return False
    proto.apply_view_to_status(replace(view, provisioning_steps=steps), obj.status)
    return True


def run_strategy(
    value: BareMetalInstanceRunStrategy, *, default: BareMetalInstanceRunStrategy
) -> BareMetalInstanceRunStrategy:
    """UNSPECIFIED → ``default`` (ALWAYS on create, the stored value on update).

    :raises InvalidArgument: a number that is neither ALWAYS nor HALTED.
    """
    if value == bare_metal.BARE_METAL_INSTANCE_RUN_STRATEGY_UNSPECIFIED:
        return default
    if value not in RUN_STRATEGIES:
        raise InvalidArgument(
            f"spec.run_strategy: {value} is not a run strategy; use BARE_METAL_INSTANCE_RUN_STRATEGY_ALWAYS "
            "or BARE_METAL_INSTANCE_RUN_STRATEGY_HALTED"
        )
    return value


