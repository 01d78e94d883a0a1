"""``osac debug cluster-status``: the cluster status derivation run offline on hub objects.

The inputs in ``debug_inputs/`` are shaped as ``kubectl get -o yaml`` prints a hub's HostedCluster
and NodePools. Every scenario checks the command against ``derive_cluster_status`` called directly
on the same objects, with the result written into a public ``ClusterStatus`` by
``apply_view_to_status``: the support engineer sees what the reconciler would write.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from google.protobuf import json_format
from google.protobuf.duration_pb2 import Duration
from typer.testing import CliRunner, Result

from osac.api.public.v1.cluster_type_pb2 import ClusterStatus
from osac.api.public.v1.lifecycle_event_type_pb2 import LifecycleEventType
from osac.cli.main import app
from osac.status.clusters.derivation import (
    ClusterContext,
    ClusterDerivation,
    NodeSetSpec,
    StallThresholds,
    apply_view_to_status,
    derive_cluster_status,
    view_from_status,
)

INPUTS = Path(__file__).parent / "debug_inputs"
CLUSTER_ID = "0192f3a4-7c1e-7b2a-9d51-3f0e8c6a2c10"
CONSOLE_URL = "https://console-openshift-console.apps.c-3f0e8c6a2c10.example.net"
SPEC_NODE_SETS = {"workers": NodeSetSpec("bm-standard", 3), "gpu": NodeSetSpec("bm-h100", 2)}
SPEC_NODE_SET_OPTIONS = ("--node-set", "workers=bm-standard:3", "--node-set", "gpu=bm-h100:2")


def osac_debug(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(app, ["debug", "cluster-status", *args], input=input, catch_exceptions=False)


def succeeded(*args: str, input: str | None = None) -> Result:
    result = osac_debug(*args, input=input)
    assert result.exit_code == 0, f"exit {result.exit_code}: {result.stderr}"
    return result


# -- the expected answer, from the derivation itself ----------------------------------------------


def hub_objects(*names: str) -> list[dict[str, Any]]:
    """The objects of input files: documents, with Lists opened."""
    found: list[dict[str, Any]] = []
    for name in names:
        for document in yaml.safe_load_all((INPUTS / name).read_text()):
            found.extend(document["items"] if document.get("kind") == "List" else [document])
    return found


def of_kind(objects: Sequence[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [obj for obj in objects if obj["kind"] == kind]


def previous_status(name: str | None) -> ClusterStatus:
    message = ClusterStatus()
    if name is not None:
        data = json.loads((INPUTS / name).read_text())
        json_format.ParseDict(data.get("status", data), message, ignore_unknown_fields=True)
    return message


@dataclass(frozen=True)
class Scenario:
    """One run of the command, described once for the CLI and for the direct derivation."""

    hosted_cluster: str | None
    node_pools: tuple[str, ...] = ()
    now: datetime = datetime(2026, 3, 4, 10, 5, tzinfo=UTC)
    node_sets: Mapping[str, NodeSetSpec] | None = None
    previous: str | None = None
    is_deleting: bool = False
    is_unreadable: bool = False
    #: The spec the derivation gets when ``node_sets`` is None: what the command infers.
    inferred: Mapping[str, NodeSetSpec] = field(default_factory=dict)

    def args(self) -> list[str]:
        words = ["--now", self.now.isoformat().replace("+00:00", "Z")]
        if self.hosted_cluster is not None:
            words += ["--hosted-cluster", str(INPUTS / self.hosted_cluster)]
        for name in self.node_pools:
            words += ["--node-pool", str(INPUTS / name)]
        for key, spec in (self.node_sets or {}).items():
            words += ["--node-set", f"{key}={spec.host_type}:{spec.size}"]
        if self.previous is not None:
            words += ["--previous", str(INPUTS / self.previous)]
        if self.is_deleting:
            words.append("--deleting")
        if self.is_unreadable:
            words.append("--unreadable")
        return words

    def derive(self) -> tuple[ClusterDerivation, dict[str, Any]]:
        """The derivation as the reconciler runs it, and the public status it writes."""
        objects = hub_objects(*([self.hosted_cluster] if self.hosted_cluster else []), *self.node_pools)
        clusters = of_kind(objects, "HostedCluster")
        previous = previous_status(self.previous)
        context = ClusterContext(
            node_sets=self.node_sets if self.node_sets is not None else self.inferred,
            observation_readable=not self.is_unreadable,
            deletion_requested=self.is_deleting,
        )
        derivation = derive_cluster_status(
            clusters[0] if clusters else None, of_kind(objects, "NodePool"), view_from_status(previous),
            self.now, StallThresholds.DEFAULT, context,
        )
        status = ClusterStatus()
        status.CopyFrom(previous)
        apply_view_to_status(derivation.status, status)
        return derivation, json_format.MessageToDict(status, preserving_proto_field_name=True)


CONTROL_PLANE_STARTING = Scenario(
    "hc_control_plane_starting.yaml", ("np_workers_pending.yaml",),
    inferred={"workers": NodeSetSpec("unknown", 3)},
)
WORKERS_JOINING = Scenario(
    "hc_workers_joining.yaml", ("np_joining.yaml",), now=datetime(2026, 3, 4, 10, 14, tzinfo=UTC),
    node_sets=SPEC_NODE_SETS,
)
READY = Scenario(
    "hub_ready_list.yaml", now=datetime(2026, 3, 4, 10, 20, tzinfo=UTC), node_sets=SPEC_NODE_SETS,
)
UNREADABLE = Scenario(
    None, now=datetime(2026, 3, 4, 10, 31, tzinfo=UTC), previous="previous_workers_joining.json",
    is_unreadable=True,
    inferred={"gpu": NodeSetSpec("bm-h100", 2, "ens1f0"), "workers": NodeSetSpec("bm-standard", 3, "ens1f0")},
)
DELETING = Scenario(
    "hub_ready_list.yaml", now=datetime(2026, 3, 4, 10, 31, tzinfo=UTC), node_sets=SPEC_NODE_SETS,
    previous="previous_workers_joining.json", is_deleting=True,
)
NOT_FOUND = Scenario(None, ("np_workers_pending.yaml",), inferred={"workers": NodeSetSpec("unknown", 3)})
SCENARIOS = {
    "control-plane-starting": CONTROL_PLANE_STARTING,
    "workers-joining": WORKERS_JOINING,
    "ready-from-list": READY,
    "unreadable": UNREADABLE,
    "deleting": DELETING,
    "hosted-cluster-not-found": NOT_FOUND,
}


def condition(status: Mapping[str, Any], short_type: str) -> dict[str, Any]:
    wanted = f"CLUSTER_CONDITION_TYPE_{short_type}"
    return next(entry for entry in status["conditions"] if entry["type"] == wanted)


def event_names(derivation: ClusterDerivation) -> list[dict[str, str]]:
    return [
        {"type": LifecycleEventType.Name(event.type), "reason": event.reason, "message": event.message}
        for event in derivation.events
    ]


# -- same answer as the reconciler -----------------------------------------------------------------


@pytest.mark.parametrize("scenario", SCENARIOS.values(), ids=SCENARIOS.keys())
def test_output_is_the_derivation_of_the_same_inputs(scenario: Scenario) -> None:
    _, expected = scenario.derive()
    result = succeeded(*scenario.args())
    assert json.loads(result.stdout) == expected


@pytest.mark.parametrize("scenario", SCENARIOS.values(), ids=SCENARIOS.keys())
def test_events_option_wraps_status_events_and_requeue(scenario: Scenario) -> None:
    derivation, expected = scenario.derive()
    result = succeeded(*scenario.args(), "--events")
    report = json.loads(result.stdout)
    assert report["status"] == expected
    assert [{"type": e["type"], "reason": e["reason"], "message": e.get("message", "")}
            for e in report["events"]] == event_names(derivation)
    requeue = None
    if derivation.requeue_after is not None:
        requeue = Duration()
        requeue.FromTimedelta(derivation.requeue_after)
    assert report["requeue_after"] == (None if requeue is None else requeue.ToJsonString())
    assert report["teardown_complete"] is derivation.teardown_complete
    assert report["unattributed_node_pools"] == derivation.unattributed_node_pools
    assert "Lifecycle events" not in result.stderr


# -- what a support engineer reads -----------------------------------------------------------------


def test_control_plane_starting() -> None:
    result = succeeded(*CONTROL_PLANE_STARTING.args())
    status = json.loads(result.stdout)
    assert (status["state"], status["stage"]) == ("CLUSTER_STATE_PROGRESSING", "ControlPlaneStarting")
    progressing = condition(status, "PROGRESSING")
    assert (progressing["status"], progressing["reason"]) == ("CONDITION_STATUS_TRUE", "ControlPlaneStarting")
    assert "KubeAPIServerAvailable False (NotFound" in progressing["message"]
    assert status["node_sets"] == {"workers": {
        "host_type": "unknown", "size": 3, "desired_replicas": 3, "state": "CLUSTER_NODE_SET_STATE_PROVISIONING",
    }}
    assert "api_url" not in status
    assert "node sets from the NodePools' osac.openshift.io/node-set labels: workers=unknown:3" in result.stderr
    assert 'StageChanged   "" → ControlPlaneStarting' in result.stderr
    assert "Requeue after: 30m (a stall threshold lies ahead)" in result.stderr


def test_workers_joining_shows_progress_per_node_set() -> None:
    result = succeeded(*WORKERS_JOINING.args())
    status = json.loads(result.stdout)
    assert (status["state"], status["stage"]) == ("CLUSTER_STATE_PROGRESSING", "WorkersJoining")
    assert condition(status, "PROGRESSING")["message"] == "Workers joining: 2 of 5 nodes (gpu 0/2, workers 2/3)"
    assert condition(status, "CONTROL_PLANE_AVAILABLE")["status"] == "CONDITION_STATUS_TRUE"
    assert status["api_url"] == "https://10.0.2.240:6443"
    workers, gpu = status["node_sets"]["workers"], status["node_sets"]["gpu"]
    assert (workers["host_type"], workers["desired_replicas"], workers["current_replicas"]) == ("bm-standard", 3, 2)
    assert (gpu["host_type"], gpu["desired_replicas"], gpu.get("current_replicas", 0)) == ("bm-h100", 2, 0)
    assert "Note:" not in result.stderr  # the spec was given: nothing inferred
    assert "Requeue after: 20m" in result.stderr


def test_ready_from_a_list_sets_the_console_url() -> None:
    result = succeeded(*READY.args())
    status = json.loads(result.stdout)
    assert status["state"] == "CLUSTER_STATE_READY"
    assert status["console_url"] == CONSOLE_URL
    assert condition(status, "AVAILABLE")["status"] == "CONDITION_STATUS_TRUE"
    assert {ns["state"] for ns in status["node_sets"].values()} == {"CLUSTER_NODE_SET_STATE_READY"}
    assert "ClusterReady" in result.stderr
    assert "Requeue after: - (no stall threshold ahead)" in result.stderr


def test_a_list_reads_like_separate_files(tmp_path: Path) -> None:
    """A ``kind: List`` mixing both kinds gives the same answer as one file per object."""
    objects = hub_objects("hub_ready_list.yaml")
    (tmp_path / "hc.yaml").write_text(yaml.safe_dump(of_kind(objects, "HostedCluster")[0]))
    (tmp_path / "pools.yaml").write_text(yaml.safe_dump_all(of_kind(objects, "NodePool")))
    separate = succeeded(
        "--hosted-cluster", str(tmp_path / "hc.yaml"), "--node-pool", str(tmp_path / "pools.yaml"),
        "--now", "2026-03-04T10:20:00Z", *SPEC_NODE_SET_OPTIONS,
    )
    assert separate.stdout == succeeded(*READY.args()).stdout


def test_unreadable_keeps_the_stage_of_the_previous_status() -> None:
    result = succeeded(*UNREADABLE.args())
    status = json.loads(result.stdout)
    assert (status["state"], status["stage"]) == ("CLUSTER_STATE_PROGRESSING", "WorkersJoining")
    assert status["stage_entered_at"] == "2026-03-04T10:14:00.418207Z"  # kept to the nanosecond
    progressing = condition(status, "PROGRESSING")
    assert progressing["reason"] == "StageUnknown"
    assert "last known stage: WorkersJoining" in progressing["message"]
    assert status["api_endpoint"] == "10.0.2.240"
    assert "node sets from the previous status: gpu=bm-h100:2, workers=bm-standard:3" in result.stderr
    assert "Warning   StageUnknown" in result.stderr


def test_deleting_starts_teardown() -> None:
    result = succeeded(*DELETING.args())
    status = json.loads(result.stdout)
    assert (status["state"], status["stage"]) == ("CLUSTER_STATE_DELETING", "DestroyingCloudResources")
    assert condition(status, "AVAILABLE")["reason"] == "Deleting"
    assert "Teardown complete" not in result.stderr  # the HostedCluster and NodePools are still there


def test_teardown_completes_when_the_hub_objects_are_gone(tmp_path: Path) -> None:
    """The HostedCluster not found (no ``--hosted-cluster``) and an empty NodePool List, as
    ``kubectl get nodepool -o yaml`` prints it when none is left."""
    deleting = tmp_path / "deleting.json"
    deleting.write_text(succeeded(*DELETING.args()).stdout)
    no_pools = tmp_path / "no_pools.yaml"
    no_pools.write_text('apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: ""\n')
    result = succeeded(
        "--previous", str(deleting), "--node-pool", str(no_pools), "--deleting", "--now", "2026-03-04T10:45:00Z",
        *SPEC_NODE_SET_OPTIONS,
    )
    assert json.loads(result.stdout)["state"] == "CLUSTER_STATE_DELETING"
    assert "TeardownComplete" in result.stderr
    assert "Teardown complete: the finalizer goes with this status write" in result.stderr


def test_objects_of_other_kinds_are_noted_and_ignored(tmp_path: Path) -> None:
    listing = yaml.safe_load((INPUTS / "hub_ready_list.yaml").read_text())
    listing["items"].append({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "c-3f0e8c6a2c10-kubeconfig"}})
    (tmp_path / "hub.yaml").write_text(yaml.safe_dump(listing))
    args = READY.args()
    args[args.index("--hosted-cluster") + 1] = str(tmp_path / "hub.yaml")
    result = succeeded(*args)
    assert result.stdout == succeeded(*READY.args()).stdout
    assert "Note: --hosted-cluster: ignored objects of other kinds (Secret)" in result.stderr


def test_output_feeds_the_next_derivation(tmp_path: Path) -> None:
    """The printed status (or the ``--events`` object) is a valid ``--previous``: a derivation can
    be stepped forward, and at the same inputs it is a fixpoint."""
    first = succeeded(*READY.args()).stdout
    for index, printed in enumerate((first, succeeded(*READY.args(), "--events").stdout)):
        saved = tmp_path / f"previous-{index}.json"
        saved.write_text(printed)
        again = succeeded(*READY.args(), "--previous", str(saved))
        assert json.loads(again.stdout) == json.loads(first)
        assert "Lifecycle events: none" in again.stderr


def test_hosted_cluster_from_stdin() -> None:
    args = READY.args()
    args[args.index("--hosted-cluster") + 1] = "-"
    from_stdin = succeeded(*args, input=(INPUTS / "hub_ready_list.yaml").read_text())
    assert from_stdin.stdout == succeeded(*READY.args()).stdout


def _as_status_json(cluster: dict[str, Any]) -> str:
    status = cluster["status"]
    status["field_of_a_newer_server"] = {"any": "thing"}
    return json.dumps(status)


PREVIOUS_SHAPES = {
    "status-alone-with-unknown-fields": ("status.json", _as_status_json),
    "cluster-as-yaml": ("cluster.yaml", lambda cluster: yaml.safe_dump(cluster)),
    "list-of-one-cluster": ("list.json", lambda cluster: json.dumps({"items": [cluster], "size": 1})),
}


@pytest.mark.parametrize(("file_name", "shape"), PREVIOUS_SHAPES.values(), ids=PREVIOUS_SHAPES.keys())
def test_previous_shapes_read_alike(
    tmp_path: Path, file_name: str, shape: Callable[[dict[str, Any]], str]
) -> None:
    saved = tmp_path / file_name
    saved.write_text(shape(json.loads((INPUTS / "previous_workers_joining.json").read_text())))
    args = DELETING.args()
    args[args.index("--previous") + 1] = str(saved)
    assert succeeded(*args).stdout == succeeded(*DELETING.args()).stdout


def test_node_pools_of_other_clusters_are_left_out() -> None:
    result = succeeded(*WORKERS_JOINING.args(), "--node-pool", str(INPUTS / "np_other_cluster.yaml"))
    assert result.stdout == succeeded(*WORKERS_JOINING.args()).stdout
    assert (
        f"left out NodePools not labelled osac.openshift.io/cluster-uuid={CLUSTER_ID}: c-6b4d2e9a7c01-workers"
        in result.stderr
    )


def test_malformed_content_is_an_unreadable_observation(tmp_path: Path) -> None:
    """Valid YAML with a wrong shape is not an input error: the derivation judges it, as the
    reconciler's would, and reports StageUnknown."""
    pools = hub_objects("np_joining.yaml")
    pools[0]["spec"]["replicas"] = "three"
    (tmp_path / "pools.yaml").write_text(yaml.safe_dump_all(pools))
    result = succeeded(
        "--hosted-cluster", str(INPUTS / "hc_workers_joining.yaml"), "--node-pool", str(tmp_path / "pools.yaml"),
        "--now", "2026-03-04T10:14:00Z", *SPEC_NODE_SET_OPTIONS,
    )
    progressing = condition(json.loads(result.stdout), "PROGRESSING")
    assert progressing["reason"] == "StageUnknown"
    assert "malformed observation" in progressing["message"]


