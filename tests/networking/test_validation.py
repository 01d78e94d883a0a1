"""Create-time validation (networking.md §2, §3.1) through the REST API, with exact messages."""

from __future__ import annotations

from typing import Any

from tests.networking.conftest import Net, error
from tests.support.networking import PRIVATE, PUBLIC

VN_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("missing cidr", {}, "spec.ipv4_cidr: required; give an IPv4 CIDR such as 10.0.0.0/16"),
    ("host bits", {"ipv4_cidr": "10.1.0.1/16"}, "spec.ipv4_cidr: '10.1.0.1/16' has host bits set; the network is 10.1.0.0/16"),
    ("not a cidr", {"ipv4_cidr": "banana"}, "spec.ipv4_cidr: 'banana' is not a valid IPv4 network (e.g. 10.0.0.0/16)"),
    ("too long", {"ipv4_cidr": "10.1.0.0/29"}, "spec.ipv4_cidr: prefix /29 is too long; at most /28 is allowed"),
    ("ipv6 unsupported", {"ipv4_cidr": "10.1.0.0/16", "ipv6_cidr": "fd00::/48"},
     "spec.ipv6_cidr: NetworkClass 'default' does not support IPv6"),
    ("capability", {"ipv4_cidr": "10.1.0.0/16", "capabilities": {"enable_ipv6": True}},
     "spec.capabilities.enable_ipv6: NetworkClass 'default' does not support IPv6"),
]


async def test_virtual_network_rules_and_defaults(net: Net) -> None:
    await net.tenant()
    for case, spec, message in VN_CASES:
        response = await net.post("virtual_networks", {"spec": spec})
        assert error(response) == (400, message), case
    vn = await net.network("app", "10.1.0.0/16", ready=False)
    private = (await net.get("virtual_networks", vn["id"])).json()
    [default_class] = await net.items("network_classes", "this.metadata.name == 'default'")
    assert private["spec"]["network_class"] == default_class["id"]
    assert private["spec"]["region"] == "local"
    assert private["status"]["state"] == "VIRTUAL_NETWORK_STATE_PENDING"
    assert "region" not in vn["spec"]  # private only


async def test_subnet_rules_layout_and_overlap(net: Net) -> None:
    await net.tenant()
    vn = await net.network("app", "10.1.0.0/16")
    cases = [
        ("outside", {"ipv4_cidr": "10.2.0.0/24"}, "spec.ipv4_cidr: 10.2.0.0/24 is not inside VirtualNetwork 'app' (10.1.0.0/16)"),
        ("too long", {"ipv4_cidr": "10.1.0.0/30"}, "spec.ipv4_cidr: prefix /30 is too long; at most /29 is allowed"),
        ("vip prefix", {"ipv4_cidr": "10.1.0.0/28"},
         "spec.ipv4_cidr: prefix /28 must be shorter than the VIP prefix /28 of NetworkClass 'default' "
         "(the last /28 block of a subnet is its VIP range)"),
        ("ipv6 without vn ipv6", {"ipv4_cidr": "10.1.0.0/24", "ipv6_cidr": "fd00::/64"},
         "spec.ipv6_cidr: VirtualNetwork 'app' has no IPv6 CIDR"),
        ("missing", {}, "spec.ipv4_cidr: required; give an IPv4 CIDR such as 10.0.0.0/16"),
    ]
    for case, spec, message in cases:
        response = await net.post("subnets", {"spec": {"virtual_network": vn["id"], **spec}})
        assert error(response) == (400, message), case

    web = await net.subnet("web", "app", "10.1.0.0/23", ready=False)
    assert web["status"] == {"state": "SUBNET_STATE_PENDING", "gateway": "10.1.0.1",
                             "vip_range": "10.1.1.240-10.1.1.254", "available_addresses": 494}
    overlapping = await net.post("subnets", {"metadata": {"name": "db"}, "spec": {"virtual_network": "app", "ipv4_cidr": "10.1.1.0/24"}})
    assert error(overlapping) == (400, "subnet CIDR 10.1.1.0/24 overlaps Subnet 'web' (10.1.0.0/23) in VirtualNetwork 'app'")
    assert overlapping.json()["code"] == 9  # FAILED_PRECONDITION
    await net.subnet("db", "app", "10.1.2.0/24", ready=False)  # disjoint
    other = await net.network("other", "10.1.0.0/16")
    await net.subnet("web2", other["id"], "10.1.0.0/23", ready=False)  # same CIDR, another VN


