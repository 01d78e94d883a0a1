"""Cluster semantics (api.md §11.6; cluster-status.md §3, §4, §8.1, §12; networking.md §5.3,
§6.4, §7.3, §8).

Create, in one transaction:

1. ``spec.template`` is required (``catalog_item`` is only a label); ``template_parameters`` are
   checked and defaulted from it (``cluster_parameters``); omitted ``ssh_public_key``,
   ``release_image`` and ``network`` CIDRs come from its ``spec_defaults``, then from the built-in
   CIDR defaults; a release image is required; formats are checked (``cluster_spec_rules``).
2. Node sets: the template's when omitted, else checked against it; sizes > 0;
   ``fabric_interface`` stored per node set (``cluster_node_sets``).
3. ``network_attachment``: tenant defaults when omitted, common rules, a network class with a
   Kubernetes network manager; cluster CIDRs outside the subnet (``cluster_attachment``).
4. API and ingress VIPs and one address per node are reserved on the subnet
   (``cluster_addresses``).
5. The status is the first derivation's (``cluster_status``).
6. With ``auto_external_ip_attachment``: two ExternalIPs and attachments (API, INGRESS), and the
   auto-provisioned-cleanup finalizer that keeps the cluster until they are gone.

Update: node sets may be resized (>= 0), added (template keys) or removed (one remains); an
existing node set's host type never changes; growth reserves node addresses first (exhaustion
→ RESOURCE_EXHAUSTED, size not stored); the security groups may change. Status input is always
ignored (``derived_status``): the reconciler writes status through ``write_status``.

``pull_secret`` is write-only: stored as given, shown as ``***``; ``***`` on input keeps the
stored value. The record of a teardown failure and how Delete / Signal clear it:
``cluster_failures``. Addresses are released when the cluster is archived.
"""

from __future__ import annotations

from datetime import UTC
from typing import TYPE_CHECKING

from osac.api.private.v1.cluster_template_type_pb2 import ClusterTemplate
from osac.api.private.v1.cluster_type_pb2 import Cluster, ClusterSpec
from osac.api.private.v1.subnet_type_pb2 import Subnet
from osac.model import registry
from osac.model.kinds import WRITE_ONLY_MASK
from osac.model.shape import as_kind
from osac.services.clusters import (
    addresses,
    attachment,
    failures,
    initial_status,
    inventory_check,
    node_sets,
    parameters,
    spec_rules,
    transition_metrics,
)
from osac.services.core.behaviour import Behaviour, WriteContext
from osac.services.core.catalog import CredentialUnavailable
from osac.services.core.errors import InvalidArgument, Unavailable
from osac.services.networking import external_ip_attachment, gates
from osac.services.workloads import attachment_rules
from osac.store.objects import Tx, object_label

if TYPE_CHECKING:
    from osac.services.core.catalog import Services

AUTO_ENDPOINTS = (external_ip_attachment.ENDPOINT_API, external_ip_attachment.ENDPOINT_INGRESS)


