"""The network attachment section of the cluster, VM and bare-metal create forms: which subnet
and which security groups, chosen among those the caller sees (the API's List, so a tenant is
offered only its own), or left to the tenant's defaults; on the bare-metal form one such choice
per interface of the host type that an attachment may use.

The form sends ``subnet`` (a subnet id; empty: the tenant's default subnet) and one checkbox
``sg:<id>`` per chosen security group. The bare-metal form sends them once per attachable
interface, prefixed with the interface's name (``ens1f0.subnet``, ``ens1f0.sg:<id>``; an empty
subnet leaves the interface unattached), and ``primary`` (the interface of the primary
attachment; empty: the first attached one). The server applies the rules of networking.md §6.4
and §7.4 as it does for the API: no attachment is the tenant's default subnet and security
group; a subnet without groups gets the default security group when it is on the default
network; subnets of several virtual networks, a subnet attached twice, and groups outside the
subnet's virtual network are refused with the API's message naming the field.
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
from osac.services.baremetal.interfaces import LIFECYCLE
from osac.services.core.errors import InvalidArgument

SUBNET_FIELD = "subnet"
SECURITY_GROUP_PREFIX = "sg:"
PRIMARY_FIELD = "primary"


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

    def interface_subnet_options(self) -> list[tuple[str, str]]:
        """The subnet select of one bare-metal interface, "not attached" first."""
        return [("", "not attached"), *((c.id, c.text) for c in self.subnets)]


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


def chosen(form: Mapping[str, str], prefix: str = "") -> tuple[str, list[str]]:
    """The subnet id (empty: none chosen) and the security group ids the form chose under
    ``prefix`` (a bare-metal interface's ``<name>.``), in the order the form sent them."""
    groups_prefix = prefix + SECURITY_GROUP_PREFIX
    groups = [key.removeprefix(groups_prefix) for key, value in form.items()
              if key.startswith(groups_prefix) and value == "on"]
    return form.get(prefix + SUBNET_FIELD, "").strip(), groups


@dataclass(frozen=True)
class InterfaceChoice:
    """One interface of a bare-metal host type that an attachment may use: its name, the text
    the form shows, and the prefix of its fields."""

    name: str
    text: str

    @property
    def prefix(self) -> str:
        return f"{self.name}."


def attachable_interfaces(host_type: HostType) -> list[InterfaceChoice]:
    """Every interface the API lets an attachment use (all but ``lifecycle``), in the host
    type's order: one attachment choice each on the bare-metal form."""
    return [InterfaceChoice(i.name, f"{i.name} ({i.role}{': ' + i.description if i.description else ''})")
            for i in host_type.interfaces if i.role != LIFECYCLE]


@dataclass(frozen=True)
class InterfaceAttachment:
    interface: str
    subnet: str
    security_groups: list[str]
    primary: bool


def interface_attachments(form: Mapping[str, str], interfaces: list[InterfaceChoice]) -> list[InterfaceAttachment]:
    """The attachments the bare-metal form chose, one per interface given a subnet, in the
    host type's order; the primary one is the interface ``primary`` names, else the first.

    :raises InvalidArgument: security groups chosen for an interface without a subnet, or a
        primary interface that is not attached, naming the field."""
    found: list[tuple[str, str, list[str]]] = []
    for interface in interfaces:
        subnet, groups = chosen(form, interface.prefix)
        refusal = missing_subnet(subnet, groups, interface.prefix)
        if refusal:
            raise InvalidArgument(refusal)
        if subnet:
            found.append((interface.name, subnet, groups))
    primary = form.get(PRIMARY_FIELD, "").strip()
    attached = [name for name, _, _ in found]
    if primary and primary not in attached:
        raise InvalidArgument(f"{PRIMARY_FIELD}: interface '{primary}' is not attached; choose a subnet for it or "
                              f"make one of the attached interfaces primary ({', '.join(attached) or 'none'})")
    primary = primary or next(iter(attached), "")
    return [InterfaceAttachment(name, subnet, groups, name == primary) for name, subnet, groups in found]


def missing_subnet(subnet: str, groups: list[str], prefix: str = "") -> str:
    """Why a choice without a subnet is refused ("" when it is not): security groups apply to
    a subnet the form must name (the tenant's default one is in the list)."""
    if subnet or not groups:
        return ""
    return f"{prefix}{SUBNET_FIELD}: choose the subnet the chosen security groups apply to"