async def test_security_rules(net: Net) -> None:
    await net.tenant()
    vn = await net.network("app", "10.1.0.0/16")
    tcp22 = {"protocol": "PROTOCOL_TCP", "port_from": 22, "port_to": 22, "ipv4_cidr": "0.0.0.0/0"}
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("no protocol", {"ingress": [{"ipv4_cidr": "0.0.0.0/0"}]},
         "spec.ingress[0].protocol: required; use PROTOCOL_TCP, PROTOCOL_UDP, PROTOCOL_ICMP or PROTOCOL_ALL"),
        ("tcp without ports", {"ingress": [tcp22, {**tcp22, "port_from": 0, "port_to": 0}]},
         "spec.ingress[1]: PROTOCOL_TCP ports must satisfy 1 <= port_from <= port_to <= 65535 (got 0-0)"),
        ("udp reversed", {"egress": [{**tcp22, "protocol": "PROTOCOL_UDP", "port_from": 80, "port_to": 22}]},
         "spec.egress[0]: PROTOCOL_UDP ports must satisfy 1 <= port_from <= port_to <= 65535 (got 80-22)"),
        ("port too high", {"ingress": [{**tcp22, "port_to": 65536}]},
         "spec.ingress[0]: PROTOCOL_TCP ports must satisfy 1 <= port_from <= port_to <= 65535 (got 22-65536)"),
        ("icmp with ports", {"ingress": [{"protocol": "PROTOCOL_ICMP", "port_from": 8, "ipv4_cidr": "0.0.0.0/0"}]},
         "spec.ingress[0]: PROTOCOL_ICMP rules take no ports; leave port_from and port_to 0"),
        ("no peer", {"ingress": [{"protocol": "PROTOCOL_ALL"}]},
         "spec.ingress[0]: set ipv4_cidr or ipv6_cidr (0.0.0.0/0 or ::/0 means any peer)"),
        ("bad peer", {"egress": [{"protocol": "PROTOCOL_ALL", "ipv4_cidr": "10.0.0.1/8"}]},
         "spec.egress[0].ipv4_cidr: '10.0.0.1/8' has host bits set; the network is 10.0.0.0/8"),
        ("ipv6 in ipv4 vn", {"ingress": [{"protocol": "PROTOCOL_ALL", "ipv6_cidr": "::/0"}]},
         "spec.ingress[0].ipv6_cidr: IPv6 rules need a VirtualNetwork with an IPv6 CIDR"),
    ]
    for case, rules, message in cases:
        response = await net.post("security_groups", {"spec": {"virtual_network": vn["id"], **rules}})
        assert error(response) == (400, message), case

    sg = await net.create("security_groups", {"metadata": {"name": "web"}, "spec": {"virtual_network": "app", "ingress": [tcp22]}},
                          ready=True)
    path = f"{PUBLIC}/security_groups/{sg['id']}"
    bad = await net.alice.request("PATCH", path, params={"update_mask": "spec.ingress"},
                                  json={"spec": {"ingress": [{"protocol": "PROTOCOL_TCP"}]}})
    assert error(bad)[0] == 400
    changed = await net.alice.request("PATCH", path, params={"update_mask": "spec.ingress"},
                                      json={"spec": {"ingress": [tcp22, {**tcp22, "port_from": 80, "port_to": 80}]}})
    assert changed.status_code == 200, changed.text
    assert changed.json()["status"]["state"] == "SECURITY_GROUP_STATE_PENDING"  # being re-applied
    labelled = await net.alice.request("PATCH", path, params={"update_mask": "metadata.labels"},
                                       json={"metadata": {"labels": {"a": "b"}}})
    assert labelled.json()["status"]["state"] == "SECURITY_GROUP_STATE_PENDING"


