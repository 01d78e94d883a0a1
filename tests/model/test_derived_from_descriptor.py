"""What generic code derives from the kind descriptors: the networking metrics' kinds, the
console's networking pages and a virtual network's parts, an external IP's consumers."""

from __future__ import annotations

from osac.api.public.v1.external_ip_type_pb2 import ExternalIP
from osac.api.public.v1.nat_gateway_type_pb2 import NATGateway
from osac.cli.connection.client import Link
from osac.cli.output.describe import Related, describe_lines
from osac.console import network_detail, networking
from osac.controllers.networking.metrics import NETWORKING_KINDS
from osac.model import registry


def test_the_networking_metrics_count_the_networking_group() -> None:
    assert NETWORKING_KINDS == (
        "network_class", "virtual_network", "subnet", "security_group",
        "external_ip_pool", "external_ip", "external_ip_attachment", "nat_gateway",
    )


def test_the_console_networking_pages_take_path_and_names_from_the_descriptor() -> None:
    assert networking.NETWORK_PAGES == (
        ("/networking/virtual-networks", "Virtual networks"), ("/networking/subnets", "Subnets"),
        ("/networking/security-groups", "Security groups"), ("/networking/external-ips", "External IPs"),
        ("/networking/nat-gateways", "NAT gateways"),
    )
    view = networking.VIEWS["nat-gateways"]
    assert (view.kind, view.title, view.noun) == ("nat_gateway", "NAT gateways", "NAT gateway")
    assert networking.OBJECT_PAGES["NATGateway"] == "/networking/nat-gateways/"


def test_a_virtual_networks_page_lists_the_networking_kinds_referring_to_it() -> None:
    assert network_detail.NETWORK_CHILDREN == (
        ("subnet", "spec.virtual_network"), ("security_group", "spec.virtual_network"),
        ("nat_gateway", "spec.virtual_network"),
    )
    assert network_detail.RELATED_KINDS["virtual_network"] == ("subnet", "security_group", "nat_gateway")


def test_an_external_ips_consumer_row_names_the_referring_kinds_only() -> None:
    address = ExternalIP(id="eip-1")
    address.metadata.name = "web"
    gateway = NATGateway(id="natgw-1")
    gateway.metadata.name = "default"
    gateway.status.state = 2
    referrers = [
        Link("spec.external_ip", registry.get("nat_gateway"), "natgw-1", gateway),
        Link("spec.virtual_network", registry.get("subnet"), "subnet-1", None),
    ]
    lines = describe_lines(registry.get("external_ip"), address, Related(referrers=referrers))
    assert "Consumer:       NATGateway 'default' (READY)" in lines
