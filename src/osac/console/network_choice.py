"""The network attachment section of the cluster, VM and bare-metal create forms: which subnet
and which security groups, chosen among those the caller sees (the API's List, so a tenant is
offered only its own), or left to the tenant's defaults; on the bare-metal form also which of the
host type's interfaces carries it.

The form sends ``subnet`` (a subnet id; empty: the tenant's default subnet), one checkbox
``sg:<id>`` per chosen security group and, for bare metal, ``interface`` (empty: the host type's
first ``fabric`` interface). The server applies the rules of networking.md §6.4 and §7.4 as it
does for the API: no subnet and no group is the tenant's default subnet and security group; a
subnet without groups gets the default security group when it is on the default network; groups
outside the subnet's virtual network, and an interface the host type cannot attach, are refused
with the API's message naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from osac.api.public.v1.host_type_type_pb2 import HostType
from osac.api.public.v1.metadata_type_pb2 import Metadata
from osac.api.public.v1.security_group_type_pb2 import SecurityGroup
from osac.api.public.v1.subnet_type_pb2 import Subnet
from osac.api.public.v1.virtual_network_type_pb2 import VirtualNetwork
from osac.console.reads import Reads
from osac.model.shape import as_kind
from osac.services.baremetal.interfaces import FABRIC, LIFECYCLE

SUBNET_FIELD = "subnet"
SECURITY_GROUP_PREFIX = "sg:"
INTERFACE_FIELD = "interface"


@dataclass(frozen=True)
class Choice:
    """One offered subnet or security group: its id, and the text the form shows."""

    id: str
    text: str

    @property
    def field(self) -> str:
        """The checkbox name of a security group."""
        return SECURITY_GROUP_PREFIX + self.id


@dataclass(frozen=True)
class NetworkChoices:
    subnets: tuple[Choice, ...]
    security_groups: tuple[Choice, ...]

    def subnet_options(self) -> list[tuple[str, str]]:
        """The subnet select's options, the tenant's default first."""
        return [("", "the tenant's default subnet"), *((c.id, c.text) for c in self.subnets)]


async def network_choices(reads: Reads, with_tenant: bool) -> NetworkChoices:
    """The subnets (name, CIDR, network) and security groups (name, network) the caller sees, by
    name; ``with_tenant`` prefixes each with its tenant (a provider admin sees every tenant's)."""
    networks = {network.id: network.metadata.name
                for network in (as_kind(item, VirtualNetwork) for item in (await reads.all("virtual_network")).items)}

    def choice(object_id: str, metadata: Metadata, network_id: str, details: str = "") -> Choice:
        owner = f"{metadata.tenant}/" if with_tenant and metadata.tenant else ""
        return Choice(object_id, f"{owner}{metadata.name} ({details}network {networks.get(network_id, network_id)})")

    subnets = [choice(subnet.id, subnet.metadata, subnet.spec.virtual_network,
                      f"{subnet.spec.ipv4_cidr or subnet.spec.ipv6_cidr}, ")
               for subnet in (as_kind(item, Subnet) for item in (await reads.all("subnet")).items)]
    groups = [choice(group.id, group.metadata, group.spec.virtual_network)
              for group in (as_kind(item, SecurityGroup) for item in (await reads.all("security_group")).items)]
    return NetworkChoices(tuple(sorted(subnets, key=lambda c: c.text)), tuple(sorted(groups, key=lambda c: c.text)))


def chosen(form: Mapping[str, str]) -> tuple[str, list[str]]:
    """The subnet id (empty: the default) and the security group ids the form chose, in the
    order the form sent them."""
    groups = [key.removeprefix(SECURITY_GROUP_PREFIX) for key, value in form.items()
              if key.startswith(SECURITY_GROUP_PREFIX) and value == "on"]
    return form.get(SUBNET_FIELD, "").strip(), groups


def interface_options(host_type: HostType) -> list[tuple[str, str]]:
    """The interface select of the bare-metal form: "" (the host type's first ``fabric``
    interface, which the server stores) first, then every interface the API lets an attachment
    use (all but ``lifecycle``), in the host type's order."""
    attachable = [i for i in host_type.interfaces if i.role != LIFECYCLE]
    first = next((i.name for i in attachable if i.role == FABRIC), "")
    default = f"the host type's first fabric interface ({first})" if first else "the host type's first fabric interface"
    return [("", default), *((i.name, f"{i.name} ({i.role}{': ' + i.description if i.description else ''})")
                             for i in attachable)]


def missing_subnet(subnet: str, groups: list[str], interface: str = "") -> str:
    """Why a choice without a subnet is refused ("" when it is not): security groups or an
    interface apply to a subnet the form must name (the tenant's default one is in the list)."""
    if subnet:
        return ""
    if groups:
        return "subnet: choose the subnet the chosen security groups apply to"
    if interface:
        return f"subnet: choose the subnet interface '{interface}' attaches to"
    return ""
