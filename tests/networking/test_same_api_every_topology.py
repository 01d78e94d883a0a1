"""networking.md §14 scenario 10, *same API in every topology*: one scenario script, run as a
tenant admin and a provider admin against two servers, gives the same results whether the
default NetworkClass has the simulated k8s manager (the embedded default) or none (a
bare-metal-only deployment), except for exactly the ComputeInstance and Cluster creates, which the
bare-metal-only topology rejects with the §2 FAILED_PRECONDITION messages, storing nothing.

The script (``scenario``) onboards a tenant with default networking, builds a VirtualNetwork with
two subnets (an overlapping third is refused), a security group whose rules change, external IPs,
a NAT gateway (a second one is refused), a bare-metal server on the default subnet with automatic
external access, asks the simulated fabric what traffic does, tries the delete gates, creates a
VM and a cluster, and deletes everything it made. It records a *transcript*: per step the
response (``OK`` or HTTP status, gRPC code and message), final states, addresses and what is left,
with object ids replaced by ``<Kind name>`` placeholders so that two runs compare. Everything
runs end to end: reconcilers, simulator at instant speed, short backoffs.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
import yaml

from osac.auth.subject import Role
from osac.server import bootstrap
from tests.caas.conftest import PULL_SECRET, RELEASE_IMAGE, ssh_key
from tests.support.bmaas import FAST_GATES
from tests.support.onboarding import ready_catalogue
from tests.support.prepared import copy_sqlite
from tests.support.server import RestClient, running_server
from tests.support.traffic import ALL_EGRESS, SECTION_14_DEFAULTS, tcp

PUBLIC = "/api/fulfillment/v1"
PRIVATE = "/api/private/v1"
TENANT = "acme"
#: The two steps whose results depend on the topology (§2).
VM_CREATE = "ComputeInstance create"
CLUSTER_CREATE = "Cluster create"
NO_K8S = "are not supported in this deployment: NetworkClass 'default' has no Kubernetes network manager"
#: States an object settles in, and how long a step waits for that before recording what it has.
SETTLED = ("READY", "ALLOCATED", "RUNNING", "FAILED")
SETTLE_SECONDS = 30.0

Transcript = dict[str, Any]
#: What the script made, by (collection, name).
Network = dict[tuple[str, str], dict[str, Any]]
Outcome = str | tuple[int, str, str]

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_CODES = {code.value[0]: code.name for code in grpc.StatusCode}
_KINDS = {
    "virtual_networks": "VirtualNetwork", "subnets": "Subnet", "security_groups": "SecurityGroup",
    "external_ips": "ExternalIP", "nat_gateways": "NATGateway", "external_ip_attachments": "ExternalIPAttachment",
    "baremetal_instances": "BareMetalInstance", "compute_instances": "ComputeInstance", "clusters": "Cluster",
}
_DEFAULTS = ("virtual_networks", "subnets", "security_groups", "external_ips", "nat_gateways")
_WORKLOADS = ("baremetal_instances", "compute_instances", "clusters")


# -- recording ----------------------------------------------------------------------------------------


class Recorder:
    """Requests as a tenant admin (``alice``) and a provider admin (``admin``), and the
    transcript of their outcomes, normalized: every id the script has seen becomes
    ``<Kind name>``; any other id ``<id>``."""

    def __init__(self, admin: RestClient, alice: RestClient) -> None:
        self.admin = admin
        self.alice = alice
        self.transcript: Transcript = {}
        self._labels: dict[str, str] = {}

    def record(self, step: str, outcome: Any) -> None:
        assert step not in self.transcript, step
        self.transcript[step] = self.clean(outcome)

    def remember(self, collection: str, obj: dict[str, Any]) -> None:
        self._labels[obj["id"]] = f"<{_KINDS[collection]} {self.clean(obj['metadata']['name'])}>"

    def clean(self, value: Any) -> Any:
        if isinstance(value, str):
            for object_id, label in self._labels.items():
                value = value.replace(object_id, label)
            return _UUID.sub("<id>", value)
        if isinstance(value, dict):
            return {key: self.clean(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(self.clean(item) for item in value)
        return value

    # -- requests ----------------------------------------------------------------------------------

    async def call(self, method: str, path: str, *, admin: bool = False, **kwargs: Any
                   ) -> tuple[Outcome, dict[str, Any]]:
        """(``OK`` or (HTTP status, gRPC code, message), body)."""
        response = await (self.admin if admin else self.alice).request(method, path, **kwargs)
        return outcome(response), dict(response.json())

    async def create(self, collection: str, name: str, spec: dict[str, Any]) -> tuple[Outcome, dict[str, Any]]:
        """A tenant Create; the new object (if any) is remembered."""
        result, body = await self.call("POST", f"{PUBLIC}/{collection}", json={"metadata": {"name": name}, "spec": spec})
        if result == "OK":
            self.remember(collection, body)
        return result, body

    async def items(self, collection: str, condition: str = "") -> list[dict[str, Any]]:
        """The tenant's live objects of a collection, as the tenant sees them, remembered."""
        params = {"filter": condition} if condition else {}
        response = await self.alice.request("GET", f"{PUBLIC}/{collection}", params=params)
        assert response.status_code == 200, response.text
        found = list(response.json()["items"])
        for item in found:
            self.remember(collection, item)
        return found

    async def settle(self, collection: str, object_id: str, *, until: Callable[[dict[str, Any]], bool] = lambda _: True,
                     admin: bool = False) -> dict[str, Any]:
        """The object (read by ``alice``, or the provider ``admin``) once it is in a ``SETTLED``
        state and ``until`` holds, else after ``SETTLE_SECONDS`` as it then is: the transcript
        then shows the wrong state instead of the test hanging."""
        path = f"{PUBLIC}/{collection}/{object_id}"
        client = self.admin if admin else self.alice
        last: dict[str, Any] = {}
        try:
            async with asyncio.timeout(SETTLE_SECONDS):
                while True:
                    response = await client.request("GET", path)
                    last = dict(response.json())
                    if response.status_code == 200 and state(last) in SETTLED and until(last):
                        return last
                    await asyncio.sleep(0.05)
        except TimeoutError:
            return last

    async def delete(self, collection: str, object_id: str) -> tuple[Outcome, bool]:
        """A tenant Delete and whether the object was then archived (its Get answers 404)."""
        result, _ = await self.call("DELETE", f"{PUBLIC}/{collection}/{object_id}")
        if result != "OK":
            return result, False
        try:
            async with asyncio.timeout(SETTLE_SECONDS):
                while (await self.alice.request("GET", f"{PUBLIC}/{collection}/{object_id}")).status_code != 404:
                    await asyncio.sleep(0.05)
        except TimeoutError:
            return result, False
        return result, True

    async def left(self, *collections: str) -> dict[str, list[tuple[str, str]]]:
        """(name, state) of the tenant's live objects per collection."""
        return {c: sorted((str(self.clean(i["metadata"]["name"])), state(i)) for i in await self.items(c))
                for c in collections}

    async def events(self, object_type: str = "", object_id: str = "") -> list[str]:
        """Reasons of the tenant's lifecycle events about one object, or about every object of a
        type (``ComputeInstance``), oldest first."""
        condition = f"this.object_id == '{object_id}'" if object_id else f"this.object_type == '{object_type}'"
        response = await self.alice.request("GET", f"{PUBLIC}/lifecycle_events", params={"filter": condition})
        assert response.status_code == 200, response.text
        return [event["reason"] for event in response.json()["items"]]