CLASS_CASES: list[tuple[str, dict[str, Any], str]] = [
    ("unregistered fabric", {"fabric_manager": "netris"}, "fabric manager 'netris' is not registered"),
    ("wrong kind", {"fabric_manager": "sim-k8s"}, "fabric manager 'sim-k8s' is not registered"),
    ("unregistered k8s", {"fabric_manager": "sim-fabric", "k8s_manager": "nope"}, "k8s manager 'nope' is not registered"),
    ("no fabric", {}, "fabric_manager: required; name a registered fabric manager"),
    ("vip prefix", {"fabric_manager": "sim-fabric", "spec": {"vip_prefix_length": 31}},
     "spec.vip_prefix_length: 31 is out of range; use 0 (= 28) or 1-30 (the VIP range must hold a cluster's two VIPs)"),
    ("disable ipv4", {"fabric_manager": "sim-fabric", "spec": {"disable_capabilities": {"supports_ipv4": True}}},
     "spec.disable_capabilities.supports_ipv4: IPv4 cannot be disabled; it must be false"),
    ("defaults without subnet", {"fabric_manager": "sim-fabric", "spec": {"defaults": {"virtual_network_ipv4_cidr": "10.0.0.0/16"}}},
     "spec.defaults.subnet_ipv4_cidr: required; give an IPv4 CIDR such as 10.0.0.0/16"),
    ("defaults subnet outside", {"fabric_manager": "sim-fabric", "spec": {"defaults": {
        "virtual_network_ipv4_cidr": "10.0.0.0/16", "subnet_ipv4_cidr": "10.9.0.0/24"}}},
     "spec.defaults.subnet_ipv4_cidr: 10.9.0.0/24 is not inside virtual_network_ipv4_cidr 10.0.0.0/16"),
    ("defaults subnet vip", {"fabric_manager": "sim-fabric", "spec": {"vip_prefix_length": 26, "defaults": {
        "virtual_network_ipv4_cidr": "10.0.0.0/16", "subnet_ipv4_cidr": "10.0.0.0/26"}}},
     "spec.defaults.subnet_ipv4_cidr: prefix /26 must be shorter than the VIP prefix /26 of this NetworkClass "
     "(the last /26 block of a subnet is its VIP range)"),
    ("defaults ipv6 subnet alone", {"fabric_manager": "sim-fabric", "spec": {"defaults": {
        "virtual_network_ipv4_cidr": "10.0.0.0/16", "subnet_ipv4_cidr": "10.0.0.0/24", "subnet_ipv6_cidr": "fd00::/64"}}},
     "spec.defaults.subnet_ipv6_cidr: needs virtual_network_ipv6_cidr"),
    ("defaults bad rule", {"fabric_manager": "sim-fabric", "spec": {"defaults": {
        "virtual_network_ipv4_cidr": "10.0.0.0/16", "subnet_ipv4_cidr": "10.0.0.0/24",
        "ingress_rules": [{"protocol": "PROTOCOL_TCP", "ipv4_cidr": "0.0.0.0/0"}]}}},
     "spec.defaults.ingress_rules[0]: PROTOCOL_TCP ports must satisfy 1 <= port_from <= port_to <= 65535 (got 0-0)"),
]


async def test_network_class_rules_and_default_flag(net: Net) -> None:
    for case, body, message in CLASS_CASES:
        response = await net.post("network_classes", {"metadata": {"name": "bad"}, **body}, private=True)
        assert error(response) == (400, message), case
    [old] = await net.items("network_classes")
    premium = await net.create("network_classes", {"metadata": {"name": "premium"}, "fabric_manager": "sim-fabric",
                                                   "is_default": True}, private=True)
    assert premium["is_default"] is True
    assert premium["capabilities"] == {"supports_ipv4": True}
    assert "is_default" not in (await net.get("network_classes", old["id"])).json()  # moved, not duplicated
    cleared = await net.admin.request("PATCH", f"{PRIVATE}/network_classes/{premium['id']}",
                                      params={"update_mask": "is_default"}, json={"is_default": False})
    assert error(cleared) == (400, "is_default: exactly one NetworkClass is the default; set is_default on another class to move it")
    back = await net.admin.request("PATCH", f"{PRIVATE}/network_classes/{old['id']}",
                                   params={"update_mask": "is_default"}, json={"is_default": True})
    assert back.status_code == 200 and back.json()["is_default"] is True
    assert "is_default" not in (await net.get("network_classes", premium["id"])).json()
    public = (await net.alice.request("GET", f"{PUBLIC}/network_classes/{old['id']}")).json()
    assert "fabric_manager" not in public and "k8s_manager" not in public