class ClusterBehaviour(Behaviour[Cluster]):
    derived_status = True

    def initialize(self, obj: Cluster) -> None:
        """The first derivation runs at the end of ``prepare``, once the node sets are known."""

    async def prepare(self, ctx: WriteContext, obj: Cluster, stored: Cluster | None) -> None:
        if stored is None:
            await self._prepare_create(ctx, obj)
        else:
            await self._prepare_update(ctx, obj, stored)

    async def _template(self, tx: Tx, spec: ClusterSpec) -> tuple[ClusterTemplate, str]:
        kind = registry.get("cluster_template")
        template = as_kind(await gates.load(tx, kind, spec.template), ClusterTemplate)
        return template, object_label(kind, template)

    async def _prepare_create(self, ctx: WriteContext, obj: Cluster) -> None:
        tx = ctx.tx
        spec = obj.spec
        if not spec.template:
            raise InvalidArgument("spec.template: required; name a ClusterTemplate (e.g. ocp-small)")
        template, template_label = await self._template(tx, spec)
        values = parameters.apply_to_cluster(
            dict(spec.template_parameters), template.parameters, template_label, "spec.template_parameters"
        )
        spec.ClearField("template_parameters")
        for name, value in values.items():
            spec.template_parameters[name].CopyFrom(value)
        apply_spec_defaults(spec, template, template_label)
        spec.ssh_public_key = spec.ssh_public_key.strip()  # a .pub file's line, without its newline
        if spec.pull_secret == WRITE_ONLY_MASK:
            spec.pull_secret = ""
        check_spec_fields(spec)
        await node_sets.resolve_on_create(tx, spec, template, template_label)
        subnet = await attachment.resolve_on_create(ctx, obj)
        attachment.check_cidrs(spec, subnet)
        vips = await addresses.reserve_vips(tx, subnet, obj.id)
        await addresses.reserve_nodes(tx, subnet, obj.id, node_sets.grown(spec, None))
        attachment_rules.hold_auto_cleanup(obj)
        now = obj.metadata.creation_timestamp.ToDatetime(tzinfo=UTC)
        ctx.notes.extend(initial_status.first_derivation(obj, now, vips))

    async def _prepare_update(self, ctx: WriteContext, obj: Cluster, stored: Cluster) -> None:
        tx = ctx.tx
        spec = obj.spec
        stored_spec = stored.spec
        if spec.pull_secret == WRITE_ONLY_MASK:
            spec.pull_secret = stored_spec.pull_secret
        elif spec.pull_secret and spec.pull_secret != stored_spec.pull_secret:
            spec_rules.pull_secret(spec.pull_secret, "spec.pull_secret")
        template, template_label = await self._template(tx, spec)
        await node_sets.resolve_on_update(tx, spec, stored_spec, template, template_label)
        await attachment.check_security_groups(ctx, obj, stored)
        growth = node_sets.grown(spec, stored_spec)
        if growth:
            # The cluster's row before the subnet's, the order of the reconciler releasing
            # surplus node addresses (``release_surplus_nodes``): the two queue, never deadlock.
            await tx.hold(self.kind, stored)
            subnet_id = spec.network_attachment.subnet
            subnet = as_kind(await gates.load(tx, registry.get("subnet"), subnet_id), Subnet)
            await addresses.reserve_nodes(tx, subnet, obj.id, growth)

    async def after_create(self, ctx: WriteContext, obj: Cluster) -> None:
        await attachment_rules.provision_auto_access(ctx, self.kind, obj, AUTO_ENDPOINTS)

    async def after_archive(self, tx: Tx, obj: Cluster) -> None:
        await addresses.release_all(tx, obj.id)

    async def begin_teardown(self, ctx: WriteContext, obj: Cluster, stored: Cluster) -> None:
        now = obj.metadata.deletion_timestamp.ToDatetime(tzinfo=UTC)
        ctx.notes.extend(initial_status.teardown_start(obj, stored, now))
        transition_metrics.observe_transition(stored, obj, now)

    async def restart_teardown(self, ctx: WriteContext, obj: Cluster) -> None:
        failures.clear_teardown_failure(obj, ctx.tx.clock.now(), "Delete")

    async def on_signal(self, ctx: WriteContext, obj: Cluster) -> bool:
        """Signal resumes a failed teardown like Delete does; a provisioning failure stays."""
        if obj.status.state != self.kind.state_value("DELETE_FAILED"):
            return False
        return failures.clear_teardown_failure(obj, ctx.tx.clock.now(), "Signal")

    async def warnings(self, obj: Cluster, services: Services) -> list[str]:
        return await inventory_check.inventory_warnings(obj, services)

    async def credential(self, obj: Cluster, name: str, services: Services) -> str:
        """The kubeconfig or kubeadmin password, from the cluster provider, once the control
        plane has been available (``api_url`` is published then and never cleared)."""
        if not obj.status.api_url or services.credential_source is None:
            return await super().credential(obj, name, services)
        try:
            return await services.credential_source(self.kind.name, obj.id, name)
        except CredentialUnavailable as error:
            raise Unavailable(f"{object_label(self.kind, obj)}: the {name} cannot be read now: {error.message}") from None


def apply_spec_defaults(spec: ClusterSpec, template: ClusterTemplate, template_label: str) -> None:
    """Omitted ``ssh_public_key``, ``release_image`` and cluster CIDRs from the template's
    ``spec_defaults``, then the built-in CIDRs; a release image must come from one of them."""
    defaults = template.spec_defaults
    if not spec.ssh_public_key:
        spec.ssh_public_key = defaults.ssh_public_key
    if not spec.release_image:
        spec.release_image = defaults.release_image
    if not spec.release_image:
        raise InvalidArgument(
            f"spec.release_image: required; {template_label} has no default release image "
            "(e.g. quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64)"
        )
    network = spec.network
    network.pod_cidr = network.pod_cidr or defaults.network.pod_cidr or spec_rules.DEFAULT_POD_CIDR
    network.service_cidr = (
        network.service_cidr or defaults.network.service_cidr or spec_rules.DEFAULT_SERVICE_CIDR
    )


def check_spec_fields(spec: ClusterSpec) -> None:
    """Formats of the values a new cluster stores (its subnet-dependent CIDR rules come later)."""
    spec_rules.release_image(spec.release_image, "spec.release_image")
    if spec.ssh_public_key:
        spec_rules.ssh_public_key(spec.ssh_public_key, "spec.ssh_public_key")
    if spec.pull_secret:
        spec_rules.pull_secret(spec.pull_secret, "spec.pull_secret")
    network = spec.network
    spec_rules.cluster_network(network.pod_cidr, network.service_cidr, "spec.network")