def outcome(response: httpx.Response) -> Outcome:
    if response.status_code == 200:
        return "OK"
    body = response.json()
    return response.status_code, _CODES.get(body.get("code"), str(body.get("code"))), str(body.get("message"))


def state(obj: dict[str, Any]) -> str:
    """``READY`` from ``SUBNET_STATE_READY``."""
    return str(obj.get("status", {}).get("state", "")).rsplit("_STATE_", 1)[-1]


# -- the scenario ---------------------------------------------------------------------------------------


async def scenario(admin: RestClient, alice: RestClient) -> Transcript:
    """The §14 scenario 10 suite, as tenant ``acme`` (``alice``) and the provider admin."""
    run = Recorder(admin, alice)
    await _onboarding(run)
    network = await _networking(run)
    server = await _bare_metal_server(run)
    await _topology_dependent_creates(run, network)
    await _delete_gates(run, network, server)
    await _deletes(run, network, server)
    return run.transcript


async def _onboarding(run: Recorder) -> None:
    result, tenant = await run.call("POST", f"{PUBLIC}/tenants", admin=True, json={"metadata": {"name": TENANT}})
    present = {c: [i["metadata"]["name"] for i in await run.items(c)] for c in _DEFAULTS}
    run.record("tenant create", {"response": result, "state": state(tenant), "defaults present": present})
    ready = await run.settle("tenants", tenant["id"], admin=True)
    [condition] = ready["status"]["conditions"]
    run.record("tenant ready", {
        "state": state(ready), "condition": (condition["status"], condition["reason"], condition["message"]),
        "events": await run.events(object_id=tenant["id"])})

    defaults = {c: (await run.items(c))[0] for c in _DEFAULTS}
    subnet, group, eip, gateway = (defaults[c] for c in ("subnets", "security_groups", "external_ips", "nat_gateways"))
    run.record("default networking", {
        "states": {c: state(obj) for c, obj in defaults.items()},
        "labels": {c: obj["metadata"].get("labels", {}) for c, obj in defaults.items()},
        "subnet": (subnet["spec"]["ipv4_cidr"], subnet["status"]["gateway"], subnet["status"]["vip_range"],
                   subnet["status"]["available_addresses"]),
        "security group": (len(group["spec"].get("ingress", [])), len(group["spec"].get("egress", []))),
        "nat": (eip["status"]["address"], eip["status"].get("attached", False), gateway["spec"]),
    })
    classes = (await run.alice.request("GET", f"{PUBLIC}/network_classes")).json()["items"]
    run.record("network classes (tenant view)", [
        {"name": c["metadata"]["name"], "fields": sorted(c), "is_default": c.get("is_default", False),
         "capabilities": c.get("capabilities", {}), "state": state(c)} for c in classes])


