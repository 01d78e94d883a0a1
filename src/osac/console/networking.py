"""What the networking pages show, computed from networking messages, and how their create forms
become messages.

Every networking list has the same shape (name, tenant for admins, the kind's own cells, state,
delete) so one template renders them all from a ``NetworkView``: its columns, a row builder and,
for kinds the console creates, its form fields and the message they make.

A view's functions take the generic ``Message`` the reads return and take it as its kind's class
once, on entry: the public class for the rows (the private one a provider admin reads has every
field of it), the private class for the new object a form fills.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from google.protobuf.message import Message

from osac.api.private.v1.external_ip_type_pb2 import ExternalIP as PrivateExternalIP
from osac.api.private.v1.nat_gateway_type_pb2 import NATGateway as PrivateNATGateway
from osac.api.private.v1.security_group_type_pb2 import SecurityGroup as PrivateSecurityGroup
from osac.api.private.v1.security_rule_type_pb2 import PROTOCOL_ALL, PROTOCOL_ICMP, PROTOCOL_TCP, PROTOCOL_UDP
from osac.api.private.v1.security_rule_type_pb2 import Protocol as PrivateProtocol
from osac.api.private.v1.security_rule_type_pb2 import SecurityRule as PrivateSecurityRule
from osac.api.private.v1.subnet_type_pb2 import Subnet as PrivateSubnet
from osac.api.private.v1.virtual_network_type_pb2 import VirtualNetwork as PrivateVirtualNetwork
from osac.api.public.v1.external_ip_type_pb2 import ExternalIP
from osac.api.public.v1.nat_gateway_type_pb2 import NATGateway
from osac.api.public.v1.security_group_type_pb2 import SecurityGroup
from osac.api.public.v1.security_rule_type_pb2 import SecurityRule
from osac.api.public.v1.subnet_type_pb2 import Subnet, SubnetSpec
from osac.api.public.v1.virtual_network_type_pb2 import VirtualNetwork, VirtualNetworkSpec
from osac.console.labels import NETWORK_STATES, SUBNET_STATES, Label, state_label
from osac.model import registry
from osac.model.shape import as_kind, id_of, metadata_of, status_of
from osac.services.core.errors import InvalidArgument

Cell = str | Label


def _cidrs(spec: VirtualNetworkSpec | SubnetSpec) -> str:
    return ", ".join(c for c in (spec.ipv4_cidr, spec.ipv6_cidr) if c) or "-"


@dataclass(frozen=True)
class NetRow:
    """One row of a networking list: the kind's cells between the name (and tenant) and the state;
    ``details`` are lines shown under the row (a security group's rules)."""

    id: str
    name: str
    tenant: str
    version: int
    cells: tuple[Cell, ...]
    state: Label
    message: str
    details: tuple[str, ...] = ()
    #: Per cell, the detail page of the object it names ("" for none).
    links: tuple[str, ...] = ()


#: Names of referenced objects by kind, then by id: what a row builder shows instead of ids.
Names = Mapping[str, Mapping[str, str]]


@dataclass(frozen=True)
class Field:
    """A create form field: a text box, or a select of ``(value, text)`` choices read by the page
    from ``choices_of`` (a kind name) or given."""

    name: str
    text: str
    required: bool = False
    choices_of: str = ""
    choices: tuple[tuple[str, str], ...] = ()
    placeholder: str = ""


@dataclass(frozen=True)
class NetworkView:
    """A networking kind's list and detail pages; their path and names are the kind's
    descriptor's (``nat-gateways``, ``NAT gateways``, ``NAT gateway``)."""

    kind: str
    columns: tuple[str, ...]
    row: Callable[[Message, Names], NetRow]
    #: Kinds whose names the rows show: kind name -> how to find the referenced ids in an object.
    refs: Mapping[str, Callable[[Message], Sequence[str]]] = field(default_factory=dict)
    form: tuple[Field, ...] = ()
    #: Fill a new message from the submitted form. :raises InvalidArgument: naming the field.
    fill: Callable[[Message, Mapping[str, str]], None] | None = None
    #: Other kinds whose changes alter the rows (an external IP's attachments).
    also_live: tuple[str, ...] = ()
    #: Cells naming another networking object: column -> (its collection, how to find its id).
    links: Mapping[str, tuple[str, Callable[[Message], str]]] = field(default_factory=dict)
    #: The labels of the kind's states (the rows' State cell and the state filter).
    states: Mapping[int, Label] = field(default_factory=lambda: NETWORK_STATES)

    @property
    def collection(self) -> str:
        """The path under ``/networking/``."""
        return registry.get(self.kind).collection.replace("_", "-")

    @property
    def title(self) -> str:
        return registry.get(self.kind).title

    @property
    def noun(self) -> str:
        return registry.get(self.kind).noun

    @property
    def state_names(self) -> dict[str, int]:
        """The kind's API state names without their prefix (``READY``), for the state filter."""
        enum = registry.get(self.kind).state_enum
        if enum is None:
            return {}
        return {value.name.removeprefix(self.state_prefix): value.number for value in enum.values if value.number}

    @property
    def state_prefix(self) -> str:
        """The prefix of the kind's state names in a filter (``SUBNET_STATE_``)."""
        return registry.get(self.kind).name.upper() + "_STATE_"

    @property
    def live_kinds(self) -> tuple[str, ...]:
        return (self.kind, *self.also_live)

    def build(self, obj: Message, names: Names) -> NetRow:
        """The row of ``obj``, its cells naming other objects linked to their pages."""
        row = self.row(obj, names)
        hrefs = []
        for column in self.columns:
            target = self.links.get(column)
            object_id = target[1](obj) if target is not None else ""
            hrefs.append(f"/networking/{target[0]}/{object_id}" if target is not None and object_id else "")
        return replace(row, links=tuple(hrefs))


def _base(obj: Message, cells: Sequence[Cell], states: dict[int, Label], details: Sequence[str] = ()) -> NetRow:
    meta = metadata_of(obj)
    status = status_of(obj)
    return NetRow(id_of(obj), meta.name, meta.tenant, meta.version, tuple(cells),
                  state_label(states, status.state), status.message, tuple(details))


def referred_name(names: Names, kind: str, object_id: str) -> str:
    """The name of the ``kind`` object ``object_id`` names (its id when it is not visible, ``-``
    when unset)."""
    return names.get(kind, {}).get(object_id, object_id) or "-"


# -- rows --------------------------------------------------------------------------------------------


def virtual_network_row(obj: Message, names: Names) -> NetRow:
    vn = as_kind(obj, VirtualNetwork)
    spec = vn.spec
    return _base(vn, [referred_name(names, "network_class", spec.network_class), _cidrs(spec)], NETWORK_STATES)


def subnet_row(obj: Message, names: Names) -> NetRow:
    subnet = as_kind(obj, Subnet)
    spec = subnet.spec
    status = subnet.status
    return _base(subnet, [referred_name(names, "virtual_network", spec.virtual_network), _cidrs(spec), status.gateway or "-",
                          status.vip_range or "-", str(status.available_addresses) if status.state else "-"],
                 SUBNET_STATES)


PROTOCOLS = {1: "TCP", 2: "UDP", 3: "ICMP", 4: "ALL"}


def rule_parts(rule: SecurityRule | PrivateSecurityRule) -> tuple[str, str, str]:
    """A rule's protocol, ports (``22``, ``8000-8080``, ``-`` for none: ALL and ICMP have none)
    and peers (``anywhere`` when it names none)."""
    ports = "-"
    if rule.port_from or rule.port_to:
        ports = str(rule.port_from) if rule.port_from == rule.port_to else f"{rule.port_from}-{rule.port_to}"
    peers = ", ".join(c for c in (rule.ipv4_cidr, rule.ipv6_cidr) if c) or "anywhere"
    return PROTOCOLS.get(rule.protocol, str(rule.protocol)), ports, peers


def rule_text(rule: SecurityRule | PrivateSecurityRule, direction: str) -> str:
    """``Inbound TCP 22 from 0.0.0.0/0`` (``Outbound ALL to 0.0.0.0/0``)."""
    protocol, ports, peers = rule_parts(rule)
    shown_ports = "" if ports == "-" else f" {ports}"
    return f"{direction} {protocol}{shown_ports} {'from' if direction == 'Inbound' else 'to'} {peers}"


def security_group_row(obj: Message, names: Names) -> NetRow:
    group = as_kind(obj, SecurityGroup)
    spec = group.spec
    rules = [rule_text(r, "Inbound") for r in spec.ingress] + [rule_text(r, "Outbound") for r in spec.egress]
    return _base(group, [referred_name(names, "virtual_network", spec.virtual_network), str(len(spec.ingress)),
                         str(len(spec.egress))], NETWORK_STATES, rules)


def external_ip_row(obj: Message, names: Names) -> NetRow:
    address = as_kind(obj, ExternalIP)
    status = address.status
    pool = status.pool or address.spec.pool
    attached = names.get("attached", {}).get(address.id, "-")
    return _base(address, [status.address or "-", referred_name(names, "external_ip_pool", pool), attached], EXTERNAL_IP_STATES)


def nat_gateway_row(obj: Message, names: Names) -> NetRow:
    gateway = as_kind(obj, NATGateway)
    spec = gateway.spec
    return _base(gateway, [referred_name(names, "virtual_network", spec.virtual_network),
                           referred_name(names, "external_ip", spec.external_ip)], NETWORK_STATES)


EXTERNAL_IP_ALLOCATED = 2
EXTERNAL_IP_STATES: dict[int, Label] = {
    1: Label("Pending", "blue"), 2: Label("Allocated", "green"), 3: Label("Failed", "red"),
    4: Label("Deleting", "grey"), 5: Label("Delete failed", "red"),
}


# -- forms -------------------------------------------------------------------------------------------


def _fill_virtual_network(obj: Message, form: Mapping[str, str]) -> None:
    vn = as_kind(obj, PrivateVirtualNetwork)
    vn.spec.network_class = form.get("network_class", "")
    vn.spec.ipv4_cidr = form.get("ipv4_cidr", "").strip()


def _fill_subnet(obj: Message, form: Mapping[str, str]) -> None:
    subnet = as_kind(obj, PrivateSubnet)
    subnet.spec.virtual_network = form.get("virtual_network", "")
    subnet.spec.ipv4_cidr = form.get("ipv4_cidr", "").strip()


#: The protocols a form names, in the order of ``PROTOCOLS``.
PROTOCOL_NUMBERS: dict[str, PrivateProtocol] = {
    "tcp": PROTOCOL_TCP, "udp": PROTOCOL_UDP, "icmp": PROTOCOL_ICMP, "all": PROTOCOL_ALL,
}


def fill_rule(rule: PrivateSecurityRule, form: Mapping[str, str], peer_field: str) -> None:
    """A rule from the form's ``protocol``, ``ports`` (``22`` or ``8000-8080``; empty: none) and
    peer CIDR (``peer_field``; empty: any IPv4 peer, ``0.0.0.0/0``; one with a colon is IPv6).
    The rest (port ranges per protocol, CIDRs, IPv6 only in an IPv6 network) is the server's to
    check, which names the rule's field.

    :raises InvalidArgument: an unknown protocol, ports that are not numbers."""
    protocol = form.get("protocol", "")
    if protocol not in PROTOCOL_NUMBERS:
        raise InvalidArgument(f"protocol: '{protocol}' is not a protocol; use one of {', '.join(PROTOCOL_NUMBERS)}")
    rule.protocol = PROTOCOL_NUMBERS[protocol]
    ports = form.get("ports", "").strip()
    if ports:
        low, _, high = ports.partition("-")
        if not low.isdigit() or (high and not high.isdigit()):
            raise InvalidArgument(f"ports: '{ports}' is not a port or a range of ports (22 or 8000-8080)")
        rule.port_from = int(low)
        rule.port_to = int(high or low)
    peer = form.get(peer_field, "").strip() or "0.0.0.0/0"
    if ":" in peer:
        rule.ipv6_cidr = peer
    else:
        rule.ipv4_cidr = peer


def _fill_security_group(obj: Message, form: Mapping[str, str]) -> None:
    group = as_kind(obj, PrivateSecurityGroup)
    group.spec.virtual_network = form.get("virtual_network", "")
    if form.get("protocol", ""):  # else no inbound rule
        fill_rule(group.spec.ingress.add(), form, "source")


def _fill_external_ip(obj: Message, form: Mapping[str, str]) -> None:
    address = as_kind(obj, PrivateExternalIP)
    address.spec.pool = form.get("pool", "")


def _fill_nat_gateway(obj: Message, form: Mapping[str, str]) -> None:
    gateway = as_kind(obj, PrivateNATGateway)
    gateway.spec.virtual_network = form.get("virtual_network", "")
    gateway.spec.external_ip = form.get("external_ip", "")


def _subnet_network(obj: Message) -> str:
    return as_kind(obj, Subnet).spec.virtual_network


def _group_network(obj: Message) -> str:
    return as_kind(obj, SecurityGroup).spec.virtual_network


def _gateway_network(obj: Message) -> str:
    return as_kind(obj, NATGateway).spec.virtual_network


def _network_class_of(obj: Message) -> Sequence[str]:
    return [as_kind(obj, VirtualNetwork).spec.network_class]


def _pool_of(obj: Message) -> Sequence[str]:
    address = as_kind(obj, ExternalIP)
    return [address.status.pool or address.spec.pool]


def _external_ip_of(obj: Message) -> str:
    return as_kind(obj, NATGateway).spec.external_ip


def _vn_link(network_of: Callable[[Message], str]) -> dict[str, tuple[str, Callable[[Message], str]]]:
    """The "Virtual network" cell linked to the network's page."""
    return {"Virtual network": ("virtual-networks", network_of)}


VN_FIELD = Field("virtual_network", "Virtual network", required=True, choices_of="virtual_network")
CIDR_FIELD = Field("ipv4_cidr", "IPv4 CIDR", required=True, placeholder="10.20.0.0/16")

VIEWS: dict[str, NetworkView] = {view.collection: view for view in (
    NetworkView("virtual_network", ("Network class", "CIDR"), virtual_network_row,
                refs={"network_class": _network_class_of},
                form=(Field("network_class", "Network class (empty: the default)", choices_of="network_class"),
                      CIDR_FIELD),
                fill=_fill_virtual_network),
    NetworkView("subnet", ("Virtual network", "CIDR", "Gateway", "VIP range", "Available addresses"), subnet_row,
                refs={"virtual_network": lambda o: [_subnet_network(o)]},
                form=(VN_FIELD, Field("ipv4_cidr", "IPv4 CIDR (inside the network's)", required=True,
                                      placeholder="10.20.1.0/24")),
                fill=_fill_subnet, links=_vn_link(_subnet_network)),
    NetworkView("security_group", ("Virtual network", "Inbound rules", "Outbound rules"), security_group_row,
                refs={"virtual_network": lambda o: [_group_network(o)]},
                form=(VN_FIELD,
                      Field("protocol", "Inbound rule: protocol (empty: no rule)",
                            choices=(("", "no inbound rule"),) + tuple((p, p.upper()) for p in PROTOCOL_NUMBERS)),
                      Field("ports", "Inbound rule: ports", placeholder="22 or 8000-8080"),
                      Field("source", "Inbound rule: source CIDR", placeholder="0.0.0.0/0")),
                fill=_fill_security_group, links=_vn_link(_group_network)),
    NetworkView("external_ip", ("Address", "Pool", "Attached to"), external_ip_row,
                refs={"external_ip_pool": _pool_of},
                form=(Field("pool", "Pool", required=True, choices_of="external_ip_pool"),),
                fill=_fill_external_ip, also_live=("external_ip_attachment",), states=EXTERNAL_IP_STATES),
    NetworkView("nat_gateway", ("Virtual network", "External IP"), nat_gateway_row,
                refs={"virtual_network": lambda o: [_gateway_network(o)],
                      "external_ip": lambda o: [_external_ip_of(o)]},
                form=(VN_FIELD, Field("external_ip", "External IP (allocated, not used by anything else)",
                                      required=True, choices_of="external_ip")),
                fill=_fill_nat_gateway,
                links={**_vn_link(_gateway_network), "External IP": ("external-ips", _external_ip_of)}),
)}

#: The networking views by kind name.
VIEWS_BY_KIND: dict[str, NetworkView] = {view.kind: view for view in VIEWS.values()}
#: The console's networking pages as (path, title), in the navigation's order.
NETWORK_PAGES: tuple[tuple[str, str], ...] = tuple((f"/networking/{view.collection}", view.title)
                                                   for view in VIEWS.values())
#: The page of a networking object by its type name (an event's ``object_type``), without its id.
OBJECT_PAGES: dict[str, str] = {registry.get(view.kind).message: f"/networking/{view.collection}/"
                                for view in VIEWS.values()}

#: The targets an external IP attachment names, with the noun the "Attached to" cell shows.
ATTACHMENT_TARGETS = {"compute_instance": "VM", "cluster": "cluster", "baremetal_instance": "bare metal"}
TARGET_KINDS = {"compute_instance": "compute_instance", "cluster": "cluster",
                "baremetal_instance": "bare_metal_instance"}
#: The console path of each attachment target's pages.
TARGET_PAGES = {"compute_instance": "compute-instances", "cluster": "clusters", "baremetal_instance": "baremetal-instances"}