def test_now_defaults_to_the_current_time() -> None:
    before = datetime.now(UTC)
    status = json.loads(succeeded("--hosted-cluster", str(INPUTS / "hc_control_plane_starting.yaml")).stdout)
    entered = datetime.fromisoformat(status["stage_entered_at"])
    assert before <= entered <= datetime.now(UTC)


def test_debug_needs_no_login(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["debug", "cluster-status", *READY.args()],
        env={"OSAC_CONFIG": str(tmp_path / "absent.yaml"), "OSAC_ADDRESS": "192.0.2.1:1", "OSAC_TOKEN": None},
    )
    assert result.exit_code == 0, result.stderr


# -- input the user must fix: exit code 2, the option and the fix ---------------------------------

BAD_FILES = {
    "broken.yaml": "kind: HostedCluster\nmetadata:\n  name: c-3f0e8c6a2c10\n   namespace: osac-clusters\n",
    "pools_only.yaml": (INPUTS / "np_joining.yaml").read_text(),
    "two_clusters.yaml": (INPUTS / "hc_workers_joining.yaml").read_text() + "---\n"
    + (INPUTS / "hc_control_plane_starting.yaml").read_text().replace("name: c-3f0e8c6a2c10\n", "name: c-other\n"),
    "no_kind.yaml": "metadata: {name: c-3f0e8c6a2c10}\nspec: {}\n",
    "scalar.yaml": "just text\n",
    "empty.yaml": "",
    "secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: pull-secret}\n",
    "not_json.json": "{state: READY",
    "hosted_cluster.json": json.dumps({"apiVersion": "hypershift.openshift.io/v1beta1", "kind": "HostedCluster"}),
    "bad_status.json": json.dumps({"status": {"conditions": {"not": "a list"}}}),
    "two_clusters.json": json.dumps({"items": [{"status": {}}, {"status": {}}]}),
}
HC = str(INPUTS / "hc_workers_joining.yaml")
POOLS = str(INPUTS / "np_joining.yaml")