async def _networking(run: Recorder) -> Network:
    """VN ``app`` with subnets ``web`` and ``db``, SG ``web``, EIPs ``nat`` / ``spare`` and NAT
    gateway ``app``; returns them by name."""
    made: Network = {}

    async def settled(step: str, collection: str, name: str, spec: dict[str, Any],
                      **details: Callable[[dict[str, Any]], Any]) -> None:
        """Create, wait for the object to settle and record the outcome, its state and
        ``details`` (name -> what to pick from the settled object)."""
        result, created = await run.create(collection, name, spec)
        entry: dict[str, Any] = {"response": result}
        if result == "OK":
            obj = made[collection, name] = await run.settle(collection, created["id"])
            entry["state"] = state(obj)
            entry.update({key: pick(obj) for key, pick in details.items()})
        run.record(step, entry)

    def layout(subnet: dict[str, Any]) -> tuple[str, str, int]:
        status = subnet["status"]
        return status["gateway"], status["vip_range"], status["available_addresses"]

    await settled("virtual network", "virtual_networks", "app", {"ipv4_cidr": "10.1.0.0/16"})
    vn = made["virtual_networks", "app"]["id"]
    await settled("subnet web", "subnets", "web", {"virtual_network": vn, "ipv4_cidr": "10.1.0.0/23"}, layout=layout)
    await settled("subnet overlapping web", "subnets", "db", {"virtual_network": vn, "ipv4_cidr": "10.1.1.0/24"})
    await settled("subnet db", "subnets", "db", {"virtual_network": vn, "ipv4_cidr": "10.1.2.0/24"}, layout=layout)
    await settled("security group", "security_groups", "web", {
        "virtual_network": vn, "ingress": [tcp(22, "10.1.0.0/16"), tcp(443, "0.0.0.0/0")], "egress": ALL_EGRESS})

    rules = [tcp(22, "10.1.0.0/16"), tcp(443, "0.0.0.0/0"), tcp(80, "0.0.0.0/0")]
    group_id = made["security_groups", "web"]["id"]
    result, patched = await run.call("PATCH", f"{PUBLIC}/security_groups/{group_id}",
                                     params={"update_mask": "spec.ingress"}, json={"spec": {"ingress": rules}})
    group = await run.settle("security_groups", group_id)
    run.record("security group rules changed", {"response": result, "state on update": state(patched),
                                                "state": state(group), "ingress rules": len(group["spec"]["ingress"])})

    address = {"address": lambda eip: eip["status"]["address"]}
    await settled("external ip nat", "external_ips", "nat", {"pool": "public-v4"}, **address)
    nat = made["external_ips", "nat"]["id"]
    await settled("nat gateway", "nat_gateways", "app", {"virtual_network": vn, "external_ip": nat})
    eip = await run.settle("external_ips", nat)
    run.record("nat gateway's external ip", {"state": state(eip), "attached": eip["status"].get("attached", False)})
    await settled("external ip spare", "external_ips", "spare", {"pool": "public-v4"}, **address)
    spare = made["external_ips", "spare"]["id"]
    await settled("second nat gateway", "nat_gateways", "app-2", {"virtual_network": vn, "external_ip": spare})
    return made


