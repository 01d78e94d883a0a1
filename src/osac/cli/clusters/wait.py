"""``osac wait``: block until an object is usable or deleted, showing its progress on one line.

The goal is the lifecycle ``state`` only (cluster-status.md §3): a cluster is READY once
provisioned even while AVAILABLE is FALSE, since health lives in conditions. ``--for ready``
waits for the usable state of the kind (``usable_state``): READY for most, RUNNING for
ComputeInstances and bare-metal instances, ALLOCATED for external IPs; ``--for running`` is
the same goal. Reaching the goal
ends with success; a state from which the goal cannot be reached any more ends with an error
naming it (FAILED and DELETE_FAILED always, DELETING or deletion when waiting for READY), as
does the deadline. The verdict for one snapshot is a pure function (``verdict``); ``wait_for``
only reads, follows and reports.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import TextIO

from google.protobuf.message import Message

from osac.api.public.v1.cluster_type_pb2 import Cluster
from osac.cli.clusters.columns import stage_cell
from osac.cli.clusters.follow import FollowTimeout, changes, snapshot
from osac.cli.clusters.goals import Goal
from osac.cli.connection.client import KindClient
from osac.cli.connection.shape import as_kind, id_of
from osac.cli.errors import ApiError, CliError
from osac.cli.objects.kinds import describe_object
from osac.cli.output.fields import enum_label, value_at
from osac.cli.output.render import EMPTY, state_label
from osac.model.kinds import Kind
from osac.status.clusters.summary import duration_text

READY = "READY"
DELETING = "DELETING"
#: States from which no goal but deletion can be reached.
FAILED_STATES = frozenset({"FAILED", "DELETE_FAILED"})
#: ``ClusterConditionType`` FAILED: its reason and message say why a cluster failed.
FAILED_CONDITION = 3


class ProgressLine:
    """The progress line: rewritten in place on a terminal, one line per change in a pipe or a
    log (where carriage returns would garble the text)."""

    def __init__(self, stream: TextIO, *, is_terminal: bool) -> None:
        self.stream = stream
        self.is_terminal = is_terminal
        self._is_open = False

    def show(self, text: str) -> None:
        if self.is_terminal:
            self.stream.write(f"\r\x1b[K{text}")
            self._is_open = True
        else:
            self.stream.write(f"{text}\n")
        self.stream.flush()

    def close(self) -> None:
        """End an in-place line, so that what follows starts on a line of its own."""
        if self._is_open:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self._is_open = False


#: The usable state of a kind is the first of these its state enum has.
USABLE_STATES = (READY, "RUNNING", "ALLOCATED")


def usable_state(kind: Kind) -> str:
    """READY, RUNNING (ComputeInstance, bare-metal instance) or ALLOCATED (external IP)."""
    if kind.state_enum is None:
        return READY
    names = {enum_label(kind.state_enum, value.number) for value in kind.state_enum.values}
    return next((state for state in USABLE_STATES if state in names), READY)


@dataclass(frozen=True)
class Verdict:
    """``done``: the goal is reached; ``failure``: it never will be (the reason); neither: wait."""

    done: bool = False
    failure: str | None = None


PENDING = Verdict()


def verdict(kind: Kind, obj: Message | None, goal: Goal) -> Verdict:
    """What one snapshot of the object (None: deleted) means for ``goal``."""
    if obj is None:
        return Verdict(done=True) if goal is Goal.DELETED else Verdict(failure="was deleted")
    state = state_label(obj)
    is_usable_goal = goal is not Goal.DELETED
    if is_usable_goal and state == usable_state(kind):
        return Verdict(done=True)
    if state == "DELETE_FAILED" or (is_usable_goal and state in FAILED_STATES):
        return Verdict(failure=f"is {state}{_why(kind, obj)}")
    if is_usable_goal and state == DELETING:
        return Verdict(failure="is being deleted")
    return PENDING


def _why(kind: Kind, obj: Message) -> str:
    """``: ProvisioningFailed: invalid release image`` from a cluster's FAILED condition, or the
    status message of other kinds."""
    if kind.name == "cluster":
        conditions = as_kind(obj, Cluster).status.conditions
        failed = next((c for c in conditions if c.type == FAILED_CONDITION), None)
        if failed is not None and (failed.reason or failed.message):
            return ": " + ": ".join(part for part in (failed.reason, failed.message) if part)
        return ""
    message = value_at(obj, "status.message")
    return f": {message}" if isinstance(message, str) and message else ""


def progress(kind: Kind, obj: Message) -> str:
    """One line on where the object is: ``PROGRESSING  WorkersJoining  gpu 0/2, workers 2/3``
    for a cluster (state, the STAGE cell, joined/desired nodes per node set), the state and
    status message for other kinds."""
    state = state_label(obj)
    if kind.name != "cluster":
        message = value_at(obj, "status.message")
        return f"{state}  {message}" if isinstance(message, str) and message else state
    cluster = as_kind(obj, Cluster)
    parts = [state, stage_cell(cluster.status)]
    counts = node_set_counts(cluster)
    if counts:
        parts.append(counts)
    return "  ".join(parts)


def node_set_counts(cluster: Cluster) -> str:
    """``gpu 0/2, workers 2/3``: joined (current) over desired nodes per node set, by key; a
    node set the status does not report yet counts 0 of its requested size."""
    wanted = cluster.spec.node_sets
    observed = cluster.status.node_sets
    counts = []
    for key in sorted(set(wanted) | set(observed)):
        if key in observed:
            seen = observed[key]
            desired = seen.desired_replicas or (wanted[key].size if key in wanted else seen.size)
            counts.append(f"{key} {seen.current_replicas}/{desired}")
        else:
            counts.append(f"{key} 0/{wanted[key].size}")
    return ", ".join(counts)


def wait_for(
    client: KindClient,
    word: str,
    goal: Goal,
    timeout: timedelta,
    show: Callable[[str], None],
) -> str:
    """Wait until the object ``word`` (id or name) reaches ``goal``; returns the closing
    sentence. ``show`` is told the progress line whenever it changes.

    :raises CliError: the goal can no longer be reached, or ``timeout`` passed (the message says
        where the object was).
    """
    kind = client.kind
    try:
        found = client.find(word)
    except ApiError as error:
        if error.code == "NOT_FOUND" and goal is Goal.DELETED:
            return f"{kind.message} '{word}' deleted (not found)"
        raise
    label = describe_object(kind, found)
    found_id = id_of(found)
    first = snapshot(client, found_id)
    shown = EMPTY
    current = first.obj
    try:
        for obj in _with_first(first.obj, changes(client, found_id, first.revision, timeout)):
            current = obj
            result = verdict(kind, obj, goal)
            if result.done:
                return f"{label} {'deleted' if goal is Goal.DELETED else 'is ' + usable_state(kind)}"
            if result.failure is not None:
                raise CliError(f"{label} {result.failure}")
            line = progress(kind, obj) if obj is not None else EMPTY
            if line != shown:
                shown = line
                show(line)
    except FollowTimeout:
        where = progress(kind, current) if current is not None else "gone"
        goal_text = "to be deleted" if goal is Goal.DELETED else f"to be {usable_state(kind)}"
        raise CliError(f"timed out after {duration_text(timeout)} waiting for {label} {goal_text}; now {where}") from None
    raise CliError(f"{label}: the watch stream ended")


def _with_first(first: Message | None, rest: Iterator[Message | None]) -> Iterator[Message | None]:
    """The first snapshot, then every change."""
    yield first
    yield from rest
