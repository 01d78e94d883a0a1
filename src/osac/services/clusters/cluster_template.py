"""ClusterTemplate semantics (api.md §11.4, §11.5; networking.md §7.3).

A template is a provider catalogue object (tenant ``shared``) every field of which may change;
each write is checked as a whole, so a cluster created from it later cannot fail on the
template's own values:

- ``node_sets``: at least one; keys are DNS labels; each names a host type (resolved to its id)
  that has a ``fabric`` interface, and a size > 0;
- ``parameters``: unique well-formed names, known value types, defaults of their type, no
  default on a required parameter (``cluster_parameters``);
- ``spec_defaults``: a pinned release image, an OpenSSH public key, valid and disjoint cluster
  CIDRs (an omitted one counts as the built-in default it will become).

Changes never reach existing clusters: they copied what they needed at create.
"""

from __future__ import annotations

from osac.api.private.v1.cluster_template_type_pb2 import ClusterTemplate, ClusterTemplateSpecDefaults
from osac.services.clusters import node_sets, parameters, spec_rules
from osac.services.core.behaviour import Behaviour, WriteContext


class ClusterTemplateBehaviour(Behaviour[ClusterTemplate]):
    async def prepare(self, ctx: WriteContext, obj: ClusterTemplate, stored: ClusterTemplate | None) -> None:
        await node_sets.validate_template(ctx.tx, obj.node_sets)
        parameters.validate_definitions(obj.parameters)
        check_spec_defaults(obj.spec_defaults)


def check_spec_defaults(defaults: ClusterTemplateSpecDefaults) -> None:
    path = "spec_defaults"
    if defaults.release_image:
        spec_rules.release_image(defaults.release_image, f"{path}.release_image")
    if defaults.ssh_public_key:
        spec_rules.ssh_public_key(defaults.ssh_public_key, f"{path}.ssh_public_key")
    network = defaults.network
    spec_rules.cluster_network(
        network.pod_cidr or spec_rules.DEFAULT_POD_CIDR,
        network.service_cidr or spec_rules.DEFAULT_SERVICE_CIDR,
        f"{path}.network",
    )