async def _bare_metal_server(run: Recorder) -> dict[str, Any]:
    """Server ``db`` on the tenant's defaults with automatic external access, RUNNING."""
    result, created = await run.create("baremetal_instances", "db", {"host_type": "bm-standard",
                                                                     "auto_external_ip_attachment": True})
    run.record("bare-metal server create", {"response": result, "state": state(created),
                                            "network_attachments": created["spec"].get("network_attachments")})
    running = await run.settle("baremetal_instances", created["id"], until=lambda s: bool(
        s["status"].get("network_attachment_statuses")))
    [eip] = await run.items("external_ips", f"this.metadata.name == 'auto-{created['id']}'")
    [attached] = await run.items("external_ip_attachments")
    attached = await run.settle("external_ip_attachments", attached["id"])
    eip = await run.settle("external_ips", eip["id"])
    events = await run.events(object_id=created["id"])
    eip_status, attached_status = eip["status"], attached["status"]
    run.record("bare-metal server running", {
        "state": state(running), "statuses": running["status"].get("network_attachment_statuses"),
        "auto external ip": (eip["metadata"]["name"], state(eip), eip_status.get("address"), eip_status.get("attached")),
        "auto attachment": (attached["metadata"]["name"], state(attached), attached_status.get("target_address"),
                            attached_status.get("external_ip_address")),
        "events": sorted(set(events) & {"NetworkAttachmentsPopulated", "AutoExternalIPCreated", "NetworkingConfigured"}),
    })

    host = (await run.admin.request("GET", f"{PRIVATE}/baremetal_instances/{created['id']}")).json()["status"]["host"]
    port = f"{host}/{running['spec']['network_attachments'][0]['interface']}"
    answers = {}
    for label, src, dst, port_number in (("internet -> server tcp 22", "internet", port, 22),
                                         ("server -> internet tcp 443", port, "internet", 443)):
        response = await run.admin.request("POST", f"{PRIVATE}/simulator/check_reachability", json={
            "src": src, "dst": dst, "protocol": "PROTOCOL_TCP", "port": port_number})
        body = response.json()
        answers[label] = (response.status_code, body.get("allowed", False), body.get("reason"),
                          body.get("translated_source", ""), body.get("translated_destination", ""))
    run.record("reachability", answers)
    return running