async def test_pool_rules_and_public_view(net: Net) -> None:
    cases: list[tuple[str, dict[str, Any], int, str]] = [
        ("no cidrs", {"ip_family": "IP_FAMILY_IPV4"}, 400, "spec.cidrs: at least one CIDR is required"),
        ("no family", {"cidrs": ["198.51.100.0/24"]}, 400, "spec.ip_family: required; use IP_FAMILY_IPV4 or IP_FAMILY_IPV6"),
        ("wrong family", {"cidrs": ["fd00::/64"], "ip_family": "IP_FAMILY_IPV4"}, 400,
         "spec.cidrs[0]: 'fd00::/64' is not an IPv4 network (e.g. 10.0.0.0/16)"),
        ("self overlap", {"cidrs": ["198.51.100.0/24", "198.51.100.128/25"], "ip_family": "IP_FAMILY_IPV4"}, 400,
         "spec.cidrs[1]: 198.51.100.128/25 overlaps spec.cidrs[0] 198.51.100.0/24"),
        ("other pool", {"cidrs": ["203.0.113.128/25"], "ip_family": "IP_FAMILY_IPV4"}, 400,
         "spec.cidrs: 203.0.113.128/25 overlaps ExternalIPPool 'public-v4' (203.0.113.0/24)"),
    ]
    for case, spec, status, message in cases:
        response = await net.post("external_ip_pools", {"metadata": {"name": "bad"}, "spec": spec}, private=True)
        assert error(response) == (status, message), case
    v6 = await net.create("external_ip_pools", {"metadata": {"name": "v6"}, "spec": {"cidrs": ["2001:db8::/64"],
                                                                                   "ip_family": "IP_FAMILY_IPV6"}},
                          private=True, ready=True)
    tiny = await net.pool("tiny", ["198.51.100.0/30"])
    assert {k: tiny["status"][k] for k in ("total", "available")} == {"total": "2", "available": "2"}
    await net.pool("later", ["192.0.2.0/24"], ready=False)

    await net.tenant()
    v6_eip = await net.post("external_ips", {"spec": {"pool": "v6"}})
    assert error(v6_eip) == (400, "ExternalIPPool 'v6' is not an IPv4 pool; ExternalIPs are allocated from IPv4 pools only")
    first = await net.external_ip("a", "tiny", ready=False)
    second = await net.external_ip("b", "tiny", ready=False)
    assert (first["status"]["address"], second["status"]["address"]) == ("198.51.100.1", "198.51.100.2")
    assert first["status"]["pool"] == tiny["id"] and first["status"]["state"] == "EXTERNAL_IP_STATE_PENDING"
    exhausted = await net.post("external_ips", {"metadata": {"name": "c"}, "spec": {"pool": "tiny"}})
    assert error(exhausted) == (429, "ExternalIPPool 'tiny' has no available addresses")
    stored = (await net.get("external_ip_pools", tiny["id"])).json()["status"]
    assert (stored["total"], stored["allocated"], "available" in stored) == ("2", "2", False)

    listed = (await net.alice.request("GET", f"{PUBLIC}/external_ip_pools")).json()
    assert [p["metadata"]["name"] for p in listed["items"]] == ["public-v4"]  # READY with free addresses only
    assert listed["items"][0]["status"] == {"available": "253"}  # the default NAT address is taken
    assert (await net.alice.request("GET", f"{PUBLIC}/external_ip_pools/{tiny['id']}")).status_code == 404
    assert (await net.alice.request("GET", f"{PUBLIC}/external_ip_pools/{v6['id']}")).status_code == 404


