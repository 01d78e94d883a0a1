"""The cluster views of the CLI (cluster-status.md §14): ``get clusters``, ``describe cluster``,
``wait`` and ``events``, against a real server on SQLite and on PostgreSQL.

The server runs without reconcilers, so each test sets a cluster's status itself through the
service layer, as the cluster reconciler would (``write_status`` in a store transaction), and
records lifecycle events with ``osac.store.lifecycle.record``. Times are fixed: objects carry
timestamps relative to ``NOW`` and the CLI measures ages from ``OSAC_NOW``, so the describe view
is compared with a golden file byte for byte. ``OSAC_UPDATE_GOLDEN=1`` rewrites the golden files
from the current output (review the diff before committing it).
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import re
import uuid
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from google.protobuf import json_format
from sqlalchemy import select
from typer.testing import CliRunner

from osac.clock import FakeClock
from osac.model import registry
from osac.server.app import Application
from osac.server.settings import DEFAULT_CONFIG, Settings, merge_config
from osac.services.core.generic import RECONCILER_PATHS
from osac.store import lifecycle
from osac.store.objects import Tx
from osac.store.tables import LIVE

from ..conftest import PG_ADMIN_DSN, PG_AVAILABLE
from .conftest import BackgroundServer, Osac, mark_ready, table

GOLDEN = Path(__file__).parent / "golden"
CLUSTER = registry.get("cluster")
#: The moment every view in these tests is rendered at (``OSAC_NOW``).
NOW = datetime(2026, 3, 4, 10, 43, 11, tzinfo=UTC)
AT_NOW = {"OSAC_NOW": "2026-03-04T10:43:11Z"}
WRITE_TIMEOUT = 30.0


def ago(minutes: float) -> str:
    return (NOW - timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")


# -- the server ------------------------------------------------------------------------------------


class EngineServer(BackgroundServer):
    """The CLI tests' background server, on a database of the given URL (None: SQLite in the
    data directory), without reconcilers."""

    def __init__(self, data_dir: Path, db_url: str | None) -> None:
        super().__init__(data_dir)
        self.application = Application(
            Settings(
                data_dir=data_dir,
                db_url=db_url,
                grpc_address="127.0.0.1:0",
                http_address="127.0.0.1:0",
                run_controllers=False,
                config=merge_config(DEFAULT_CONFIG, {}),
                # the scenarios' events are dated around NOW, months ago: keep them however long
                # the module runs (the maintenance loop prunes every minute)
                lifecycle_retention=timedelta(days=3650),
            )
        )

    def run(self, coroutine: Coroutine[Any, Any, Any]) -> Any:
        """Run ``coroutine`` on the server's event loop and return its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(WRITE_TIMEOUT)

    def later(self, delay: float, coroutine: Coroutine[Any, Any, Any]) -> None:
        """Run ``coroutine`` on the server's loop after ``delay`` seconds, without waiting."""

        async def delayed() -> None:
            await asyncio.sleep(delay)
            await coroutine

        asyncio.run_coroutine_threadsafe(delayed(), self.loop)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def engine_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[EngineServer]:
    db_url = None
    name = f"osac_t_{uuid.uuid4().hex[:12]}"
    if request.param == "postgresql":
        if not PG_AVAILABLE:
            pytest.skip("PostgreSQL not reachable")
        with psycopg.connect(PG_ADMIN_DSN, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        db_url = f"{PG_ADMIN_DSN.rsplit('/', 1)[0]}/{name}".replace("postgresql://", "postgresql+psycopg://")
    running = EngineServer(tmp_path_factory.mktemp(f"osac-{request.param}"), db_url)
    running.start()
    try:
        yield running
    finally:
        running.stop()
        if db_url is not None:
            with psycopg.connect(PG_ADMIN_DSN, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@dataclass
class World:
    """The server with tenants ``acme`` and ``beta`` (default networking each), host type
    ``bm-h100`` besides the catalogue's, and the ids clusters refer to."""

    server: EngineServer
    admin: Osac
    directory: Path
    ids: dict[str, str] = field(default_factory=dict)

    def user(self, tenant: str, role: str = "tenant-admin") -> Osac:
        person = Osac(self.server, self.directory / f"{tenant}-{role}-{uuid.uuid4().hex[:6]}.yaml", CliRunner())
        person.login(role, tenant)
        return person


async def _id_of(server: EngineServer, kind_name: str, name: str, tenant: str) -> str:
    table_ = LIVE[kind_name]
    async with server.application.store.read() as tx:
        row = (
            await tx.conn.execute(select(table_.c.id).where(table_.c.name == name, table_.c.tenant == tenant))
        ).first()
    assert row is not None, f"{kind_name} {tenant}/{name} not found"
    return str(row[0])


@pytest.fixture(scope="module")
def world(engine_server: EngineServer, tmp_path_factory: pytest.TempPathFactory) -> World:
    directory = tmp_path_factory.mktemp("cluster-views")
    admin = Osac(engine_server, directory / "admin.yaml", CliRunner())
    admin.login("provider-admin", user="root")
    mark_ready(admin, "network_class", "default")
    mark_ready(admin, "external_ip_pool", "public-v4")
    for tenant in ("acme", "beta"):
        admin.ok("create", "tenant", "--name", tenant)
    admin.ok("create", "host_type", "--name", "bm-h100", "--set", "title=GPU server")
    found = World(engine_server, admin, directory)
    run = engine_server.run
    found.ids["template"] = run(_id_of(engine_server, "cluster_template", "ocp-small", "shared"))
    for host_type in ("bm-standard", "bm-h100"):
        found.ids[host_type] = run(_id_of(engine_server, "host_type", host_type, "shared"))
    for tenant in ("acme", "beta"):
        found.ids[f"{tenant}/subnet"] = run(_id_of(engine_server, "subnet", "default", tenant))
        found.ids[f"{tenant}/sg"] = run(_id_of(engine_server, "security_group", "default", tenant))
    return found


# -- clusters written as the reconciler would write them -------------------------------------------


@dataclass(frozen=True)
class Event:
    minutes_ago: float
    type: int
    reason: str
    message: str


def cluster_spec(world: World, tenant: str, node_sets: dict[str, tuple[str, int]], catalog_item: str = "") -> dict[str, Any]:
    """A realistic spec: the template, node sets by key (host type name, size), the tenant's
    default subnet and security group."""
    return {
        "template": world.ids["template"],
        "node_sets": {
            key: {"host_type": world.ids[host_type], "size": size, "fabric_interface": "ens1f0"}
            for key, (host_type, size) in node_sets.items()
        },
        "release_image": "quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64",
        "network": {"pod_cidr": "10.128.0.0/14", "service_cidr": "172.30.0.0/16"},
        "catalog_item": catalog_item,
        "network_attachment": {
            "subnet": world.ids[f"{tenant}/subnet"],
            "security_groups": [world.ids[f"{tenant}/sg"]],
        },
    }


def condition(type_: str | int, status: str, reason: str, minutes_ago: float, message: str = "") -> dict[str, Any]:
    return {
        "type": f"CLUSTER_CONDITION_TYPE_{type_}" if isinstance(type_, str) else type_,
        "status": f"CONDITION_STATUS_{status}",
        "reason": reason,
        "message": message,
        "last_transition_time": ago(minutes_ago),
    }


def node_set(host_type_id: str, size: int, desired: int, current: int, ready: int, state: str | int) -> dict[str, Any]:
    return {
        "host_type": host_type_id,
        "size": size,
        "desired_replicas": desired,
        "current_replicas": current,
        "ready_replicas": ready,
        "state": f"CLUSTER_NODE_SET_STATE_{state}" if isinstance(state, str) else state,
        "fabric_interface": "ens1f0",
    }


async def _insert(world: World, object_id: str, name: str, tenant: str, spec: dict[str, Any],
                  status: dict[str, Any], created_minutes_ago: float, events: list[Event]) -> None:
    """Insert the cluster as created (state PROGRESSING), then write ``status`` over it with
    the service layer's status write, and record ``events`` at their times."""
    services = world.server.application.services
    cls = CLUSTER.private_class()
    created = json_format.ParseDict({
        "id": object_id,
        "metadata": {"name": name, "tenant": tenant, "creator": "alice", "version": 1,
                     "creation_timestamp": ago(created_minutes_ago)},
        "spec": spec,
        "status": {"state": "CLUSTER_STATE_PROGRESSING", "state_transition_time": ago(created_minutes_ago)},
    }, cls())
    async with services.store.write() as tx:
        await tx.insert(CLUSTER, created)
        full = copy.deepcopy(created)
        full.status.Clear()  # type: ignore[attr-defined]
        json_format.ParseDict(status, full.status)  # type: ignore[attr-defined]
        written = await services["cluster"].write_status(tx, full, created)
        for event in events:
            at = Tx(tx.conn, FakeClock(NOW - timedelta(minutes=event.minutes_ago)))
            await lifecycle.record(at, CLUSTER, written, event.type, event.reason, event.message)


def insert_cluster(world: World, object_id: str, name: str, tenant: str, spec: dict[str, Any],
                   status: dict[str, Any], created_minutes_ago: float = 41, events: list[Event] | None = None) -> None:
    world.server.run(_insert(world, object_id, name, tenant, spec, status, created_minutes_ago, events or []))


async def write_status(world: World, object_id: str, status: dict[str, Any], *, deleted: bool = False) -> None:
    """The reconciler's status write over the stored cluster; ``deleted``: with the deletion
    requested and no finalizer left, which archives it (the DELETED watch event)."""
    services = world.server.application.services
    async with services.store.write() as tx:
        stored = await tx.get(CLUSTER, object_id)
        assert stored is not None
        changed = copy.deepcopy(stored)
        changed.status.Clear()  # type: ignore[attr-defined]
        json_format.ParseDict(status, changed.status)  # type: ignore[attr-defined]
        if deleted:
            changed.metadata.deletion_timestamp.FromDatetime(datetime.now(UTC))  # type: ignore[attr-defined]
        # a deletion is the service's to request; here the test plays both
        await services["cluster"].write_status(tx, changed, stored, (*RECONCILER_PATHS, "metadata.deletion_timestamp"))


def new_id() -> str:
    return str(uuid.uuid4())


# -- the scenarios ---------------------------------------------------------------------------------

GPU_LAB_ID = "0192f3a4-7c1e-7b2a-9d51-3f0e8c6a2c10"


def gpu_lab_status(world: World) -> dict[str, Any]:
    """cluster-status.md §20 scenario 6 as §14 shows it: WorkersJoining for 23m, stalled, node
    set gpu degraded (2 of 3 machines), workers READY, the control plane available."""
    return {
        "state": "CLUSTER_STATE_PROGRESSING",
        "state_transition_time": ago(41),
        "stage": "WorkersJoining",
        "stage_entered_at": ago(23),
        "conditions": [
            condition("PROGRESSING", "TRUE", "Stalled", 41, "WorkersJoining for 23m (threshold 20m): gpu 2/3"),
            condition("AVAILABLE", "FALSE", "Degraded", 41, "Node set gpu is degraded"),
            condition("FAILED", "FALSE", "AsExpected", 41),
            condition("DEGRADED", "TRUE", "NodeSetDegraded:gpu", 9, "gpu: Machine m-3: InstanceProvisionFailed"),
            condition("CONTROL_PLANE_AVAILABLE", "TRUE", "Available", 23, "API server reachable at 10.0.15.241:6443"),
            condition("WORKERS_READY", "FALSE", "WorkersDegraded", 41, "Node set gpu degraded (2/3 available)"),
        ],
        "node_sets": {
            "gpu": node_set(world.ids["bm-h100"], 3, 3, 2, 0, "DEGRADED"),
            "workers": node_set(world.ids["bm-standard"], 3, 3, 3, 3, "READY"),
        },
        "api_url": "https://10.0.15.241:6443",
        "api_endpoint": "10.0.15.241",
        "ingress_endpoint": "10.0.15.242",
    }


GPU_LAB_EVENTS = [
    Event(41, lifecycle.NORMAL, "NetworkAttachmentsPopulated", "subnet default, security groups default"),
    Event(41, lifecycle.NORMAL, "StageChanged", '"" → PreparingInfrastructure'),
    Event(40, lifecycle.NORMAL, "AgentsSelected", "3 bm-h100 and 3 bm-standard hosts selected"),
    Event(38, lifecycle.NORMAL, "NetworkingConfigured", "node ports attached to subnet default"),
    Event(31, lifecycle.NORMAL, "StageChanged", "PreparingInfrastructure → ControlPlaneStarting"),
    Event(23, lifecycle.NORMAL, "StageChanged", "ControlPlaneStarting → WorkersJoining"),
    Event(23, lifecycle.NORMAL, "ControlPlaneAvailable", "API server reachable at 10.0.15.241:6443"),
    Event(23, lifecycle.NORMAL, "VIPsDiscovered", "api 10.0.15.241, ingress 10.0.15.242"),
    Event(14, lifecycle.WARNING, "Degraded", "NodeSetDegraded:gpu"),
    Event(12, lifecycle.NORMAL, "DegradationCleared", "gpu: machines recovered"),
    Event(9, lifecycle.WARNING, "Degraded", "NodeSetDegraded:gpu"),
    Event(3, lifecycle.WARNING, "Stalled", "WorkersJoining exceeded 20m"),
]


@pytest.fixture(scope="module")
def gpu_lab(world: World) -> str:
    spec = cluster_spec(world, "acme", {"workers": ("bm-standard", 3), "gpu": ("bm-h100", 3)}, "ocp-gpu")
    insert_cluster(world, GPU_LAB_ID, "gpu-lab", "acme", spec, gpu_lab_status(world), events=GPU_LAB_EVENTS)
    return "gpu-lab"


def matches_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("OSAC_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text(), f"output differs from {path}:\n{text}"


def test_describe_cluster_prints_the_section_14_layout(world: World, gpu_lab: str) -> None:
    alice = world.user("acme")

    shown = alice.ok("describe", "cluster", gpu_lab, env=AT_NOW)

    matches_golden("describe_cluster_gpu_lab.txt", shown)


def test_describe_by_id_equals_describe_by_name(world: World, gpu_lab: str) -> None:
    alice = world.user("acme")

    assert alice.ok("describe", "cluster", GPU_LAB_ID, env=AT_NOW) == alice.ok("describe", "cluster", gpu_lab, env=AT_NOW)


def test_describe_cluster_values_equal_the_api(world: World, gpu_lab: str) -> None:
    """Every status value the view prints is the API's, not recomputed (§20 scenario 14)."""
    alice = world.user("acme")

    api = json.loads(alice.ok("get", "cluster", gpu_lab, "-o", "json"))["status"]
    shown = alice.ok("describe", "cluster", gpu_lab, env=AT_NOW)

    assert f"API URL:          {api['api_url']}\n" in shown
    assert f"API Endpoint:     {api['api_endpoint']}\n" in shown
    assert f"Ingress Endpoint: {api['ingress_endpoint']}\n" in shown
    for entry in api["conditions"]:
        assert entry["reason"] in shown and entry.get("message", "") in shown
    assert not re.search(r"^\s*(status|spec|conditions):", shown, re.MULTILINE)  # no YAML
    assert "{" not in shown  # no JSON


def test_describe_shows_only_the_ten_newest_events_newest_first(world: World, gpu_lab: str) -> None:
    alice = world.user("acme")

    shown = alice.ok("describe", "cluster", gpu_lab, env=AT_NOW)

    events = shown.split("\nEVENTS\n", 1)[1].splitlines()[1:]
    assert len(events) == 10
    assert events[0].split()[:3] == ["3m", "Warning", "Stalled"]
    assert events[-1].split()[:3] == ["40m", "Normal", "AgentsSelected"]
    assert "NetworkAttachmentsPopulated" not in shown
    assert '"" → PreparingInfrastructure' not in shown


def test_describe_of_another_tenants_cluster_is_not_found(world: World, gpu_lab: str) -> None:
    eve = world.user("beta")

    result = eve("describe", "cluster", gpu_lab)

    assert result.exit_code == 1
    assert result.stderr == "Error: NOT_FOUND: Cluster 'gpu-lab' not found\n"


# -- get clusters ----------------------------------------------------------------------------------


def _list_status(state: str, stage: str, progressing: tuple[str, str], available: tuple[str, str],
                 api_url: str = "") -> dict[str, Any]:
    return {
        "state": f"CLUSTER_STATE_{state}",
        "state_transition_time": ago(30),
        "stage": stage,
        "stage_entered_at": ago(25),
        "conditions": [
            condition("PROGRESSING", progressing[0], progressing[1], 30),
            condition("AVAILABLE", available[0], available[1], 30),
        ],
        "api_url": api_url,
    }


LIST_SCENARIO = [
    ("prod-east", _list_status("READY", "", ("FALSE", "AsExpected"), ("TRUE", "Available"),
                               "https://10.0.1.240:6443")),
    ("gpu-lab", _list_status("PROGRESSING", "WorkersJoining", ("TRUE", "Stalled"), ("FALSE", "Degraded"),
                             "https://10.0.2.240:6443")),
    ("ci-7", _list_status("READY", "Scaling", ("TRUE", "Scaling"), ("FALSE", "Scaling"), "https://10.0.3.240:6443")),
    ("old-test", _list_status("DELETING", "DestroyingCloudResources", ("TRUE", "DestroyingCloudResources"),
                              ("FALSE", "Deleting"), "https://10.0.4.240:6443")),
    ("edge-2", _list_status("PROGRESSING", "ControlPlaneStarting", ("TRUE", "StageUnknown"),
                            ("FALSE", "StageUnknown"))),
]


@pytest.fixture(scope="module")
def listed(world: World) -> Osac:
    """The five clusters of the §14 ``get`` example, in tenant beta; its tenant admin."""
    for name, status in LIST_SCENARIO:
        insert_cluster(world, new_id(), name, "beta", cluster_spec(world, "beta", {"workers": ("bm-standard", 3)}),
                       status)
    return world.user("beta")


def test_get_clusters_shows_stage_and_health_after_state(listed: Osac) -> None:
    output = listed.ok("get", "clusters")

    assert re.split(r"\s{3,}", output.splitlines()[0].strip()) == [
        "NAME", "TENANT", "TEMPLATE", "STATE", "STAGE", "HEALTH", "API URL", "AGE", "ID",
    ]
    rows = {row["NAME"]: (row["STATE"], row["STAGE"], row["HEALTH"], row["API URL"]) for row in table(output)}
    assert rows == {
        "prod-east": ("READY", "-", "Healthy", "https://10.0.1.240:6443"),
        "gpu-lab": ("PROGRESSING", "Stalled (WorkersJoining)", "Degraded", "https://10.0.2.240:6443"),
        "ci-7": ("READY", "Scaling", "Scaling", "https://10.0.3.240:6443"),
        "old-test": ("DELETING", "DestroyingCloudResources", "Deleting", "https://10.0.4.240:6443"),
        "edge-2": ("PROGRESSING", "StageUnknown", "Unknown", "-"),
    }
    assert {row["TEMPLATE"] for row in table(output)} == {"ocp-small"}


def test_get_clusters_watch_prints_changed_rows_with_the_cells(world: World) -> None:
    object_id = new_id()
    scaling = _list_status("READY", "Scaling", ("TRUE", "Scaling"), ("FALSE", "Scaling"), "https://10.0.5.240:6443")
    insert_cluster(world, object_id, "scaler", "acme", cluster_spec(world, "acme", {"workers": ("bm-standard", 3)}),
                   scaling)
    done = _list_status("READY", "", ("FALSE", "AsExpected"), ("TRUE", "Available"), "https://10.0.5.240:6443")
    alice = world.user("acme")
    world.server.later(1.0, write_status(world, object_id, done))

    output = alice.ok("get", "cluster", "scaler", "-w", "--max-events", "1")

    header, first, change = output.splitlines()
    assert first.split()[:6] == ["scaler", "acme", "ocp-small", "READY", "Scaling", "Scaling"]
    assert change.split()[:6] == ["scaler", "acme", "ocp-small", "READY", "-", "Healthy"]
    assert len(change) == len(first)


def test_get_clusters_watch_from_an_empty_list_prints_the_header_once_and_only_displayed_changes(world: World) -> None:
    """Issue 17 item 7: the header comes once, before the first row; a name wider than the
    NAME column keeps the columns aligned; a write that changes no displayed cell prints nothing."""
    object_id = new_id()
    name = "late-" + "w" * 40
    spec = cluster_spec(world, "acme", {"workers": ("bm-standard", 3)})
    scaling = _list_status("READY", "Scaling", ("TRUE", "Scaling"), ("FALSE", "Scaling"), "https://10.0.6.240:6443")
    quiet = copy.deepcopy(scaling)
    quiet["conditions"][0]["message"] = "a message no column shows"
    done = _list_status("READY", "", ("FALSE", "AsExpected"), ("TRUE", "Available"), "https://10.0.6.240:6443")

    async def story() -> None:
        await _insert(world, object_id, name, "acme", spec, scaling, 41, [])
        await write_status(world, object_id, quiet)
        await write_status(world, object_id, done)

    alice = world.user("acme")
    world.server.later(1.0, story())

    result = alice("get", "cluster", "--filter", f"this.metadata.name == '{name}'", "-w", "--max-events", "4")

    assert result.exit_code == 0, result.output
    assert result.stderr == "No clusters found.\n"
    header, created, scaled, ready = result.stdout.splitlines()  # the quiet write printed nothing
    assert header.split()[:4] == ["NAME", "TENANT", "TEMPLATE", "STATE"]
    assert [line.split()[3:5] for line in (created, scaled, ready)] == [
        ["PROGRESSING", "-"], ["READY", "Scaling"], ["READY", "-"]]
    for line in (created, scaled, ready):
        assert line.split()[0] == name
        assert line.index("acme") == header.index("TENANT") and line.index("ocp-small") == header.index("TEMPLATE")


# -- version skew ----------------------------------------------------------------------------------


def test_unknown_enum_numbers_print_raw(world: World) -> None:
    """§20 scenario 20: condition type 7 and node-set state 9 in storage."""
    status = gpu_lab_status(world)
    status["conditions"].append(condition(7, "TRUE", "FromTheFuture", 5, "a condition this CLI does not know"))
    status["node_sets"]["gpu"]["state"] = 9
    spec = cluster_spec(world, "acme", {"workers": ("bm-standard", 3), "gpu": ("bm-h100", 3)})
    insert_cluster(world, new_id(), "skewed", "acme", spec, status)
    alice = world.user("acme")

    shown = alice.ok("describe", "cluster", "skewed", env=AT_NOW)
    listing = alice.ok("get", "cluster", "skewed")

    conditions = shown.split("\nCONDITIONS\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert conditions[-1].split() == ["7", "True", "FromTheFuture", "5m", "a", "condition", "this", "CLI", "does",
                                      "not", "know"]
    node_sets = {line.split()[0]: line.split() for line in shown.split("\n\nNODE SET", 1)[1].splitlines()[1:3]}
    assert node_sets["gpu"][6] == "9"
    assert node_sets["workers"][6] == "READY"
    assert table(listing)[0]["STAGE"] == "Stalled (WorkersJoining)"


# -- describe -w -----------------------------------------------------------------------------------


def test_describe_watch_renders_again_on_each_change(world: World) -> None:
    object_id = new_id()
    spec = cluster_spec(world, "acme", {"workers": ("bm-standard", 3)})
    status = _list_status("PROGRESSING", "ControlPlaneStarting", ("TRUE", "ControlPlaneStarting"),
                          ("FALSE", "Provisioning"))
    insert_cluster(world, object_id, "live", "acme", spec, status)
    later = _list_status("PROGRESSING", "WorkersJoining", ("TRUE", "WorkersJoining"), ("FALSE", "Provisioning"))
    later["stage_entered_at"] = ago(1)
    alice = world.user("acme")
    world.server.later(1.5, write_status(world, object_id, later))

    output = alice.ok("describe", "cluster", "live", "-w", "--max-events", "1", env=AT_NOW)

    stages = [line for line in output.splitlines() if line.startswith("Stage:")]
    assert stages == [
        "Stage:            ControlPlaneStarting for 25m (threshold 30m)",
        "Stage:            WorkersJoining for 1m (threshold 20m)",
    ]


def test_describe_watch_ends_when_the_cluster_is_deleted(world: World) -> None:
    object_id = new_id()
    status = _list_status("DELETING", "DestroyingControlPlane", ("TRUE", "DestroyingControlPlane"),
                          ("FALSE", "Deleting"))
    insert_cluster(world, object_id, "going", "acme", cluster_spec(world, "acme", {"workers": ("bm-standard", 3)}),
                   status)
    alice = world.user("acme")
    world.server.later(1.0, write_status(world, object_id, status, deleted=True))

    output = alice.ok("describe", "cluster", "going", "-w", env=AT_NOW)

    assert output.splitlines()[-1] == "Cluster 'going' deleted"


# -- wait ------------------------------------------------------------------------------------------


def _joining(current: int, *, state: str = "PROGRESSING") -> dict[str, Any]:
    status = _list_status(state, "WorkersJoining" if state == "PROGRESSING" else "",
                          ("TRUE", "WorkersJoining") if state == "PROGRESSING" else ("FALSE", "AsExpected"),
                          ("FALSE", "Provisioning"))
    status["node_sets"] = {"workers": {"size": 3, "desired_replicas": 3, "current_replicas": current,
                                       "state": "CLUSTER_NODE_SET_STATE_PROVISIONING"}}
    return status


def test_wait_for_ready_follows_progress_until_the_cluster_is_ready(world: World) -> None:
    object_id = new_id()
    insert_cluster(world, object_id, "waited", "acme", cluster_spec(world, "acme", {"workers": ("bm-standard", 3)}),
                   _joining(1))

    async def progress_then_ready() -> None:
        await write_status(world, object_id, _joining(2))
        await asyncio.sleep(0.5)
        ready = _joining(3, state="READY")
        ready["conditions"][1] = condition("AVAILABLE", "FALSE", "Degraded", 0)  # health does not matter
        await write_status(world, object_id, ready)

    alice = world.user("acme")
    world.server.later(1.5, progress_then_ready())

    result = alice("wait", "cluster", "waited", "--for", "ready", "--timeout", "30s")

    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "PROGRESSING  WorkersJoining  workers 1/3",
        "PROGRESSING  WorkersJoining  workers 2/3",
        "Cluster 'waited' is READY",
    ]


def test_wait_for_ready_times_out_on_a_cluster_that_does_not_progress(world: World) -> None:
    insert_cluster(world, new_id(), "stuck", "acme", cluster_spec(world, "acme", {"workers": ("bm-standard", 3)}),
                   _joining(1))
    alice = world.user("acme")

    result = alice("wait", "cluster", "stuck", "--for", "ready", "--timeout", "2s")

    assert result.exit_code == 1
    assert result.stdout == "PROGRESSING  WorkersJoining  workers 1/3\n"
    assert result.stderr == (
        "Error: timed out after 2s waiting for Cluster 'stuck' to be READY; "
        "now PROGRESSING  WorkersJoining  workers 1/3\n"
    )


def test_wait_for_ready_fails_at_once_on_a_failed_cluster(world: World) -> None:
    status = _joining(0)
    status["state"] = "CLUSTER_STATE_FAILED"
    status["conditions"].append(condition("FAILED", "TRUE", "ProvisioningFailed", 2, "invalid release image"))
    insert_cluster(world, new_id(), "broken", "acme", cluster_spec(world, "acme", {"workers": ("bm-standard", 3)}),
                   status)
    alice = world.user("acme")

    result = alice("wait", "cluster", "broken", "--for", "ready", "--timeout", "30s")

    assert result.exit_code == 1
    assert result.stderr == "Error: Cluster 'broken' is FAILED: ProvisioningFailed: invalid release image\n"


def test_wait_for_deleted_ends_with_the_deleted_event(world: World) -> None:
    object_id = new_id()
    status = _list_status("DELETING", "DestroyingCloudResources", ("TRUE", "DestroyingCloudResources"),
                          ("FALSE", "Deleting"))
    insert_cluster(world, object_id, "leaving", "acme", cluster_spec(world, "acme", {"workers": ("bm-standard", 3)}),
                   status)
    alice = world.user("acme")
    world.server.later(1.0, write_status(world, object_id, status, deleted=True))

    result = alice("wait", "cluster", "leaving", "--for", "deleted", "--timeout", "30s")

    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "DELETING  DestroyingCloudResources  workers 0/3",
        "Cluster 'leaving' deleted",
    ]
    assert alice("wait", "cluster", "leaving", "--for", "deleted").stdout == "Cluster 'leaving' deleted (not found)\n"


# -- events ----------------------------------------------------------------------------------------


def test_events_of_one_object_newest_first(world: World, gpu_lab: str) -> None:
    alice = world.user("acme")

    output = alice.ok("events", "--object", "cluster/gpu-lab", "--limit", "3", env=AT_NOW)

    assert output.splitlines() == [
        "AGE   OBJECT            TYPE      REASON               MESSAGE",
        "3m    cluster/gpu-lab   Warning   Stalled              WorkersJoining exceeded 20m",
        "9m    cluster/gpu-lab   Warning   Degraded             NodeSetDegraded:gpu",
        "12m   cluster/gpu-lab   Normal    DegradationCleared   gpu: machines recovered",
    ]


def test_events_of_every_visible_object(world: World, gpu_lab: str) -> None:
    alice = world.user("acme")

    rows = table(alice.ok("events", "--limit", "1000"))

    objects = {row["OBJECT"] for row in rows}
    assert "cluster/gpu-lab" in objects
    assert "tenant/acme" in objects  # the tenant's DefaultNetworkingCreated
    assert all(not row["OBJECT"].endswith("/beta") for row in rows)


def test_events_of_a_deleted_object_by_its_name_are_those_of_the_newest_match(world: World) -> None:
    """An archived cluster cannot be read, yet its events are kept: ``--object cluster/NAME``
    selects the newest cluster of that name whose events exist, only within the caller's tenants."""
    status = _list_status("DELETING", "DestroyingControlPlane", ("TRUE", "DestroyingControlPlane"),
                          ("FALSE", "Deleting"))
    spec = cluster_spec(world, "acme", {"workers": ("bm-standard", 3)})
    older, newer = new_id(), new_id()
    for object_id, reason in ((older, "FirstLife"), (newer, "SecondLife")):
        insert_cluster(world, object_id, "bygone", "acme", spec, status,
                       events=[Event(5, lifecycle.NORMAL, reason, f"{reason} of bygone")])
        world.server.run(write_status(world, object_id, status, deleted=True))
    alice, bob = world.user("acme"), world.user("beta")
    assert alice("get", "cluster", "bygone").exit_code == 1  # archived: not readable any more

    rows = table(alice.ok("events", "--object", "cluster/bygone", "--limit", "1000"))
    by_id = table(alice.ok("events", "--object", f"cluster/{older}", "--limit", "1000"))
    stranger = bob("events", "--object", "cluster/bygone")

    assert [row["REASON"] for row in rows] == ["SecondLife"]
    assert {row["OBJECT"] for row in rows} == {f"cluster/{newer}"}
    assert [row["REASON"] for row in by_id] == ["FirstLife"]
    assert stranger.exit_code == 1
    assert stranger.stderr == "Error: NOT_FOUND: Cluster 'bygone' not found\n"


def test_events_of_a_deleted_object_of_another_kind_by_its_name(world: World) -> None:
    """The same for every kind ``osac events`` accepts, e.g. a security group."""
    vn_id = world.server.run(_id_of(world.server, "virtual_network", "default", "acme"))
    world.admin.ok("edit", "vn", vn_id, "--private", "--set", "status.state=READY")
    alice = world.user("acme")
    alice.ok("create", "sg", "short-lived", "--vn", "default")
    group = json.loads(alice.ok("get", "sg", "short-lived", "-o", "json"))
    kind = registry.get("security_group")

    async def note() -> None:
        async with world.server.application.services.store.write() as tx:
            stored = await tx.get(kind, group["id"])
            await lifecycle.record(tx, kind, stored, lifecycle.NORMAL, "Noted", "before the delete")

    world.server.run(note())
    alice.ok("delete", "sg", "short-lived")
    assert alice("get", "sg", "short-lived").exit_code == 1

    rows = table(alice.ok("events", "--object", "sg/short-lived"))

    assert [(row["OBJECT"], row["REASON"]) for row in rows] == [(f"security_group/{group['id']}", "Noted")]


def test_events_of_an_unknown_object_is_not_found(world: World) -> None:
    alice = world.user("acme")

    result = alice("events", "--object", "cluster/nope")
    malformed = alice("events", "--object", "gpu-lab")

    assert result.exit_code == 1
    assert result.stderr == "Error: NOT_FOUND: Cluster 'nope' not found\n"
    assert malformed.stderr == "Error: --object 'gpu-lab': expected KIND/NAME, e.g. cluster/gpu-lab\n"