BAD_INPUT = {
    "missing-file": (["--hosted-cluster", "nope.yaml"], "--hosted-cluster nope.yaml: cannot read the file"),
    "directory": (["--node-pool", "{dir}"], "--node-pool {dir}: cannot read the file"),
    "invalid-yaml": (["--hosted-cluster", "{dir}/broken.yaml"],
                     "--hosted-cluster {dir}/broken.yaml: not valid YAML or JSON (line 4, column 13: mapping values are "
                     "not allowed here)"),
    "no-hosted-cluster": (["--hosted-cluster", "{dir}/pools_only.yaml"],
                          "holds no HostedCluster; save it with 'kubectl get hostedcluster,nodepool"),
    "two-hosted-clusters": (["--hosted-cluster", "{dir}/two_clusters.yaml"],
                            "holds 2 HostedClusters (c-3f0e8c6a2c10, c-other); give a file with one cluster's"),
    "no-kind": (["--hosted-cluster", "{dir}/no_kind.yaml"], "the object has no kind; give objects as kubectl prints"),
    "not-a-mapping": (["--hosted-cluster", "{dir}/scalar.yaml"], "expected a Kubernetes object (a mapping), got str"),
    "empty-file": (["--node-pool", "{dir}/empty.yaml"], "--node-pool {dir}/empty.yaml: the file holds no objects"),
    "hosted-cluster-as-pool": (["--node-pool", HC], "a HostedCluster (c-3f0e8c6a2c10); give it with --hosted-cluster"),
    "no-pool-in-pool-file": (["--node-pool", "{dir}/secret.yaml"], "holds no NodePool (found Secret)"),
    "pool-twice": (["--hosted-cluster", HC, "--node-pool", POOLS, "--node-pool", POOLS],
                   "NodePool osac-clusters/c-3f0e8c6a2c10-workers is given twice"),
    "stdin-twice": (["--hosted-cluster", "-", "--previous", "-"], "only one of them can read stdin ('-')"),
    "node-set-no-host-type": (["--node-set", "workers=3"],
                              "--node-set 'workers=3': expected KEY=HOSTTYPE:SIZE, e.g. workers=bm-standard:3"),
    "node-set-no-key": (["--node-set", "=bm-standard:3"], "expected KEY=HOSTTYPE:SIZE"),
    "node-set-no-equals": (["--node-set", "workers"], "expected KEY=HOSTTYPE:SIZE"),
    "node-set-bad-size": (["--node-set", "workers=bm-standard:three"],
                          "the size must be a whole number >= 0, got 'three'"),
    "node-set-negative": (["--node-set", "workers=bm-standard:-1"], "the size must be a whole number >= 0"),
    "node-set-twice": (["--node-set", "gpu=bm-h100:1", "--node-set", "gpu=bm-h100:2"],
                       "node set 'gpu' is given twice; give each key once"),
    "now-not-a-time": (["--now", "yesterday"], "--now 'yesterday': not a time; use RFC 3339, e.g. 2026-03-04T10:43:00Z"),
    "now-without-zone": (["--now", "2026-03-04T10:00:00"], "the time has no zone; add one (Z for UTC)"),
    "previous-not-json": (["--previous", "{dir}/not_json.json"], "--previous {dir}/not_json.json: not valid JSON or YAML (line 1, column"),
    "previous-kubernetes": (["--previous", "{dir}/hosted_cluster.json"],
                            "a Kubernetes object (HostedCluster), not an OSAC cluster"),
    "previous-not-a-status": (["--previous", "{dir}/bad_status.json"], "not a ClusterStatus"),
    "previous-two-clusters": (["--previous", "{dir}/two_clusters.json"], "holds 2 objects"),
}


@pytest.mark.parametrize(("args", "message"), BAD_INPUT.values(), ids=BAD_INPUT.keys())
def test_bad_input_exits_2_naming_the_option(tmp_path: Path, args: list[str], message: str) -> None:
    for name, text in BAD_FILES.items():
        (tmp_path / name).write_text(text)
    result = osac_debug(*[word.format(dir=tmp_path) for word in args], input="")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("Error: ")
    assert message.format(dir=tmp_path) in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