async def _topology_dependent_creates(run: Recorder, network: Network) -> None:
    """A VM on the tenant's defaults and a cluster on subnet ``web``: accepted, run and deleted
    where the class has a k8s manager; refused, leaving nothing, where it has none."""
    result, vm = await run.create("compute_instances", "vm", {"template": "fedora"})
    entry: dict[str, Any] = {"response": result}
    if result == "OK":
        running = await run.settle("compute_instances", vm["id"],
                                   until=lambda v: bool(v["status"].get("internal_ip_address")))
        entry.update({"attachments": vm["spec"]["compute_network_attachments"], "state": state(running),
                      "address": running["status"].get("internal_ip_address"),
                      "delete": await run.delete("compute_instances", vm["id"])})
    entry["left"] = await run.left("compute_instances")
    entry["any events"] = bool(await run.events("ComputeInstance"))
    run.record(VM_CREATE, entry)

    result, cluster = await run.create("clusters", "kube", {
        "template": "ocp-small", "release_image": RELEASE_IMAGE, "pull_secret": PULL_SECRET, "ssh_public_key": ssh_key(),
        "node_sets": {"workers": {"host_type": "vm-standard", "size": 2}},
        "network_attachment": {"subnet": network["subnets", "web"]["id"],
                               "security_groups": [network["security_groups", "web"]["id"]]}})
    entry = {"response": result}
    if result == "OK":
        ready = await run.settle("clusters", cluster["id"])
        entry.update({"state": state(ready), "api endpoint": ready["status"].get("api_endpoint"),
                      "ingress endpoint": ready["status"].get("ingress_endpoint"),
                      "delete": await run.delete("clusters", cluster["id"])})
    entry["left"] = await run.left("clusters")
    entry["any events"] = bool(await run.events("Cluster"))
    run.record(CLUSTER_CREATE, entry)


async def _delete_gates(run: Recorder, network: Network, server: dict[str, Any]) -> None:
    """Deletes blocked by dependents (§4), each refused with the dependents named."""
    defaults = {c: (await run.items(c, "this.metadata.name == 'default'"))[0] for c in ("subnets", "security_groups")}
    [auto_eip] = await run.items("external_ips", f"this.metadata.name == 'auto-{server['id']}'")
    gates = {
        "subnet default (server on it)": ("subnets", defaults["subnets"]["id"]),
        "security group default (server uses it)": ("security_groups", defaults["security_groups"]["id"]),
        "virtual network app (subnets, group, gateway)": ("virtual_networks", network["virtual_networks", "app"]["id"]),
        "external ip nat (gateway uses it)": ("external_ips", network["external_ips", "nat"]["id"]),
        "auto external ip (attachment uses it)": ("external_ips", auto_eip["id"]),
    }
    run.record("delete gates", {label: (await run.call("DELETE", f"{PUBLIC}/{collection}/{object_id}"))[0]
                                for label, (collection, object_id) in gates.items()})
    result, _ = await run.create("external_ip_attachments", "reuse", {
        "external_ip": network["external_ips", "nat"]["id"], "baremetal_instance": server["id"]})
    run.record("attachment of a consumed external ip", result)


async def _deletes(run: Recorder, network: Network, server: dict[str, Any]) -> None:
    """The server (and with it its automatic external access), then everything the tenant made,
    each to archived; then what is left and the pool's counters."""
    run.record("bare-metal server delete", {
        "delete": await run.delete("baremetal_instances", server["id"]),
        "left": await run.left("baremetal_instances", "external_ip_attachments", "external_ips")})
    order = (("nat_gateways", "app"), ("external_ips", "nat"), ("external_ips", "spare"), ("security_groups", "web"),
             ("subnets", "db"), ("subnets", "web"), ("virtual_networks", "app"))
    run.record("deletes", {f"{collection} {name}": await run.delete(collection, network[collection, name]["id"])
                           for collection, name in order})
    [subnet] = await run.items("subnets")
    [pool] = (await run.admin.request("GET", f"{PRIVATE}/external_ip_pools",
                                      params={"filter": "this.metadata.name == 'public-v4'"})).json()["items"]
    run.record("what is left", {
        "objects": await run.left(*_DEFAULTS, "external_ip_attachments", *_WORKLOADS),
        "default subnet available addresses": subnet["status"]["available_addresses"],
        "pool public-v4": {key: int(pool["status"].get(key, 0)) for key in ("total", "allocated", "available")},
    })