async def test_attachment_and_gateway_rules(net: Net) -> None:
    await net.tenant()
    vm = await net.create("compute_instances", {"metadata": {"name": "vm"}, "spec": {"template": "fedora", "instance_type": "small"}})
    cluster = await net.create("clusters", {"metadata": {"name": "ocp"}, "spec": {"template": "ocp-small"}})
    web = await net.external_ip("web")
    await net.external_ip("api")
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("no target", {"external_ip": "web"},
         "spec.target: exactly one of spec.compute_instance, spec.cluster or spec.baremetal_instance is required"),
        ("endpoint on a vm", {"external_ip": "web", "compute_instance": "vm", "target_endpoint": "EXTERNAL_IP_ATTACHMENT_ENDPOINT_API"},
         "spec.target_endpoint: only a Cluster target has endpoints; leave it unset for a ComputeInstance"),
        ("cluster without endpoint", {"external_ip": "web", "cluster": "ocp"},
         "spec.target_endpoint: required for a Cluster target; use EXTERNAL_IP_ATTACHMENT_ENDPOINT_API or "
         "EXTERNAL_IP_ATTACHMENT_ENDPOINT_INGRESS"),
        ("unknown target", {"external_ip": "web", "compute_instance": "nope"}, "spec.compute_instance: ComputeInstance 'nope' not found"),
    ]
    for case, spec, message in cases:
        response = await net.post("external_ip_attachments", {"spec": spec})
        assert error(response) == (400, message), case

    attached = await net.create("external_ip_attachments", {"metadata": {"name": "web"}, "spec": {"external_ip": "web", "compute_instance": "vm"}})
    assert attached["status"] == {"state": "EXTERNAL_IP_ATTACHMENT_STATE_PENDING", "external_ip_address": web["status"]["address"],
                                  "reason": "WaitingForIPAddress"}
    again = await net.post("external_ip_attachments", {"spec": {"external_ip": "api", "compute_instance": vm["id"]}})
    assert error(again) == (409, "ComputeInstance 'vm' already has ExternalIPAttachment 'web'")
    consumed = await net.post("external_ip_attachments", {"spec": {"external_ip": "default-nat", "compute_instance": "vm"}})
    assert error(consumed) == (400, "ExternalIP 'default-nat' is already used by NATGateway 'default'")

    await net.create("external_ip_attachments", {"metadata": {"name": "ocp-api"}, "spec": {
        "external_ip": "api", "cluster": cluster["id"], "target_endpoint": "EXTERNAL_IP_ATTACHMENT_ENDPOINT_API"}})
    ingress = await net.external_ip("ingress")
    second_api = await net.post("external_ip_attachments", {"spec": {
        "external_ip": ingress["id"], "cluster": "ocp", "target_endpoint": "EXTERNAL_IP_ATTACHMENT_ENDPOINT_API"}})
    assert error(second_api) == (409, "Cluster 'ocp' already has ExternalIPAttachment 'ocp-api' for endpoint API")
    await net.create("external_ip_attachments", {"spec": {
        "external_ip": "ingress", "cluster": "ocp", "target_endpoint": "EXTERNAL_IP_ATTACHMENT_ENDPOINT_INGRESS"}})

    spare = await net.external_ip("spare")
    second_gateway = await net.post("nat_gateways", {"spec": {"virtual_network": "default", "external_ip": spare["id"]}})
    assert error(second_gateway) == (409, "VirtualNetwork 'default' already has NATGateway 'default'")
    vn = await net.network("app", "10.1.0.0/16")
    used = await net.post("nat_gateways", {"spec": {"virtual_network": vn["id"], "external_ip": "web"}})
    assert error(used) == (400, "ExternalIP 'web' is already used by ExternalIPAttachment 'web'")
    gateway = await net.create("nat_gateways", {"metadata": {"name": "app"}, "spec": {"virtual_network": "app", "external_ip": "spare"}})
    assert gateway["status"]["state"] == "NAT_GATEWAY_STATE_PENDING"
