"""Every kind's behaviour, installed in one place (one line per kind).

The service layer serves a kind only through the behaviour named here: a kind of
``osac.model.registry`` missing from this table is an error when the services are built, never a
silent default. A kind with no rules of its own names the plain ``Behaviour``."""

from __future__ import annotations

from collections.abc import Mapping

from osac.services.baremetal.bare_metal_instance import BareMetalInstanceBehaviour
from osac.services.baremetal.host_type import HostTypeBehaviour
from osac.services.clusters.cluster import ClusterBehaviour
from osac.services.clusters.cluster_template import ClusterTemplateBehaviour
from osac.services.compute.compute_instance import ComputeInstanceBehaviour
from osac.services.compute.compute_instance_template import ComputeInstanceTemplateBehaviour
from osac.services.compute.instance_type import InstanceTypeBehaviour
from osac.services.core.behaviour import Behaviour
from osac.services.networking.external_ip import ExternalIPBehaviour
from osac.services.networking.external_ip_attachment import ExternalIPAttachmentBehaviour
from osac.services.networking.external_ip_pool import ExternalIPPoolBehaviour
from osac.services.networking.nat_gateway import NATGatewayBehaviour
from osac.services.networking.network_class import NetworkClassBehaviour
from osac.services.networking.security_group import SecurityGroupBehaviour
from osac.services.networking.subnet import SubnetBehaviour
from osac.services.networking.virtual_network import VirtualNetworkBehaviour
from osac.services.tenancy.tenant import TenantBehaviour

BEHAVIOURS: Mapping[str, type[Behaviour]] = {
    "tenant": TenantBehaviour,
    "network_class": NetworkClassBehaviour,
    "virtual_network": VirtualNetworkBehaviour,
    "subnet": SubnetBehaviour,
    "security_group": SecurityGroupBehaviour,
    "external_ip_pool": ExternalIPPoolBehaviour,
    "external_ip": ExternalIPBehaviour,
    "external_ip_attachment": ExternalIPAttachmentBehaviour,
    "nat_gateway": NATGatewayBehaviour,
    "host_type": HostTypeBehaviour,
    "cluster_template": ClusterTemplateBehaviour,
    "cluster": ClusterBehaviour,
    "compute_instance_template": ComputeInstanceTemplateBehaviour,
    "instance_type": InstanceTypeBehaviour,
    "compute_instance": ComputeInstanceBehaviour,
    "bare_metal_instance": BareMetalInstanceBehaviour,
    "hub": Behaviour,
}