# -- the two topologies ---------------------------------------------------------------------------------


def catalogue(directory: Path, *, has_k8s_manager: bool) -> Path:
    """The bootstrap catalogue with the §14 tenant defaults on the default NetworkClass, which
    keeps the simulated k8s manager or (bare-metal only) has none."""
    objects = bootstrap.load(None)
    [network_class] = [entry["object"] for entry in objects if entry["kind"] == "NetworkClass"]
    network_class["spec"]["defaults"] = SECTION_14_DEFAULTS
    if not has_k8s_manager:
        del network_class["k8s_manager"]
    path = directory / "catalogue.yaml"
    path.write_text(yaml.safe_dump({"objects": objects}))
    return path


async def transcript_of(directory: Path, db_url: str, *, has_k8s_manager: bool) -> Transcript:
    """Run the scenario against a fresh server of that topology."""
    directory.mkdir()
    seeded = catalogue(directory, has_k8s_manager=has_k8s_manager)
    async with running_server(directory, db_url, controllers=True, config=FAST_GATES, bootstrap=seeded) as server:
        admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
        alice = server.rest(server.token(Role.TENANT_ADMIN, (TENANT,), user="alice"))
        async with admin, alice:
            await ready_catalogue(admin)
            [network_class] = (await admin.request("GET", f"{PRIVATE}/network_classes")).json()["items"]
            assert network_class.get("k8s_manager", "") == ("sim-k8s" if has_k8s_manager else "")
            return await scenario(admin, alice)


