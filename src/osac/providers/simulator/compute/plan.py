"""How a simulated KubeVirt VM moves (simulator.md §3.2): pure planning, no I/O.

Each provider call turns the VM's current state (the last step due) and its pending steps into
new steps with due times. Table durations at speed 1 (``StepTiming`` jitters and scales them):

========================================  ======================================================
apply (create)                            ``Provisioning`` while the DataVolumes import
                                          (30 s + 2 s/GiB each, in parallel; progress ticks at
                                          25/50/75 %), then with ``Always``: ``Starting`` with a
                                          new VMI (phase ``Scheduled``), 20 s later ``Running``
                                          and ready with the VMI's interfaces reported, 5 s later
                                          their addresses; with ``Halted``: ``Stopped``
stop (``Halted``)                         ``Stopping`` (VMI being deleted) 10 s -> ``Stopped``
start (``Always``)                        as above from ``Starting``, after a pending stop ends
restart                                   stop, 1 s, start: a new VMI with a new uid
delete                                    ``Terminating`` (deletionTimestamp) -> 10 s (1 s
                                          without a running VMI) VM and VMI gone -> 2 s
                                          DataVolumes gone
========================================  ======================================================

Teardown stages (``teardown_fail`` ``stage``): ``Terminating`` (nothing removed yet; the default)
and ``DeletingVolumes`` (VM and VMI gone, DataVolumes left).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from osac.providers.compute import VirtualMachineInterface, VirtualMachineSpec
from osac.providers.simulator.runtime.plan_steps import State, Step
from osac.providers.simulator.runtime.step_timing import StepTiming, stable_uid
from osac.providers.simulator.runtime.times import iso

KIND = "compute_instance"

DV_BASE_SECONDS = 30.0
DV_SECONDS_PER_GIB = 2.0
START_SECONDS = 20.0
ADDRESS_SECONDS = 5.0
STOP_SECONDS = 10.0
RESTART_GAP_SECONDS = 1.0
TERMINATE_SECONDS = 1.0
VOLUME_DELETE_SECONDS = 2.0
#: Import progress reported between start and end of a DataVolume import.
IMPORT_MARKS = (0.25, 0.5, 0.75)

PROVISIONING = "Provisioning"
STARTING = "Starting"
RUNNING = "Running"
STOPPING = "Stopping"
STOPPED = "Stopped"
TERMINATING = "Terminating"

#: VMI ``status.phase`` values.
VMI_SCHEDULED = "Scheduled"
VMI_RUNNING = "Running"

#: What the VMI reports of its interfaces: nothing yet, names and MACs, or also addresses.
INTERFACES_NONE = ""
INTERFACES_REPORTED = "reported"
INTERFACES_ADDRESSED = "addressed"

STAGE_TERMINATING = "Terminating"
STAGE_DELETING_VOLUMES = "DeletingVolumes"
TEARDOWN_STAGES = (STAGE_TERMINATING, STAGE_DELETING_VOLUMES)

#: Spec fields fixed once the VM exists (their DataVolumes are imported).
IMMUTABLE_FIELDS = ("image", "boot_disk_gib", "additional_disks")
#: Spec fields that change without a reboot; any other change needs one (``RestartRequired``).
LIVE_FIELDS = ("run_strategy", "labels")


# -- spec -------------------------------------------------------------------------------------------


def spec_to_json(spec: VirtualMachineSpec) -> dict[str, Any]:
    data = asdict(spec)
    data["additional_disks"] = list(spec.additional_disks)
    data["interfaces"] = [asdict(i) for i in spec.interfaces]
    data["labels"] = dict(spec.labels)
    return data


def spec_from_json(data: Mapping[str, Any]) -> VirtualMachineSpec:
    return VirtualMachineSpec(
        cores=int(data["cores"]),
        memory_gib=int(data["memory_gib"]),
        image=str(data["image"]),
        boot_disk_gib=int(data["boot_disk_gib"]),
        gpus=int(data.get("gpus", 0)),
        additional_disks=tuple(int(size) for size in data.get("additional_disks", ())),
        run_strategy=str(data.get("run_strategy", "Always")),
        user_data=str(data.get("user_data", "")),
        ssh_public_key=str(data.get("ssh_public_key", "")),
        interfaces=tuple(VirtualMachineInterface(**i) for i in data.get("interfaces", ())),
        labels=dict(data.get("labels", {})),
    )


def boot_hash(spec: Mapping[str, Any]) -> str:
    """A digest of the fields a running instance was booted with (all but ``LIVE_FIELDS``)."""
    booted = {name: value for name, value in spec.items() if name not in LIVE_FIELDS}
    return hashlib.sha256(json.dumps(booted, sort_keys=True).encode()).hexdigest()[:16]


def changed_fields(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    return sorted(name for name in set(old) | set(new) if old.get(name) != new.get(name))


# -- DataVolumes ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class VolumePlan:
    """One DataVolume: ``source`` is the image for the boot disk, empty for a blank disk."""

    name: str
    size_gib: int
    source: str
    started_at: datetime
    done_at: datetime

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "size_gib": self.size_gib, "source": self.source,
                "started_at": iso(self.started_at), "done_at": iso(self.done_at)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> VolumePlan:
        return cls(str(data["name"]), int(data["size_gib"]), str(data["source"]),
                   _time(data["started_at"]), _time(data["done_at"]))

    def marks(self) -> list[datetime]:
        """When the import reports progress, then success."""
        span = self.done_at - self.started_at
        return [self.started_at + span * mark for mark in IMPORT_MARKS] + [self.done_at]

    def progress(self, now: datetime) -> tuple[str, str]:
        """``(status.phase, status.progress)`` at ``now``."""
        if now >= self.done_at:
            return "Succeeded", "100.0%"
        reached = [mark for mark, at in zip(IMPORT_MARKS, self.marks(), strict=False) if at <= now]
        if not reached:
            return "ImportScheduled", "N/A"
        return "ImportInProgress", f"{reached[-1] * 100:.2f}%"


def volume_name(vm_name: str, index: int) -> str:
    return f"{vm_name}-boot" if index == 0 else f"{vm_name}-disk-{index}"


def plan_volumes(spec: VirtualMachineSpec, vm_name: str, now: datetime, timing: StepTiming,
                 ordinal: int) -> list[VolumePlan]:
    sizes = [(spec.boot_disk_gib, spec.image), *((size, "") for size in spec.additional_disks)]
    volumes = []
    for index, (size, source) in enumerate(sizes):
        name = volume_name(vm_name, index)
        took = timing.duration(DV_BASE_SECONDS + DV_SECONDS_PER_GIB * size, KIND, ordinal, "import", name)
        volumes.append(VolumePlan(name, size, source, now, now + took))
    return volumes


# -- states -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class InstanceState:
    """The running incarnation (VMI). ``booted_with`` is the ``boot_hash`` of the spec it
    started with; ``deleting_at`` is set while it shuts down."""

    uid: str
    created_at: datetime
    phase: str
    interfaces: str
    booted_with: str
    deleting_at: datetime | None = None

    @property
    def is_live(self) -> bool:
        return self.deleting_at is None


@dataclass(frozen=True)
class MachineState:
    """The VM (``exists``), its instance and whether its DataVolumes exist. ``status`` is the
    ``printableStatus``; ``deleting_at`` the VM's deletionTimestamp."""

    exists: bool
    status: str = ""
    ready: bool = False
    volumes: bool = False
    instance: InstanceState | None = None
    deleting_at: datetime | None = None

    @property
    def is_gone(self) -> bool:
        return not self.exists and not self.volumes

    def to_json(self) -> dict[str, Any]:
        instance = None
        if self.instance is not None:
            instance = {**asdict(self.instance), "created_at": iso(self.instance.created_at),
                        "deleting_at": iso(self.instance.deleting_at)}
        return {"exists": self.exists, "status": self.status, "ready": self.ready, "volumes": self.volumes,
                "instance": instance, "deleting_at": iso(self.deleting_at)}

    @classmethod
    def from_json(cls, data: State) -> MachineState:
        raw = data.get("instance")
        instance = None
        if raw is not None:
            instance = InstanceState(
                uid=str(raw["uid"]), created_at=_time(raw["created_at"]), phase=str(raw["phase"]),
                interfaces=str(raw["interfaces"]), booted_with=str(raw["booted_with"]),
                deleting_at=_optional_time(raw.get("deleting_at")),
            )
        return cls(exists=bool(data["exists"]), status=str(data["status"]), ready=bool(data["ready"]),
                   volumes=bool(data["volumes"]), instance=instance,
                   deleting_at=_optional_time(data.get("deleting_at")))


