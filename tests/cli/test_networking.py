"""Networking with the CLI against a live server: the reconcilers and the simulated fabric (at
instant speed) make objects READY by themselves, as in a real deployment.

The module's server starts with the seeded catalogue; once the default NetworkClass and the pool
``public-v4`` are READY a provider admin onboards tenant ``netco``, whose default networking (VN,
subnet and SG ``default``, external IP ``default-nat``, NAT gateway ``default``) comes up by itself.
"""

from __future__ import annotations

import ipaddress
import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

from .conftest import BackgroundServer, Osac, table

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
AGE = re.compile(r"^\d+[smhd]$")
WAIT_SECONDS = 30.0
TENANT = "netco"


def get_object(osac: Osac, kind: str, name: str, *options: str) -> dict[str, Any]:
    return json.loads(osac.ok("get", kind, name, "-o", "json", *options))  # type: ignore[no-any-return]


def wait_until(osac: Osac, kind: str, name: str, *options: str, state: str = "READY",
               check: Any = None) -> dict[str, Any]:
    """The object once its ``status.state`` ends with ``_STATE_<state>`` (and ``check`` holds)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        obj = get_object(osac, kind, name, *options)
        if obj.get("status", {}).get("state", "").endswith(f"_STATE_{state}") and (check is None or check(obj)):
            return obj
        if time.monotonic() > deadline:
            raise AssertionError(f"{kind} {name} did not become {state} in {WAIT_SECONDS}s: {obj}")
        time.sleep(0.05)


def rows_by_name(osac: Osac, *args: str) -> dict[str, dict[str, str]]:
    return {row["NAME"]: row for row in table(osac.ok("get", *args))}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    running = BackgroundServer(tmp_path_factory.mktemp("osac-live"), live=True)
    running.start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def provider(live: BackgroundServer, tmp_path_factory: pytest.TempPathFactory) -> Osac:
    """A provider admin, once the seeded catalogue networking needs is READY."""
    root = Osac(live, tmp_path_factory.mktemp("provider") / "osac.yaml", CliRunner())
    root.login("provider-admin", user="root")
    wait_until(root, "network_class", "default", "--private")
    wait_until(root, "external_ip_pool", "public-v4", "--private")
    return root


@pytest.fixture(scope="module")
def owner(live: BackgroundServer, provider: Osac, tmp_path_factory: pytest.TempPathFactory) -> Osac:
    """A tenant admin of ``netco``, onboarded with its default networking READY."""
    assert provider.ok("create", "tenant", "--name", TENANT).startswith(f"Tenant '{TENANT}' created")
    wait_until(provider, "tenant", TENANT)
    admin = Osac(live, tmp_path_factory.mktemp("owner") / "osac.yaml", CliRunner())
    admin.login("tenant-admin", TENANT, user="nina")
    return admin


@pytest.fixture(scope="module")
def app_net(owner: Osac) -> str:
    assert owner.ok("create", "vn", "--name", "app-net", "--cidr", "10.20.0.0/16").startswith(
        "VirtualNetwork 'app-net' created (id "
    )
    wait_until(owner, "vn", "app-net")
    return "app-net"


@pytest.fixture(scope="module")
def app_subnet(owner: Osac, app_net: str) -> str:
    owner.ok("create", "subnet", "--name", "app", "--vn", app_net, "--cidr", "10.20.1.0/24")
    wait_until(owner, "subnet", "app")
    return "app"


@pytest.fixture(scope="module")
def web_group(owner: Osac, app_net: str) -> str:
    owner.ok(
        "create", "sg", "--name", "web", "--virtual-network", app_net,
        "--ingress", "protocol=tcp,port=443,cidr=0.0.0.0/0",
        "--ingress=protocol=udp,ports=1000-2000,cidr=10.0.0.0/8",
        "--egress", "protocol=all,cidr=0.0.0.0/0",
    )
    wait_until(owner, "sg", "web")
    return "web"


# -- tenant networking ---------------------------------------------------------------------------


def test_default_networking_of_a_new_tenant_is_listed_ready(owner: Osac) -> None:
    eip = wait_until(owner, "eip", "default-nat", state="ALLOCATED", check=lambda o: o["status"].get("attached"))

    networks = rows_by_name(owner, "vn")
    subnets = rows_by_name(owner, "subnets")
    groups = rows_by_name(owner, "sg")
    eips = rows_by_name(owner, "eip")
    gateways = rows_by_name(owner, "natgw")

    assert (networks["default"]["CIDR"], networks["default"]["CLASS"], networks["default"]["STATE"]) == (
        "10.0.0.0/16", "default", "READY")
    assert (subnets["default"]["GATEWAY"], subnets["default"]["STATE"]) == ("10.0.0.1", "READY")
    assert (groups["default"]["INGRESS"], groups["default"]["EGRESS"]) == ("tcp/22,icmp", "all")
    assert eips["default-nat"]["POOL"] == "public-v4"
    assert (eips["default-nat"]["ATTACHED"], eips["default-nat"]["STATE"]) == ("yes", "ALLOCATED")
    assert gateways["default"]["EXTERNAL IP"] == eip["status"]["address"] == eips["default-nat"]["ADDRESS"]
    assert gateways["default"]["STATE"] == "READY"


def test_network_subnet_and_group_from_flags_become_ready(
    owner: Osac, app_net: str, app_subnet: str, web_group: str
) -> None:
    network = rows_by_name(owner, "virtualnetworks")[app_net]
    subnet = rows_by_name(owner, "subnets")[app_subnet]
    group = rows_by_name(owner, "securitygroups")[web_group]

    assert (network["CIDR"], network["CLASS"], network["STATE"]) == ("10.20.0.0/16", "default", "READY")
    assert subnet["VIRTUAL NETWORK"] == app_net  # the referenced id shown by name
    assert (subnet["CIDR"], subnet["GATEWAY"], subnet["STATE"]) == ("10.20.1.0/24", "10.20.1.1", "READY")
    assert subnet["AVAILABLE"].isdigit() and int(subnet["AVAILABLE"]) > 0
    assert (group["VIRTUAL NETWORK"], group["INGRESS"], group["EGRESS"], group["STATE"]) == (
        app_net, "tcp/443,udp/1000-2000", "all", "READY")
    assert get_object(owner, "sg", web_group)["spec"]["ingress"] == [
        {"protocol": "PROTOCOL_TCP", "port_from": 443, "port_to": 443, "ipv4_cidr": "0.0.0.0/0"},
        {"protocol": "PROTOCOL_UDP", "port_from": 1000, "port_to": 2000, "ipv4_cidr": "10.0.0.0/8"},
    ]


def test_describe_subnet_shows_its_addresses_and_network(owner: Osac, app_subnet: str) -> None:
    shown = owner.ok("describe", "subnet", app_subnet)

    assert "\nState:          READY\n" in shown
    assert "\nGateway:        10.20.1.1\n" in shown
    assert "\nVIP range:      10.20.1.240-10.20.1.254\n" in shown
    assert re.search(r"\nAvailable:      \d+\n", shown)
    [reference] = shown.split("\nReferences:\n")[1].split("\n\n")[0].splitlines()
    assert reference.split()[:5] == ["spec.virtual_network", "VirtualNetwork", "'app-net'", "READY", "10.20.0.0/16"]


def test_describe_network_lists_what_refers_to_it(owner: Osac, app_net: str, app_subnet: str, web_group: str) -> None:
    shown = owner.ok("describe", "vn", app_net)

    referrers = shown.split("\nReferenced by:\n")[1].split("\n\n")[0].splitlines()
    assert any(line.split()[:3] == ["Subnet", "'app'", "READY"] and "(via spec.virtual_network)" in line
               for line in referrers)
    assert any(line.split()[:3] == ["SecurityGroup", "'web'", "READY"] for line in referrers)
    assert "spec.network_class   NetworkClass 'default'" in shown


def test_describe_group_shows_rules_as_sentences(owner: Osac, web_group: str) -> None:
    shown = owner.ok("describe", "sg", web_group)

    assert "  ingress:\n  - tcp 443 from 0.0.0.0/0\n  - udp 1000-2000 from 10.0.0.0/8\n" in shown
    assert "  egress:\n  - all to 0.0.0.0/0\n" in shown


@pytest.mark.parametrize(
    ("rule", "error"),
    [
        ("protocol=tcp,port=70000,cidr=0.0.0.0/0", "port 70000 is out of range; ports are 1-65535"),
        ("protocol=smoke,port=1,cidr=0.0.0.0/0", "protocol 'smoke' is not one of tcp, udp, icmp, all"),
        ("port=22,cidr=0.0.0.0/0", "no protocol; add protocol=tcp|udp|icmp|all"),
        ("protocol=tcp,cidr=0.0.0.0/0", "a tcp rule needs port=N or ports=N-M (1-65535)"),
        ("protocol=icmp,port=22,cidr=0.0.0.0/0", "icmp rules have no ports; remove port=22"),
        ("protocol=tcp,port=22",
         "no address range; add cidr=A.B.C.D/N (IPv4; cidr=0.0.0.0/0 for any) or cidr6=X::/N (IPv6)"),
        ("protocol=tcp,port=22,cidr=10.0.0.1/8", "cidr '10.0.0.1/8' has host bits set; did you mean cidr=10.0.0.0/8?"),
        ("protocol=tcp,port=22,cidr=::/0", "cidr '::/0' is IPv6; use cidr6=::/0"),
        ("protocol=tcp,ports=2000-1000,cidr=0.0.0.0/0", "ports=2000-1000 is reversed; write ports=1000-2000"),
        ("protocol=tcp,port=https,cidr=0.0.0.0/0",
         "port 'https' is not a port number; use port=N or ports=N-M (1-65535)"),
        ("tcp/443", "'tcp/443' is not KEY=VALUE; write rules like protocol=tcp,port=443,cidr=0.0.0.0/0"),
        ("protocol=tcp,port=1,source=0.0.0.0/0",
         "unknown key 'source'; the keys are protocol, port, ports, cidr, cidr6 (e.g. protocol=tcp,port=443,cidr=0.0.0.0/0)"),
    ],
    ids=["port range", "protocol", "no protocol", "no port", "icmp port", "no cidr", "host bits", "ipv6 in cidr",
         "reversed", "port name", "not key=value", "unknown key"],
)
def test_bad_rules_are_explained_and_nothing_is_created(owner: Osac, app_net: str, rule: str, error: str) -> None:
    result = owner("create", "sg", "--name", "bad", "--vn", app_net, "--ingress", "protocol=tcp,port=22,cidr=0.0.0.0/0",
                   "--egress", rule)

    assert result.exit_code == 1
    assert result.stderr == f"Error: --egress '{rule}': {error}\n"
    assert owner("get", "sg", "bad").exit_code == 1


def test_edit_replaces_the_rules_a_flag_names(owner: Osac, app_net: str) -> None:
    owner.ok("create", "sg", "--name", "edited", "--vn", app_net,
             "--ingress", "protocol=tcp,port=22,cidr=0.0.0.0/0", "--ingress", "protocol=icmp,cidr=0.0.0.0/0",
             "--egress", "protocol=all,cidr=0.0.0.0/0")
    wait_until(owner, "sg", "edited")

    out = owner.ok("edit", "sg", "edited", "--ingress", "protocol=tcp,port=8443,cidr=10.0.0.0/8")

    assert out.startswith("SecurityGroup 'edited' updated (spec.ingress) (id ")
    spec = wait_until(owner, "sg", "edited")["spec"]
    assert spec["ingress"] == [{"protocol": "PROTOCOL_TCP", "port_from": 8443, "port_to": 8443, "ipv4_cidr": "10.0.0.0/8"}]
    assert spec["egress"] == [{"protocol": "PROTOCOL_ALL", "ipv4_cidr": "0.0.0.0/0"}]  # untouched
    assert owner.ok("edit", "sg", "edited", "--egress", "none").startswith("SecurityGroup 'edited' updated (spec.egress)")
    assert "egress" not in get_object(owner, "sg", "edited")["spec"]
    refused = owner("edit", "sg", "edited", "--vn", "default")
    assert refused.exit_code == 1
    assert refused.stderr == "Error: --virtual-network: SecurityGroup spec.virtual_network cannot be changed after create\n"


# -- external IPs and NAT ------------------------------------------------------------------------


def test_external_ip_from_the_seeded_pool_is_allocated(owner: Osac) -> None:
    owner.ok("create", "eip", "--name", "spare", "--pool", "public-v4")

    eip = wait_until(owner, "eip", "spare", state="ALLOCATED")

    address = eip["status"]["address"]
    assert ipaddress.ip_address(address) in ipaddress.ip_network("203.0.113.0/24")
    row = rows_by_name(owner, "eips")["spare"]
    assert (row["POOL"], row["ADDRESS"], row["ATTACHED"], row["STATE"]) == ("public-v4", address, "no", "ALLOCATED")
    shown = owner.ok("describe", "eip", "spare")
    assert f"\nAddress:        {address}\n" in shown
    assert "\nAttached:       no\nConsumer:       none\n" in shown


def test_nat_gateway_on_a_network_without_one(owner: Osac, app_net: str) -> None:
    owner.ok("create", "eip", "--name", "app-nat-ip", "--pool", "public-v4")
    address = wait_until(owner, "eip", "app-nat-ip", state="ALLOCATED")["status"]["address"]

    out = owner.ok("create", "natgw", "--name", "app-nat", "--vn", app_net, "--external-ip", "app-nat-ip")

    assert out.startswith("NATGateway 'app-nat' created (id ")
    wait_until(owner, "natgw", "app-nat")
    row = rows_by_name(owner, "natgateways")["app-nat"]
    assert (row["VIRTUAL NETWORK"], row["EXTERNAL IP"], row["STATE"]) == (app_net, address, "READY")
    wait_until(owner, "eip", "app-nat-ip", state="ALLOCATED", check=lambda o: o["status"].get("attached"))
    assert "\nConsumer:       NATGateway 'app-nat' (READY)\n" in owner.ok("describe", "eip", "app-nat-ip")
    assert "NATGateway 'app-nat'" in owner.ok("describe", "vn", app_net).split("\nReferenced by:\n")[1]


def test_a_second_nat_gateway_on_a_network_is_refused(owner: Osac) -> None:
    owner.ok("create", "eip", "--name", "second-nat-ip", "--pool", "public-v4")
    wait_until(owner, "eip", "second-nat-ip", state="ALLOCATED")

    result = owner("create", "natgw", "--name", "second", "--vn", "default", "--external-ip", "second-nat-ip")

    assert result.exit_code == 1
    assert result.stderr.startswith("Error: ALREADY_EXISTS: ")


def test_external_ip_attachment_names_its_target(owner: Osac) -> None:
    owner.ok("create", "eip", "--name", "web-ip", "--pool", "public-v4")
    address = wait_until(owner, "eip", "web-ip", state="ALLOCATED")["status"]["address"]
    owner.ok("create", "vm", "--name", "web", "--set", "spec.template=fedora", "--set", "spec.instance_type=small")

    out = owner.ok("create", "eipa", "--name", "web-in", "--external-ip", "web-ip", "--compute-instance", "web")

    assert out.startswith("ExternalIPAttachment 'web-in' created (id ")
    row = rows_by_name(owner, "externalipattachments")["web-in"]
    assert (row["EXTERNAL IP"], row["TARGET"], row["ENDPOINT"]) == (address, "compute_instance/web", "-")
    assert row["STATE"] in ("PENDING", "READY") and row["REASON"] != "-"
    shown = owner.ok("describe", "eipa", "web-in")
    assert "\nReason:         " in shown and "\nTarget address: " in shown
    assert re.search(r"\n  spec\.compute_instance +ComputeInstance 'web' ", shown)
    assert "\nConsumer:       ExternalIPAttachment 'web-in' (" in owner.ok("describe", "eip", "web-ip")


def test_an_attachment_has_one_target(owner: Osac) -> None:
    result = owner("create", "eipa", "--name", "x", "--eip", "web-ip", "--vm", "web", "--cluster", "c1")

    assert result.exit_code == 1
    assert result.stderr == (
        "Error: --compute-instance and --cluster exclude each other: give one target, with one of "
        "--compute-instance, --cluster, --baremetal-instance\n"
    )


# -- provider side -------------------------------------------------------------------------------


def test_provider_creates_a_network_class_without_private(provider: Osac, owner: Osac) -> None:
    out = provider.ok(
        "create", "networkclass", "--name", "gold", "--title", "Gold", "--fabric-manager", "sim-fabric",
        "--k8s-manager", "sim-k8s", "--vip-prefix-length", "27", "--vn-cidr", "10.50.0.0/16",
        "--subnet-cidr", "10.50.0.0/24", "--nat-gateway", "--ingress", "protocol=tcp,port=22,cidr=0.0.0.0/0",
        "--egress", "protocol=all,cidr=0.0.0.0/0",
    )

    assert out.startswith("NetworkClass 'gold' created (id ")
    stored = wait_until(provider, "networkclass", "gold", "--private")
    assert stored["spec"]["defaults"]["enable_nat_gateway"] is True
    assert stored["spec"]["vip_prefix_length"] == 27
    private = rows_by_name(provider, "networkclasses", "--private")["gold"]
    assert (private["DEFAULT"], private["FABRIC MANAGER"], private["STATE"]) == ("no", "sim-fabric", "READY")
    public = rows_by_name(owner, "networkclasses")
    assert "FABRIC MANAGER" not in public["gold"] and public["default"]["DEFAULT"] == "yes"
    shown = provider.ok("describe", "networkclass", "gold", "--private")
    assert "\nDefault:        no\nFabric manager: sim-fabric\nK8s manager:    sim-k8s\nVIP prefix:     27\n" in shown
    assert "    ingress_rules:\n    - tcp 22 from 0.0.0.0/0\n" in shown


def test_provider_creates_an_external_ip_pool(provider: Osac, owner: Osac) -> None:
    out = provider.ok("create", "externalippool", "--name", "extra", "--cidr", "198.51.100.0/25",
                      "--cidr", "198.51.100.128/25", "--family", "ipv4")

    assert out.startswith("ExternalIPPool 'extra' created (id ")
    wait_until(provider, "externalippool", "extra", "--private")
    private = rows_by_name(provider, "externalippools", "--private")["extra"]
    assert (private["CIDRS"], private["FAMILY"], private["ALLOCATED"], private["STATE"]) == (
        "198.51.100.0/25,198.51.100.128/25", "IPV4", "0", "READY")
    assert int(private["TOTAL"]) > 0
    public = rows_by_name(owner, "externalippools")["extra"]
    assert (public["FAMILY"], public["AVAILABLE"]) == ("IPV4", private["TOTAL"])
    assert "STATE" not in public and "TOTAL" not in public


def test_a_tenant_cannot_create_network_classes(owner: Osac) -> None:
    result = owner("create", "networkclass", "--name", "mine", "--fabric-manager", "sim-fabric")

    assert result.exit_code == 1
    assert result.stderr.startswith("Error: PERMISSION_DENIED: ")
    assert result.stderr.endswith("(Create of network classes is for provider admins)\n")


# -- goldens -------------------------------------------------------------------------------------

SUBNETS_GOLDEN = """\
NAME   TENANT   VIRTUAL NETWORK   CIDR           GATEWAY     AVAILABLE   STATE   AGE     ID
app    netco    app-net           10.20.1.0/24   10.20.1.1   238         READY   <age>   <id>
db     netco    app-net           10.20.2.0/25   10.20.2.1   110         READY   <age>   <id>
"""


def masked(output: str) -> str:
    """The table with AGE and ID cells replaced by ``<age>`` and ``<id>`` (checked for form)."""
    header, *lines = output.rstrip("\n").splitlines()
    at = header.index("AGE")
    rows = []
    for line in lines:
        age, object_id = line[at:].split()
        assert AGE.match(age) and UUID.match(object_id), line
        rows.append(line[:at] + "<age>   <id>")
    return "\n".join([header[:at] + "AGE     ID", *rows]) + "\n"


def test_get_subnets_golden(owner: Osac, app_subnet: str) -> None:
    owner.ok("create", "subnet", "--name", "db", "--virtual-network", "app-net", "--ipv4-cidr", "10.20.2.0/25")
    wait_until(owner, "subnet", "db")

    assert masked(owner.ok("get", "subnets", app_subnet, "db")) == SUBNETS_GOLDEN