@pytest.fixture
async def second_db_url(db_engine: str, tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[str]:
    """Another empty migrated database on this test's engine, for the second server."""
    if db_engine == "sqlite":
        directory = tmp_path / "second-database"
        directory.mkdir()
        yield copy_sqlite(request.getfixturevalue("sqlite_migrated_template"), directory)
        return
    databases = request.getfixturevalue("pg_databases")
    with databases.borrow(request.getfixturevalue("pg_migrated_template")) as name:
        yield databases.url(name)


# -- expectations -----------------------------------------------------------------------------------------

DEFAULT_SUBNET = "<Subnet default>"
DEFAULT_GROUP = "<SecurityGroup default>"
SERVER = "<BareMetalInstance db>"
DEFAULT_LABEL = {"osac.openshift.io/default": "true"}
NOTHING: list[tuple[str, str]] = []
ARCHIVED = ("OK", True)


def refused(code: str, message: str) -> tuple[int, str, str]:
    """A FAILED_PRECONDITION (HTTP 400) or ALREADY_EXISTS (HTTP 409) answer."""
    return {"FAILED_PRECONDITION": 400, "ALREADY_EXISTS": 409}[code], code, message


#: The transcript where the default class has the k8s manager (§14 setup: VN 10.0.0.0/16, subnet
#: 10.0.1.0/24 with gateway .1, workload range .2-.239 and VIP range .240-.254, SG TCP 22 from
#: 10.0.0.0/16 and all egress, NAT on; pool 203.0.113.0/24, addresses lowest first).
EXPECTED: Transcript = {
    "tenant create": {"response": "OK", "state": "PENDING", "defaults present": {
        "virtual_networks": ["default"], "subnets": ["default"], "security_groups": ["default"],
        "external_ips": ["default-nat"], "nat_gateways": ["default"]}},
    "tenant ready": {"state": "READY", "condition": ("CONDITION_STATUS_TRUE", "Ready", "default networking is ready"),
                     "events": ["DefaultNetworkingCreated", "DefaultNetworkingReady"]},
    "default networking": {
        "states": {"virtual_networks": "READY", "subnets": "READY", "security_groups": "READY",
                   "external_ips": "ALLOCATED", "nat_gateways": "READY"},
        "labels": dict.fromkeys(_DEFAULTS, DEFAULT_LABEL),
        "subnet": ("10.0.1.0/24", "10.0.1.1", "10.0.1.240-10.0.1.254", 238),
        "security group": (1, 1),
        "nat": ("203.0.113.1", True,
                {"virtual_network": "<VirtualNetwork default>", "external_ip": "<ExternalIP default-nat>"}),
    },
    # Tenants see the class without its managers (§2), so both topologies show the same class.
    "network classes (tenant view)": [{
        "name": "default",
        "fields": ["capabilities", "description", "id", "is_default", "metadata", "spec", "status", "title"],
        "is_default": True, "capabilities": {"supports_ipv4": True, "supports_ipv6": True, "supports_dual_stack": True},
        "state": "READY"}],
    "virtual network": {"response": "OK", "state": "READY"},
    "subnet web": {"response": "OK", "state": "READY", "layout": ("10.1.0.1", "10.1.1.240-10.1.1.254", 494)},
    "subnet overlapping web": {"response": refused(
        "FAILED_PRECONDITION", "subnet CIDR 10.1.1.0/24 overlaps Subnet 'web' (10.1.0.0/23) in VirtualNetwork 'app'")},
    "subnet db": {"response": "OK", "state": "READY", "layout": ("10.1.2.1", "10.1.2.240-10.1.2.254", 238)},
    "security group": {"response": "OK", "state": "READY"},
    "security group rules changed": {"response": "OK", "state on update": "PENDING", "state": "READY", "ingress rules": 3},
    "external ip nat": {"response": "OK", "state": "ALLOCATED", "address": "203.0.113.2"},
    "nat gateway": {"response": "OK", "state": "READY"},
    "nat gateway's external ip": {"state": "ALLOCATED", "attached": True},
    "external ip spare": {"response": "OK", "state": "ALLOCATED", "address": "203.0.113.3"},
    "second nat gateway": {"response": refused("ALREADY_EXISTS", "VirtualNetwork 'app' already has NATGateway 'app'")},
    "bare-metal server create": {"response": "OK", "state": "PROVISIONING", "network_attachments": [
        {"subnet": DEFAULT_SUBNET, "security_groups": [DEFAULT_GROUP], "interface": "ens1f0", "primary": True}]},
    "bare-metal server running": {
        "state": "RUNNING",
        "statuses": [{"interface": "ens1f0", "subnet": DEFAULT_SUBNET, "ip_address": "10.0.1.2", "primary": True}],
        "auto external ip": (f"auto-{SERVER}", "ALLOCATED", "203.0.113.4", True),
        "auto attachment": (f"auto-{SERVER}", "READY", "10.0.1.2", "203.0.113.4"),
        "events": ["AutoExternalIPCreated", "NetworkAttachmentsPopulated", "NetworkingConfigured"],
    },
    "reachability": {
        "internet -> server tcp 22": (200, False, "SG_INGRESS_DENIED", "", ""),  # the default SG: 22 from 10.0.0.0/16
        "server -> internet tcp 443": (200, True, "OK", "203.0.113.1", "internet"),  # SNAT to the default gateway's EIP
    },
    VM_CREATE: {"response": "OK", "state": "RUNNING", "address": "10.0.1.3", "delete": ARCHIVED,
                "attachments": [{"subnet": DEFAULT_SUBNET, "security_groups": [DEFAULT_GROUP], "primary": True}],
                "left": {"compute_instances": NOTHING}, "any events": True},
    CLUSTER_CREATE: {"response": "OK", "state": "READY", "api endpoint": "10.1.1.240", "ingress endpoint": "10.1.1.241",
                     "delete": ARCHIVED, "left": {"clusters": NOTHING}, "any events": True},
    "delete gates": {
        "subnet default (server on it)": refused(
            "FAILED_PRECONDITION", "cannot delete Subnet 'default': 1 BareMetalInstance(s) still reference it: db"),
        "security group default (server uses it)": refused(
            "FAILED_PRECONDITION", "cannot delete SecurityGroup 'default': 1 BareMetalInstance(s) still reference it: db"),
        "virtual network app (subnets, group, gateway)": refused(
            "FAILED_PRECONDITION", "cannot delete VirtualNetwork 'app': 2 Subnet(s) still reference it: web, db; "
                                   "and 1 SecurityGroup(s): web; and 1 NATGateway(s): app"),
        "external ip nat (gateway uses it)": refused(
            "FAILED_PRECONDITION", "cannot delete ExternalIP 'nat': 1 NATGateway(s) still reference it: app"),
        "auto external ip (attachment uses it)": refused(
            "FAILED_PRECONDITION",
            f"cannot delete ExternalIP 'auto-{SERVER}': 1 ExternalIPAttachment(s) still reference it: auto-{SERVER}"),
    },
    "attachment of a consumed external ip": refused(
        "FAILED_PRECONDITION", "ExternalIP 'nat' is already used by NATGateway 'app'"),
    # Automatic external access goes with its server; manual EIPs stay (§10.1, §10.3).
    "bare-metal server delete": {"delete": ARCHIVED, "left": {
        "baremetal_instances": NOTHING, "external_ip_attachments": NOTHING,
        "external_ips": [("default-nat", "ALLOCATED"), ("nat", "ALLOCATED"), ("spare", "ALLOCATED")]}},
    "deletes": {"nat_gateways app": ARCHIVED, "external_ips nat": ARCHIVED, "external_ips spare": ARCHIVED,
                "security_groups web": ARCHIVED, "subnets db": ARCHIVED, "subnets web": ARCHIVED,
                "virtual_networks app": ARCHIVED},
    "what is left": {
        "objects": {"virtual_networks": [("default", "READY")], "subnets": [("default", "READY")],
                    "security_groups": [("default", "READY")], "external_ips": [("default-nat", "ALLOCATED")],
                    "nat_gateways": [("default", "READY")], "external_ip_attachments": NOTHING,
                    "baremetal_instances": NOTHING, "compute_instances": NOTHING, "clusters": NOTHING},
        "default subnet available addresses": 238,
        "pool public-v4": {"total": 254, "allocated": 1, "available": 253},
    },
}

#: Where the default class has no k8s manager, exactly these steps differ (§2): refused, nothing
#: stored, no lifecycle event.
REFUSED: Transcript = {
    VM_CREATE: {"response": refused("FAILED_PRECONDITION", f"ComputeInstances {NO_K8S}"),
                "left": {"compute_instances": NOTHING}, "any events": False},
    CLUSTER_CREATE: {"response": refused("FAILED_PRECONDITION", f"Clusters {NO_K8S}"),
                     "left": {"clusters": NOTHING}, "any events": False},
}


async def test_same_api_in_every_topology(db_url: str, second_db_url: str, tmp_path: Path) -> None:
    with_k8s = await transcript_of(tmp_path / "with-k8s", db_url, has_k8s_manager=True)
    bare_metal = await transcript_of(tmp_path / "bare-metal", second_db_url, has_k8s_manager=False)

    assert list(bare_metal) == list(with_k8s)
    differing = {step: (with_k8s[step], bare_metal[step]) for step in with_k8s if with_k8s[step] != bare_metal[step]}
    assert list(differing) == [VM_CREATE, CLUSTER_CREATE], differing
    assert {step: bare_metal[step] for step in differing} == REFUSED
    assert with_k8s["delete gates"] == EXPECTED["delete gates"], with_k8s["delete gates"]
    assert with_k8s == EXPECTED