ABSENT = MachineState(exists=False)


def state_of(step: Step | None) -> MachineState:
    return ABSENT if step is None or step.state is None else MachineState.from_json(step.state)


# -- planning ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Planned:
    """The outcome of one call: the new steps, which pending steps survive (ticks always do,
    unless ``drop_ticks``), and how many instances exist after it."""

    new: list[tuple[datetime, MachineState | None]] = field(default_factory=list)
    keep: frozenset[int] = frozenset()
    drop_ticks: bool = False
    incarnations: int = 0
    changed: bool = True

    def steps(self) -> list[tuple[datetime, State | None]]:
        return [(at, None if state is None else state.to_json()) for at, state in self.new]

    def keeps(self, step: Step) -> bool:
        return step.seq in self.keep or (step.is_tick and not self.drop_ticks)


@dataclass(frozen=True)
class Planner:
    """Plans one call at ``now`` for the VM with creation ``ordinal``; ``command`` indexes the
    call (its jitter stream), ``incarnations`` counts the VMIs created before it."""

    now: datetime
    timing: StepTiming
    ordinal: int
    command: int
    incarnations: int
    booted_with: str

    def duration(self, seconds: float, label: str) -> timedelta:
        return self.timing.duration(seconds, KIND, self.ordinal, self.command, label)

    # -- building blocks --------------------------------------------------------------------------

    def start(self, at: datetime, base: MachineState, incarnation: int) -> list[tuple[datetime, MachineState]]:
        uid = stable_uid(self.timing.seed, KIND, self.ordinal, "vmi", incarnation)
        instance = InstanceState(uid, at, VMI_SCHEDULED, INTERFACES_NONE, self.booted_with)
        starting = replace(base, exists=True, status=STARTING, ready=False, instance=instance)
        running_at = at + self.duration(START_SECONDS, f"start-{incarnation}")
        running = replace(starting, status=RUNNING, ready=True,
                          instance=replace(instance, phase=VMI_RUNNING, interfaces=INTERFACES_REPORTED))
        addressed_at = running_at + self.duration(ADDRESS_SECONDS, f"addresses-{incarnation}")
        addressed = replace(running, instance=replace(instance, phase=VMI_RUNNING, interfaces=INTERFACES_ADDRESSED))
        return [(at, starting), (running_at, running), (addressed_at, addressed)]

    def stop(self, at: datetime, base: MachineState) -> list[tuple[datetime, MachineState]]:
        assert base.instance is not None
        stopping = replace(base, status=STOPPING, ready=False, instance=replace(base.instance, deleting_at=at))
        stopped = replace(base, status=STOPPED, ready=False, instance=None)
        return [(at, stopping), (at + self.duration(STOP_SECONDS, "stop"), stopped)]

    def gap(self) -> timedelta:
        return self.duration(RESTART_GAP_SECONDS, "restart-gap")

    # -- calls ------------------------------------------------------------------------------------

    def create(self, volumes: Sequence[VolumePlan], run_always: bool) -> Planned:
        ready_at = max(v.done_at for v in volumes)
        provisioning = MachineState(exists=True, status=PROVISIONING, volumes=True)
        new: list[tuple[datetime, MachineState | None]] = [(self.now, provisioning)]
        new += [(at, None) for volume in volumes for at in volume.marks()]
        incarnations = self.incarnations
        if run_always:
            new += self.start(ready_at, provisioning, incarnations)
            incarnations += 1
        else:
            new.append((ready_at, replace(provisioning, status=STOPPED)))
        return Planned(new=new, drop_ticks=True, incarnations=incarnations)

    def halt(self, state: MachineState, pending: Sequence[Step], volumes_ready_at: datetime) -> Planned:
        if state.status == PROVISIONING:
            return Planned(new=[(max(volumes_ready_at, self.now), replace(state, status=STOPPED))],
                           incarnations=self.incarnations)
        if state.instance is not None and state.instance.is_live:
            return Planned(new=list(self.stop(self.now, state)), incarnations=self.incarnations)
        if state.status == STOPPING:
            return Planned(keep=_until_stopped(pending), incarnations=self.incarnations)
        return Planned(incarnations=self.incarnations)

    def run(self, state: MachineState, pending: Sequence[Step], volumes_ready_at: datetime) -> Planned:
        if state.status == PROVISIONING:
            return Planned(new=list(self.start(max(volumes_ready_at, self.now), state, self.incarnations)),
                           incarnations=self.incarnations + 1)
        if state.status == STOPPING:
            keep = _until_stopped(pending)
            stopped_at = _stopped_at(pending) or self.now
            new = self.start(stopped_at + self.gap(), replace(state, status=STOPPED, instance=None), self.incarnations)
            return Planned(new=list(new), keep=keep, incarnations=self.incarnations + 1)
        if state.status == STOPPED:
            return Planned(new=list(self.start(self.now, state, self.incarnations)), incarnations=self.incarnations + 1)
        return Planned(keep=frozenset(step.seq for step in pending), incarnations=self.incarnations, changed=False)

    def restart(self, state: MachineState, pending: Sequence[Step], *, fail: bool) -> Planned:
        """Stop (if running) and start a new instance; with ``fail`` the VM stays stopped."""
        if state.status == PROVISIONING:
            return Planned(keep=frozenset(step.seq for step in pending), incarnations=self.incarnations, changed=False)
        stopped = replace(state, status=STOPPED, ready=False, instance=None)
        if state.instance is not None and state.instance.is_live:
            stop = self.stop(self.now, state)
            new: list[tuple[datetime, MachineState | None]] = list(stop)
            keep: frozenset[int] = frozenset()
            start_at = stop[-1][0] + self.gap()
        elif state.status == STOPPING:
            new, keep = [], _until_stopped(pending)
            start_at = (_stopped_at(pending) or self.now) + self.gap()
        else:
            new, keep = [], frozenset()
            start_at = self.now + self.gap()
        if fail:
            return Planned(new=new, keep=keep, incarnations=self.incarnations)
        new += self.start(start_at, stopped, self.incarnations)
        return Planned(new=new, keep=keep, incarnations=self.incarnations + 1)

    def rebase(self, pending: Sequence[Step], booted_with: str) -> Planned:
        """After a spec change: instances not started yet boot with the new spec."""
        new: list[tuple[datetime, MachineState | None]] = []
        changed = False
        for step in pending:
            state = state_of(step)
            if step.state is not None and state.instance is not None and state.instance.created_at > self.now:
                state = replace(state, instance=replace(state.instance, booted_with=booted_with))
                changed = True
            new.append((step.at, None if step.state is None else state))
        if not changed:
            return Planned(keep=frozenset(step.seq for step in pending), incarnations=self.incarnations, changed=False)
        return Planned(new=new, drop_ticks=True, incarnations=self.incarnations)

    def delete(self, state: MachineState, halt_at: str | None) -> tuple[Planned, datetime | None]:
        """Start the teardown; with ``halt_at`` (a stage) it stops before leaving that stage.
        Returns the plan and when everything is gone (None when halted)."""
        new: list[tuple[datetime, MachineState | None]] = []
        if state.exists:
            instance = state.instance
            if instance is not None and instance.is_live:
                instance = replace(instance, deleting_at=self.now)
            state = MachineState(exists=True, status=TERMINATING, volumes=state.volumes, instance=instance,
                                 deleting_at=self.now)
            new.append((self.now, state))
            if halt_at == STAGE_TERMINATING:
                return Planned(new=new, drop_ticks=True, incarnations=self.incarnations), None
        return self._remove(state, new, halt_at)

    def resume_delete(self, state: MachineState) -> tuple[Planned, datetime | None]:
        """Continue a halted teardown from now (its fault was cleared)."""
        return self._remove(state, [], None)

    def _remove(self, state: MachineState, new: list[tuple[datetime, MachineState | None]],
                halt_at: str | None) -> tuple[Planned, datetime | None]:
        deleting_at = state.deleting_at or self.now
        vm_gone_at = self.now
        if state.exists:
            shutdown = STOP_SECONDS if state.instance is not None else TERMINATE_SECONDS
            vm_gone_at = self.now + self.duration(shutdown, "terminate")
            new.append((vm_gone_at, MachineState(exists=False, volumes=state.volumes, deleting_at=deleting_at)))
            if halt_at == STAGE_DELETING_VOLUMES and state.volumes:
                return Planned(new=new, drop_ticks=True, incarnations=self.incarnations), None
        gone_at = vm_gone_at + self.duration(VOLUME_DELETE_SECONDS, "delete-volumes")
        new.append((gone_at, ABSENT))
        return Planned(new=new, drop_ticks=True, incarnations=self.incarnations), gone_at


def teardown_stage(value: object) -> str:
    """The stage a ``teardown_fail`` fault halts at (``Terminating`` unless it names another)."""
    return value if isinstance(value, str) and value in TEARDOWN_STAGES else STAGE_TERMINATING


def is_halted(state: MachineState, pending: Sequence[Step]) -> bool:
    """A teardown that stopped before its end (a ``teardown_fail`` fault)."""
    return state.deleting_at is not None and not state.is_gone and not any(s.state is not None for s in pending)


def _until_stopped(pending: Sequence[Step]) -> frozenset[int]:
    """The pending steps up to and including the one that completes a stop."""
    kept: set[int] = set()
    for step in pending:
        if step.state is None:
            continue
        kept.add(step.seq)
        if step.state.get("status") == STOPPED:
            break
    return frozenset(kept)


def _stopped_at(pending: Sequence[Step]) -> datetime | None:
    return next((s.at for s in pending if s.state is not None and s.state.get("status") == STOPPED), None)


def _time(value: Any) -> datetime:
    parsed = _optional_time(value)
    if parsed is None:
        raise ValueError(f"not a timestamp: {value!r}")
    return parsed


def _optional_time(value: Any) -> datetime | None:
    if value is None:
        return None
    return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
