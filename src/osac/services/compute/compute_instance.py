"""ComputeInstance semantics (api.md §11.8; compute.md §2; networking.md §5.3, §6.4, §7.2, §8).

Create, in one transaction:

- template and instance type: defaults stored from the template, the instance type ACTIVE
  (``workload_templates``); ``run_strategy`` Always or Halted;
- attachments: the deprecated field 14 converted (``workload_legacy_attachments``); omitted ones
  resolved to the tenant's defaults and stored; a lone attachment stored primary, else exactly
  one primary; one VirtualNetwork, SGs in it, subnets and SGs READY; the VN's class must have a
  k8s network manager (VMs run on it);
- one workload address reserved per attachment (``workload_addresses``);
- the initial status (``workload_status``): STARTING with every condition FALSE;
- with ``auto_external_ip_attachment``: an ExternalIP from the best pool and an attachment of it
  to the instance (primary address), labelled auto-provisioned, and the auto-cleanup finalizer.

Update: attachments keep their positions, subnets and primary flag; SG lists may change (new SGs
in the VN and READY); ``run_strategy`` may change; a restart request is accepted per
``workload_restarts``. Status is the derivation's alone: API input to it is ignored.
Delete again or Signal on a DELETE_FAILED instance resumes its teardown (``workload_teardown``).
Archiving releases the attachment addresses.
"""

from __future__ import annotations

from osac.api.private.v1.compute_instance_type_pb2 import ComputeInstance
from osac.services.compute import legacy_attachments, restarts, templates
from osac.services.core.behaviour import Behaviour, WriteContext
from osac.services.workloads import addresses, attachment_rules, initial_status, network_attachments, teardown
from osac.store.objects import Tx

ATTACHMENTS = "spec.compute_network_attachments"
WORKLOAD = "ComputeInstance"
#: Fields of an attachment fixed at create (the SG list is mutable).
IMMUTABLE_ATTACHMENT_FIELDS = ("subnet", "primary")


class ComputeInstanceBehaviour(Behaviour[ComputeInstance]):
    derived_status = True

    def initialize(self, obj: ComputeInstance) -> None:
        """Nothing: ``prepare`` stores the first derivation's status once the spec is valid."""

    async def prepare(self, ctx: WriteContext, obj: ComputeInstance, stored: ComputeInstance | None) -> None:
        if stored is None:
            await self._prepare_create(ctx, obj)
        else:
            await self._prepare_update(ctx, obj, stored)

    async def _prepare_create(self, ctx: WriteContext, obj: ComputeInstance) -> None:
        tx = ctx.tx
        spec = obj.spec
        await templates.apply_template(tx, spec)
        spec.ClearField("restart_requested_at")  # a new instance has nothing to restart
        legacy_attachments.convert_on_create(spec)
        items = spec.compute_network_attachments
        await attachment_rules.fill_omitted(ctx, obj, items, WORKLOAD)
        attachment_rules.require_one_primary(ATTACHMENTS, items)
        vn = await network_attachments.validate(tx, ATTACHMENTS, items, workload=WORKLOAD)
        await network_attachments.require_k8s_manager(tx, vn, "ComputeInstances")
        attachment_rules.reserve_on_create(tx, self.kind, obj, items)
        obj.status.CopyFrom(initial_status.initial_compute_instance_status(tx.clock.now()))

    async def _prepare_update(self, ctx: WriteContext, obj: ComputeInstance, stored: ComputeInstance) -> None:
        spec = obj.spec
        legacy_attachments.convert_on_update(spec, stored.spec)
        attachment_rules.keep_positions(
            ATTACHMENTS, WORKLOAD, stored.spec.compute_network_attachments, spec.compute_network_attachments,
            IMMUTABLE_ATTACHMENT_FIELDS,
        )
        await attachment_rules.check_changed_security_groups(
            ctx, ATTACHMENTS, stored.spec.compute_network_attachments, spec.compute_network_attachments
        )
        spec.run_strategy = (
            templates.run_strategy("spec.run_strategy", spec.run_strategy)
            if spec.run_strategy else stored.spec.run_strategy
        )
        restarts.accept_restart_request(self.kind, stored, obj)

    async def after_create(self, ctx: WriteContext, obj: ComputeInstance) -> None:
        await attachment_rules.provision_auto_access(ctx, self.kind, obj)

    async def after_archive(self, tx: Tx, obj: ComputeInstance) -> None:
        await addresses.release_attachment_addresses(tx, self.kind.name, obj.id)

    async def restart_teardown(self, ctx: WriteContext, obj: ComputeInstance) -> None:
        await teardown.resume_teardown(ctx, self.kind, obj)

    async def on_signal(self, ctx: WriteContext, obj: ComputeInstance) -> bool:
        """Signal resumes a teardown that gave up, like Delete again; a FAILED instance stays
        FAILED (a terminal provider error is latched until deletion, compute.md §2.4)."""
        return await teardown.resume_teardown(ctx, self.kind, obj)


