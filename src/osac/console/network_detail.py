"""What the networking detail pages show besides the list row's cells: a security group's rules,
what is attached to a subnet, an external IP's attachments, and which reads find them.

What a subnet serves is found with the caller's own List calls (so only what the caller may see):
VMs and bare-metal instances naming it in a network attachment (spec, or status once the
server resolved it), clusters whose network attachment is on it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from google.protobuf.message import Message

from osac.api.public.v1.bare_metal_instance_type_pb2 import (
    BareMetalInstance,
    BareMetalNetworkAttachmentStatus,
)
from osac.api.public.v1.cluster_type_pb2 import Cluster
from osac.api.public.v1.compute_instance_type_pb2 import ComputeInstance, ComputeNetworkAttachmentStatus
from osac.api.public.v1.external_ip_attachment_type_pb2 import ExternalIPAttachment
from osac.api.public.v1.security_group_type_pb2 import SecurityGroup
from osac.console.labels import (
    BARE_METAL_STATES,
    CLUSTER_STATES,
    COMPUTE_STATES,
    NETWORK_STATES,
    Label,
    state_label,
)
from osac.console.networking import TARGET_PAGES, rule_parts, rule_text
from osac.console.tables import cel_string
from osac.model import registry
from osac.model.kinds import Group
from osac.model.shape import as_kind, id_of, metadata_of, status_of

#: What a virtual network's page lists as its own: the networking kinds referring to it, with the
#: reference field (``spec.virtual_network``).
NETWORK_CHILDREN: tuple[tuple[str, str], ...] = tuple(
    (kind.name, reference.path) for kind, reference in registry.referring("virtual_network")
    if kind.group is Group.NETWORKING
)

#: Kinds whose changes alter a networking detail page besides the object itself.
RELATED_KINDS: dict[str, tuple[str, ...]] = {
    "virtual_network": tuple(name for name, _ in NETWORK_CHILDREN),
    "subnet": ("compute_instance", "bare_metal_instance", "cluster"),
    "external_ip": ("external_ip_attachment",),
}


@dataclass(frozen=True)
class RuleRow:
    direction: str
    protocol: str
    ports: str
    peers: str
    #: Which list holds it (``ingress``, ``egress``), its place there and its text: what the
    #: page's remove button sends, so a rule that changed meanwhile is not the one removed.
    rules: str
    index: int
    text: str


def rule_rows(group: SecurityGroup) -> tuple[RuleRow, ...]:
    """The group's rules: inbound first, then outbound, as stored."""
    rows = []
    spec = group.spec
    for direction, rules, name in (("Inbound", spec.ingress, "ingress"), ("Outbound", spec.egress, "egress")):
        for index, rule in enumerate(rules):
            rows.append(RuleRow(direction, *rule_parts(rule), name, index, rule_text(rule, direction)))
    return tuple(rows)


@dataclass(frozen=True)
class AttachedRow:
    kind: str  # what the page calls it: Virtual machine, Bare-metal instance, Cluster
    id: str
    name: str
    href: str
    state: Label
    addresses: str


@dataclass(frozen=True)
class Attached:
    """One kind of workload that can sit on a subnet: how to find it and what it uses there."""

    kind: str
    noun: str
    path: str
    filter: Callable[[str], str]
    addresses: Callable[[Message, str], str]
    states: dict[int, Label]

    def row(self, obj: Message, subnet_id: str) -> AttachedRow:
        object_id = id_of(obj)
        return AttachedRow(self.noun, object_id, metadata_of(obj).name, f"/{self.path}/{object_id}",
                           state_label(self.states, status_of(obj).state), self.addresses(obj, subnet_id) or "-")


def _nic_addresses(statuses: Sequence[ComputeNetworkAttachmentStatus | BareMetalNetworkAttachmentStatus],
                   subnet_id: str) -> str:
    return ", ".join(n.ip_address for n in statuses if n.subnet == subnet_id and n.ip_address)


def _vm_addresses(obj: Message, subnet_id: str) -> str:
    return _nic_addresses(as_kind(obj, ComputeInstance).status.compute_network_attachment_statuses, subnet_id)


def _bare_metal_addresses(obj: Message, subnet_id: str) -> str:
    return _nic_addresses(as_kind(obj, BareMetalInstance).status.network_attachment_statuses, subnet_id)


def _cluster_addresses(obj: Message, _subnet_id: str) -> str:
    status = as_kind(obj, Cluster).status
    return ", ".join(f"{what} {address}" for what, address in (("API", status.api_endpoint),
                                                              ("ingress", status.ingress_endpoint)) if address)


def _on_subnet(spec_list: str, status_list: str) -> Callable[[str], str]:
    def expression(subnet_id: str) -> str:
        literal = cel_string(subnet_id)
        return (f"this.spec.{spec_list}.exists(a, a.subnet == {literal}) || "
                f"this.status.{status_list}.exists(a, a.subnet == {literal})")
    return expression


ATTACHED = (
    Attached("compute_instance", "Virtual machine", "compute-instances",
             _on_subnet("compute_network_attachments", "compute_network_attachment_statuses"),
             _vm_addresses, COMPUTE_STATES),
    Attached("bare_metal_instance", "Bare-metal instance", "baremetal-instances",
             _on_subnet("network_attachments", "network_attachment_statuses"),
             _bare_metal_addresses, BARE_METAL_STATES),
    Attached("cluster", "Cluster", "clusters",
             lambda subnet: f"this.spec.network_attachment.subnet == {cel_string(subnet)}",
             _cluster_addresses, CLUSTER_STATES),
)


#: The ``target_endpoint`` an attach form sends: none (a VM or bare-metal instance), or a
#: cluster's API or ingress, by the name the form sends, with the text it shows.
ENDPOINTS: dict[str, tuple[int, str]] = {"": (0, "none (a VM or bare-metal instance)"),
                                         "api": (1, "the cluster's API"), "ingress": (2, "the cluster's ingress")}
ENDPOINT_TEXTS = {number: text for number, text in ENDPOINTS.values()}
#: An attachment's state while its deletion runs: nothing more to detach.
ATTACHMENT_DELETING = 4


@dataclass(frozen=True)
class AttachmentRow:
    """One attachment of an external IP: what it attaches to (``VM web-vm``, linked), the
    cluster endpoint, its state and the target address the IP is translated to."""

    id: str
    target: str
    href: str
    endpoint: str
    state: Label
    target_address: str
    is_detachable: bool


def attachment_row(attachment: ExternalIPAttachment, target: str, is_detachable: bool) -> AttachmentRow:
    """The row of ``attachment``, whose target the page names ``target``."""
    spec = attachment.spec
    which = spec.WhichOneof("target")
    href = f"/{TARGET_PAGES[which]}/{getattr(spec, which)}" if which in TARGET_PAGES else ""
    endpoint = ENDPOINT_TEXTS.get(spec.target_endpoint, str(spec.target_endpoint)) if spec.target_endpoint else "-"
    return AttachmentRow(attachment.id, target, href, endpoint, state_label(NETWORK_STATES, attachment.status.state),
                         attachment.status.target_address or "-",
                         is_detachable and attachment.status.state != ATTACHMENT_DELETING)
