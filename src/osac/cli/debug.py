"""``osac debug cluster-status``: the reconciler's status derivation, run offline on hub objects.

A support engineer holding a hub's HostedCluster and NodePools (``kubectl get -o yaml``) can see
the exact ``ClusterStatus`` OSAC derives from them, and why, without a server or a login: the
command calls the same pure ``derive_cluster_status`` the reconciler calls, with the default stall
thresholds, and writes the result into a public ``ClusterStatus`` with ``apply_view_to_status``
on top of the previous status, as the reconciler's status write does.

Output contract: stdout carries only JSON, so it can be piped to ``jq`` or fed back as
``--previous``. By default it is the status alone (proto JSON with the API's field names, as
``osac get cluster X -o json`` prints it under ``status``) and the lifecycle events, the requeue
delay and notes on how the inputs were read go to stderr. With ``--events`` stdout is one object
``{status, events, requeue_after, teardown_complete, unattributed_node_pools}`` instead.

Errors: input the user must fix (a file that cannot be read or parsed, a malformed option) raises
``BadInput``, reported as ``Error: <option> ...: <problem>; <fix>`` with exit code 2, the code of
a usage error. A HostedCluster or NodePool whose *content* is malformed is not an input error: the
derivation reads it as an unreadable observation, exactly as the reconciler would.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml
from google.protobuf import json_format
from google.protobuf.duration_pb2 import Duration

from osac.api.public.v1.cluster_type_pb2 import ClusterStatus
from osac.api.public.v1.lifecycle_event_type_pb2 import LifecycleEvent
from osac.cli.clusters.events import type_label
from osac.cli.errors import BadInput
from osac.cli.output.render import table_lines
from osac.status.clusters.derivation import (
    ClusterContext,
    ClusterDerivation,
    NodeSetSpec,
    StallThresholds,
    apply_view_to_status,
    derive_cluster_status,
    view_from_status,
)
from osac.status.clusters.signals import CLUSTER_UUID_LABEL, NODE_SET_LABEL
from osac.status.clusters.summary import duration_text

STDIN = "-"
HOSTED_CLUSTER_KIND = "HostedCluster"
NODE_POOL_KIND = "NodePool"
#: Host type of a node set inferred from a NodePool label: the hub does not record it.
UNKNOWN_HOST_TYPE = "unknown"
NODE_SET_EXAMPLE = "workers=bm-standard:3"
NOW_EXAMPLE = "2026-03-04T10:43:00Z"
KUBECTL_HINT = "save it with 'kubectl get hostedcluster,nodepool -n NAMESPACE -o yaml > FILE'"
PREVIOUS_HINT = "give what 'osac get cluster NAME -o json' prints (the object or its status)"
_INT32_MAX = 2**31 - 1


# -- reading the hub's objects ---------------------------------------------------------------------


class _KubeLoader(yaml.SafeLoader):
    """YAML without implicit timestamps: times stay the strings the provider hands the derivation."""


_KubeLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


@dataclass(frozen=True)
class HubObject:
    """One Kubernetes object read from a file, and where it was found (for messages)."""

    data: dict[str, Any]
    where: str

    @property
    def kind(self) -> str:
        return str(self.data["kind"])

    @property
    def name(self) -> str:
        return name_of(self.data)

    @property
    def identity(self) -> tuple[str, str]:
        """(namespace, name): what makes a NodePool the same one in two files."""
        metadata = self.data.get("metadata")
        namespace = metadata.get("namespace") if isinstance(metadata, dict) else None
        return (namespace if isinstance(namespace, str) else "", self.name)

    @property
    def labels(self) -> Mapping[str, Any]:
        return labels_of(self.data)


@dataclass(frozen=True)
class HubObjects:
    """The observation as the provider would hand it over, and notes on how it was read."""

    hosted_cluster: dict[str, Any] | None
    node_pools: tuple[dict[str, Any], ...]
    notes: tuple[str, ...] = ()


def name_of(data: Mapping[str, Any]) -> str:
    """``metadata.name``, or ``?`` when it is absent or not text."""
    metadata = data.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else None
    return name if isinstance(name, str) and name else "?"


def labels_of(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """``metadata.labels``, or nothing when it is absent or not a mapping (the derivation judges
    malformed metadata; this reader never raises on it)."""
    metadata = data.get("metadata")
    labels = metadata.get("labels") if isinstance(metadata, dict) else None
    return labels if isinstance(labels, dict) else {}


def read_text(option: str, path: str) -> str:
    """The text of ``path`` (stdin for ``-``).

    :raises BadInput: the file cannot be read or is not text.
    """
    if path == STDIN:
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise BadInput(
            f"{option} {path}: cannot read the file ({error.strerror or error}); give the path of a "
            f"readable file, or '-' for stdin"
        ) from error
    except UnicodeDecodeError as error:
        raise BadInput(f"{option} {path}: not a text file; {KUBECTL_HINT}") from error


def load_objects(option: str, path: str) -> list[HubObject]:
    """The Kubernetes objects in a file: one, several ``---`` documents, or Lists with ``items``.

    :raises BadInput: unreadable file, invalid YAML/JSON, or a document that is not an object
        with a ``kind``.
    """
    text = read_text(option, path)
    source = "stdin" if path == STDIN else path
    try:
        loaded = [document for document in yaml.load_all(text, Loader=_KubeLoader) if document is not None]
    except yaml.YAMLError as error:
        raise BadInput(f"{option} {source}: not valid YAML or JSON ({_yaml_problem(error)}); {KUBECTL_HINT}") from error
    if not loaded:
        raise BadInput(f"{option} {source}: the file holds no objects; {KUBECTL_HINT}")
    objects: list[HubObject] = []
    for number, document in enumerate(loaded, start=1):
        where = f"{source} document {number}" if len(loaded) > 1 else source
        objects.extend(_objects_in(option, document, where))
    return objects


def _yaml_problem(error: yaml.YAMLError) -> str:
    if isinstance(error, yaml.MarkedYAMLError) and error.problem_mark is not None:
        mark = error.problem_mark
        return f"line {mark.line + 1}, column {mark.column + 1}: {error.problem or error.context or 'syntax error'}"
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def _objects_in(option: str, data: Any, where: str) -> list[HubObject]:
    if not isinstance(data, dict):
        raise BadInput(
            f"{option} {where}: expected a Kubernetes object (a mapping), got {type(data).__name__}; {KUBECTL_HINT}"
        )
    if isinstance(data.get("items"), list):
        return [
            found
            for index, item in enumerate(data["items"])
            for found in _objects_in(option, item, f"{where} items[{index}]")
        ]
    if not isinstance(data.get("kind"), str) or not data["kind"]:
        raise BadInput(
            f"{option} {where}: the object has no kind; give objects as kubectl prints them "
            f"(with apiVersion and kind): {KUBECTL_HINT}"
        )
    return [HubObject(data, where)]


def _other_kinds_note(option: str, objects: Iterable[HubObject]) -> list[str]:
    kinds = sorted({obj.kind for obj in objects})
    return [f"{option}: ignored objects of other kinds ({', '.join(kinds)})"] if kinds else []


def read_hub_objects(hosted_cluster_path: str | None, node_pool_paths: Sequence[str]) -> HubObjects:
    """The HostedCluster (None when no file is given: "not found") and the NodePools.

    NodePools come from the ``--node-pool`` files and from the ``--hosted-cluster`` file when it
    mixes both kinds. When the HostedCluster carries the cluster-uuid label, NodePools labelled
    for another cluster are left out, as the provider's label selector would.

    :raises BadInput: see ``load_objects``; no or several HostedClusters in the file, a
        HostedCluster in a ``--node-pool`` file, a NodePool given twice.
    """
    notes: list[str] = []
    hosted_cluster: dict[str, Any] | None = None
    pools: list[HubObject] = []
    if hosted_cluster_path is not None:
        objects = load_objects("--hosted-cluster", hosted_cluster_path)
        found = [obj for obj in objects if obj.kind == HOSTED_CLUSTER_KIND]
        source = "stdin" if hosted_cluster_path == STDIN else hosted_cluster_path
        if not found:
            raise BadInput(
                f"--hosted-cluster {source}: holds no HostedCluster; {KUBECTL_HINT}, or leave out "
                "--hosted-cluster to derive as if it was not found"
            )
        if len(found) > 1:
            names = ", ".join(obj.name for obj in found)
            raise BadInput(
                f"--hosted-cluster {source}: holds {len(found)} HostedClusters ({names}); "
                "give a file with one cluster's HostedCluster (kubectl get hostedcluster NAME -o yaml)"
            )
        hosted_cluster = found[0].data
        pools.extend(obj for obj in objects if obj.kind == NODE_POOL_KIND)
        notes += _other_kinds_note(
            "--hosted-cluster", (obj for obj in objects if obj.kind not in (HOSTED_CLUSTER_KIND, NODE_POOL_KIND))
        )
    for path in node_pool_paths:
        objects = load_objects("--node-pool", path)
        source = "stdin" if path == STDIN else path
        misplaced = [obj for obj in objects if obj.kind == HOSTED_CLUSTER_KIND]
        if misplaced:
            raise BadInput(
                f"--node-pool {misplaced[0].where}: a HostedCluster ({misplaced[0].name}); "
                "give it with --hosted-cluster"
            )
        found = [obj for obj in objects if obj.kind == NODE_POOL_KIND]
        if objects and not found:
            raise BadInput(
                f"--node-pool {source}: holds no NodePool (found {', '.join(sorted({o.kind for o in objects}))}); "
                "save NodePools with 'kubectl get nodepool -n NAMESPACE -o yaml > FILE'"
            )
        pools.extend(found)
        notes += _other_kinds_note("--node-pool", (obj for obj in objects if obj.kind != NODE_POOL_KIND))
    _refuse_duplicates(pools)
    selected, left_out = select_cluster_pools(hosted_cluster, pools)
    if left_out:
        cluster_id = labels_of(hosted_cluster or {}).get(CLUSTER_UUID_LABEL)
        names = ", ".join(sorted(obj.name for obj in left_out))
        notes.append(f"left out NodePools not labelled {CLUSTER_UUID_LABEL}={cluster_id}: {names}")
    return HubObjects(hosted_cluster, tuple(obj.data for obj in selected), tuple(notes))


def _refuse_duplicates(pools: Sequence[HubObject]) -> None:
    seen: dict[tuple[str, str], HubObject] = {}
    for pool in pools:
        first = seen.setdefault(pool.identity, pool)
        if first is not pool:
            namespace, name = pool.identity
            shown = f"{namespace}/{name}" if namespace else name
            places = f"{first.where}, read twice" if first.where == pool.where else f"{first.where} and {pool.where}"
            raise BadInput(f"--node-pool: NodePool {shown} is given twice ({places}); give each NodePool once")


def select_cluster_pools(
    hosted_cluster: Mapping[str, Any] | None, pools: Sequence[HubObject]
) -> tuple[list[HubObject], list[HubObject]]:
    """(NodePools of the HostedCluster's cluster, the others). Without a HostedCluster, or one
    without the cluster-uuid label, every NodePool is the cluster's."""
    cluster_id = labels_of(hosted_cluster).get(CLUSTER_UUID_LABEL) if hosted_cluster is not None else None
    if not isinstance(cluster_id, str) or not cluster_id:
        return list(pools), []
    kept = [pool for pool in pools if pool.labels.get(CLUSTER_UUID_LABEL) == cluster_id]
    return kept, [pool for pool in pools if pool.labels.get(CLUSTER_UUID_LABEL) != cluster_id]


# -- the cluster's own facts -----------------------------------------------------------------------


def parse_node_sets(words: Sequence[str]) -> dict[str, NodeSetSpec]:
    """``context.node_sets`` from ``--node-set KEY=HOSTTYPE:SIZE`` options (fabric interface empty).

    :raises BadInput: the syntax, a size that is not a whole number, a key given twice.
    """
    specs: dict[str, NodeSetSpec] = {}
    for word in words:
        key, equals, rest = word.partition("=")
        host_type, colon, size_text = rest.rpartition(":")
        key, host_type, size_text = key.strip(), host_type.strip(), size_text.strip()
        if not equals or not key or not colon or not host_type:
            raise BadInput(f"--node-set '{word}': expected KEY=HOSTTYPE:SIZE, e.g. {NODE_SET_EXAMPLE}")
        if not (size_text.isascii() and size_text.isdigit()) or int(size_text) > _INT32_MAX:
            raise BadInput(
                f"--node-set '{word}': the size must be a whole number >= 0, got '{size_text}'; "
                f"e.g. {NODE_SET_EXAMPLE}"
            )
        if key in specs:
            raise BadInput(f"--node-set '{word}': node set '{key}' is given twice; give each key once")
        specs[key] = NodeSetSpec(host_type=host_type, size=int(size_text))
    return specs


def node_sets_from_pools(node_pools: Iterable[Mapping[str, Any]]) -> dict[str, NodeSetSpec]:
    """The node sets the NodePools' ``osac.openshift.io/node-set`` labels name, sized by
    ``spec.replicas`` (the first NodePool by name for a key several carry); host type unknown."""
    sizes: dict[str, int] = {}
    for pool in sorted(node_pools, key=name_of):
        key = labels_of(pool).get(NODE_SET_LABEL)
        if isinstance(key, str) and key and key not in sizes:
            sizes[key] = _replicas(pool)
    return {key: NodeSetSpec(host_type=UNKNOWN_HOST_TYPE, size=size) for key, size in sorted(sizes.items())}


def node_sets_from_status(status: ClusterStatus) -> dict[str, NodeSetSpec]:
    """The node sets a status records, with the host type, size and fabric interface the spec had
    when it was written: the best guess when no NodePool names any (unreadable, or all gone)."""
    return {
        key: NodeSetSpec(host_type=entry.host_type, size=entry.size, fabric_interface=entry.fabric_interface)
        for key, entry in sorted(status.node_sets.items())
    }


def _replicas(pool: Mapping[str, Any]) -> int:
    """``spec.replicas``; 0 when absent or unusable (the derivation reports a malformed count)."""
    spec = pool.get("spec")
    value = spec.get("replicas") if isinstance(spec, dict) else None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= _INT32_MAX else 0


def parse_now(text: str | None) -> datetime:
    """``--now`` as a UTC datetime; the current time when not given.

    :raises BadInput: not an RFC 3339 time, or one without a zone.
    """
    if text is None:
        return datetime.now(UTC)
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise BadInput(f"--now '{text}': not a time; use RFC 3339, e.g. {NOW_EXAMPLE}") from None
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise BadInput(f"--now '{text}': the time has no zone; add one (Z for UTC), e.g. {NOW_EXAMPLE}")
    return moment.astimezone(UTC)


def read_previous(path: str | None) -> ClusterStatus:
    """The last committed public status: a ``ClusterStatus`` as proto JSON, or a whole Cluster
    (its ``status`` is taken), as ``osac get cluster -o json`` (or ``-o yaml``) prints them; the
    empty status (first derivation) when not given. Unknown fields are ignored, so the output of a
    newer server is accepted.

    :raises BadInput: unreadable file, not JSON or YAML, or not a ClusterStatus.
    """
    message = ClusterStatus()
    if path is None:
        return message
    source = "stdin" if path == STDIN else path
    try:
        data = yaml.load(read_text("--previous", path), Loader=_KubeLoader)
    except yaml.YAMLError as error:
        raise BadInput(f"--previous {source}: not valid JSON or YAML ({_yaml_problem(error)}); {PREVIOUS_HINT}") from error
    if isinstance(data, dict) and isinstance(data.get("items"), list):
        if len(data["items"]) != 1:
            raise BadInput(f"--previous {source}: holds {len(data['items'])} objects; {PREVIOUS_HINT} for one cluster")
        data = data["items"][0]
    if isinstance(data, dict) and isinstance(data.get("apiVersion"), str):
        raise BadInput(
            f"--previous {source}: a Kubernetes object ({data.get('kind') or data['apiVersion']}), not an OSAC "
            f"cluster; {PREVIOUS_HINT}"
        )
    if isinstance(data, dict) and isinstance(data.get("status"), dict):
        data = data["status"]  # a whole Cluster; a ClusterStatus has no ``status`` field
    if not isinstance(data, dict):
        raise BadInput(f"--previous {source}: expected a JSON object, got {type(data).__name__}; {PREVIOUS_HINT}")
    try:
        json_format.ParseDict(data, message, ignore_unknown_fields=True)
    except json_format.ParseError as error:
        raise BadInput(f"--previous {source}: not a ClusterStatus ({error}); {PREVIOUS_HINT}") from error
    return message


# -- the derivation --------------------------------------------------------------------------------


@dataclass(frozen=True)
class DebugInputs:
    """Everything one offline derivation takes, read and checked."""

    hosted_cluster: dict[str, Any] | None
    node_pools: tuple[dict[str, Any], ...]
    previous: ClusterStatus
    now: datetime
    context: ClusterContext
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class DerivedStatus:
    """The derivation and the public status it writes over the previous one."""

    derivation: ClusterDerivation
    status: ClusterStatus


def read_inputs(
    *,
    hosted_cluster_path: str | None,
    node_pool_paths: Sequence[str],
    node_set_words: Sequence[str],
    previous_path: str | None,
    now_text: str | None,
    is_deletion_requested: bool,
    is_unreadable: bool,
) -> DebugInputs:
    """Read and check every option; nothing is derived yet.

    :raises BadInput: any option or file the user must fix.
    """
    readers = [p for p in (hosted_cluster_path, *node_pool_paths, previous_path) if p == STDIN]
    if len(readers) > 1:
        raise BadInput(
            "--hosted-cluster, --node-pool and --previous: only one of them can read stdin ('-'); "
            "give the others as files"
        )
    node_sets = parse_node_sets(node_set_words)
    now = parse_now(now_text)
    hub = read_hub_objects(hosted_cluster_path, node_pool_paths)
    previous = read_previous(previous_path)
    notes = list(hub.notes)
    if not node_sets:
        node_sets, origin = node_sets_from_pools(hub.node_pools), f"the NodePools' {NODE_SET_LABEL} labels"
        if not node_sets:
            node_sets, origin = node_sets_from_status(previous), "the previous status"
        if node_sets:
            listed = ", ".join(f"{key}={spec.host_type}:{spec.size}" for key, spec in node_sets.items())
            notes.append(f"node sets from {origin}: {listed}; give --node-set KEY=HOSTTYPE:SIZE for the cluster's spec")
    context = ClusterContext(
        node_sets=node_sets,
        observation_readable=not is_unreadable,
        deletion_requested=is_deletion_requested,
    )
    return DebugInputs(hub.hosted_cluster, hub.node_pools, previous, now, context, tuple(notes))


def derive_offline(inputs: DebugInputs) -> DerivedStatus:
    """Run the reconciler's derivation (default stall thresholds) and apply its view to a copy of
    the previous status, as the reconciler's status write does."""
    derivation = derive_cluster_status(
        inputs.hosted_cluster,
        inputs.node_pools,
        view_from_status(inputs.previous),
        inputs.now,
        StallThresholds.DEFAULT,
        inputs.context,
    )
    status = ClusterStatus()
    status.CopyFrom(inputs.previous)
    apply_view_to_status(derivation.status, status)
    return DerivedStatus(derivation, status)


# -- output ----------------------------------------------------------------------------------------


def _event_messages(derived: DerivedStatus) -> list[LifecycleEvent]:
    return [
        LifecycleEvent(object_type="Cluster", type=event.type, reason=event.reason, message=event.message)  # type: ignore[arg-type]
        for event in derived.derivation.events
    ]


def status_json(derived: DerivedStatus) -> str:
    """The public status as proto JSON with the API's field names and enum names."""
    return json_format.MessageToJson(derived.status, preserving_proto_field_name=True, indent=2)


def report_json(derived: DerivedStatus) -> str:
    """``--events``: the status with the events, the requeue delay (a proto Duration, or null)
    and the teardown and attribution facts, as one JSON object."""
    derivation = derived.derivation
    requeue_after = None
    if derivation.requeue_after is not None:
        duration = Duration()
        duration.FromTimedelta(derivation.requeue_after)
        requeue_after = duration.ToJsonString()
    report_data = {
        "status": json_format.MessageToDict(derived.status, preserving_proto_field_name=True),
        "events": [
            json_format.MessageToDict(event, preserving_proto_field_name=True) for event in _event_messages(derived)
        ],
        "requeue_after": requeue_after,
        "teardown_complete": derivation.teardown_complete,
        "unattributed_node_pools": derivation.unattributed_node_pools,
    }
    return json.dumps(report_data, indent=2)


def summary_lines(derived: DerivedStatus) -> list[str]:
    """What the reconciler would do besides writing the status, for stderr."""
    derivation = derived.derivation
    events = _event_messages(derived)
    lines: list[str] = []
    if events:
        lines.append("Lifecycle events (recorded with this status):")
        rows = [[type_label(event), event.reason or "-", event.message] for event in events]
        lines += ["  " + line for line in table_lines(("TYPE", "REASON", "MESSAGE"), rows)[0]]
    else:
        lines.append("Lifecycle events: none")
    if derivation.requeue_after is not None:
        lines.append(f"Requeue after: {duration_text(derivation.requeue_after)} (a stall threshold lies ahead)")
    else:
        lines.append("Requeue after: - (no stall threshold ahead)")
    if derivation.teardown_complete:
        lines.append("Teardown complete: the finalizer goes with this status write")
    if derivation.unattributed_node_pools:
        lines.append(
            f"Unattributed NodePools: {derivation.unattributed_node_pools} "
            f"(no {NODE_SET_LABEL} label; not counted in any node set)"
        )
    return lines
