"""Default tenant networking (networking.md §6.1): created with the Tenant, in its transaction.

If the default NetworkClass has ``spec.defaults``, Tenant Create also creates, as the service
(``creator = system``), in the new tenant, labelled ``osac.openshift.io/default=true``:

=================  =============  ==============================================================
kind               name           spec
=================  =============  ==============================================================
VirtualNetwork     ``default``    the default class; ``virtual_network_ipv4_cidr`` / ``_ipv6_cidr``
Subnet             ``default``    VN ``default``; ``subnet_ipv4_cidr`` / ``subnet_ipv6_cidr``
SecurityGroup      ``default``    VN ``default``; ``ingress_rules``, ``egress_rules``
ExternalIP         ``default-nat``  if ``enable_nat_gateway``; the best pool (``pools``)
NATGateway         ``default``    if ``enable_nat_gateway``; VN ``default``, EIP ``default-nat``
=================  =============  ==============================================================

The objects go through their kinds' services (same validation), inside ``gates.together``: they
pass each other's gates and wait in PENDING; their CREATED events follow the Tenant's with
consecutive revisions (the pool's counter update comes last). The default class must be READY
(FAILED_PRECONDITION otherwise); NAT without pool capacity fails the whole Tenant Create with
RESOURCE_EXHAUSTED ``ExternalIPPool exhaustion: no available capacity in any READY pool for
IPv4``, so nothing is stored. No default class, or no ``defaults``: nothing is created.
"""

from __future__ import annotations

import logging

from google.protobuf.message import Message

from osac.api.private.v1.nat_gateway_type_pb2 import NATGateway
from osac.api.private.v1.security_group_type_pb2 import SecurityGroup
from osac.api.private.v1.subnet_type_pb2 import Subnet
from osac.api.private.v1.virtual_network_type_pb2 import VirtualNetwork
from osac.model import registry
from osac.model.shape import as_kind, id_of, metadata_of
from osac.services.core.behaviour import WriteContext
from osac.services.core.context import Caller
from osac.services.networking import gates, network_class, pool_selection
from osac.store import lifecycle

log = logging.getLogger(__name__)

DEFAULT_LABEL = "osac.openshift.io/default"
DEFAULT_NAME = "default"
NAT_EXTERNAL_IP_NAME = "default-nat"
CREATED_REASON = "DefaultNetworkingCreated"


def default_labels() -> dict[str, str]:
    return {DEFAULT_LABEL: "true"}


async def create_default_networking(ctx: WriteContext, tenant: Message) -> list[Message]:
    """Create the new tenant's defaults in ``ctx.tx`` (after the Tenant row is inserted) and note
    ``DefaultNetworkingCreated`` on it; returns the objects created (none without defaults).

    :raises FailedPrecondition: the default class is not READY (or is being deleted).
    :raises ResourceExhausted: NAT enabled and no READY pool has a free address.
    """
    tx = ctx.tx
    cls = await network_class.default_class(tx)
    if cls is None or not cls.spec.HasField("defaults"):
        return []
    gates.check_ready(registry.get("network_class"), cls)
    defaults = cls.spec.defaults
    name = metadata_of(tenant).name
    log.info("creating default networking", extra={"event": "CreatingDefaultNetworking", "tenant": name,
                                                   "network_class": cls.id})
    caller = Caller.system()
    created: list[Message] = []

    def new(kind_name: str, object_name: str) -> Message:
        obj = registry.get(kind_name).private_class()()
        metadata_of(obj).name = object_name
        metadata_of(obj).tenant = name
        metadata_of(obj).labels.update(default_labels())
        return obj

    async def create(kind_name: str, obj: Message) -> Message:
        stored = await ctx.services[kind_name].create_in(tx, caller, obj)
        gates.add_sibling(id_of(stored))
        created.append(stored)
        return stored

    async with gates.together(tx):
        network = as_kind(new("virtual_network", DEFAULT_NAME), VirtualNetwork)
        network.spec.network_class = cls.id
        network.spec.ipv4_cidr = defaults.virtual_network_ipv4_cidr
        network.spec.ipv6_cidr = defaults.virtual_network_ipv6_cidr
        vn = await create("virtual_network", network)
        subnet = as_kind(new("subnet", DEFAULT_NAME), Subnet)
        subnet.spec.virtual_network = id_of(vn)
        subnet.spec.ipv4_cidr = defaults.subnet_ipv4_cidr
        subnet.spec.ipv6_cidr = defaults.subnet_ipv6_cidr
        await create("subnet", subnet)
        sg = as_kind(new("security_group", DEFAULT_NAME), SecurityGroup)
        sg.spec.virtual_network = id_of(vn)
        sg.spec.ingress.extend(defaults.ingress_rules)
        sg.spec.egress.extend(defaults.egress_rules)
        await create("security_group", sg)
        if defaults.enable_nat_gateway:
            eip = await pool_selection.create_external_ip(
                tx, ctx.services, tenant=name, name=NAT_EXTERNAL_IP_NAME, labels=default_labels()
            )
            gates.add_sibling(id_of(eip))
            created.append(eip)
            gateway = as_kind(new("nat_gateway", DEFAULT_NAME), NATGateway)
            gateway.spec.virtual_network = id_of(vn)
            gateway.spec.external_ip = id_of(eip)
            await create("nat_gateway", gateway)
    summary = ", ".join(f"{registry.by_message(type(o).DESCRIPTOR.name).message} '{metadata_of(o).name}'"
                        for o in created)
    ctx.notes.append((lifecycle.NORMAL, CREATED_REASON, f"default networking created: {summary}"))
    return created
