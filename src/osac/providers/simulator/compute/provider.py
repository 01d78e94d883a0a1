"""``SimulatedKubeVirt``: the built-in ``ComputeProvider`` (simulator.md §3.2, §5, §6).

Every call plans steps (``vm_plan``) in the VM's row and plan, one transaction each
(``vm_store``); every observation renders the plan at the clock's time (``vm_shapes``). A call
reads the clock once it holds the VM's row lock, so its plan starts after any plan another call
just committed. Nothing runs in the background: a VM advances because time passes, so the state
survives restarts and a second process on the same database observes the same VM.

Faults (target kind ``compute_instance``, target id = the instance id or ``*``):

``unreadable``      observations are ``readable=False``; the plan goes on underneath
``provision_fail``  ``apply_virtual_machine`` raises (``reason``, ``terminal``, ``times``)
``teardown_fail``   the next teardown halts before leaving ``stage`` (``Terminating`` or
                    ``DeletingVolumes``); while it holds, every later delete call raises
                    (``terminal``); once cleared, the next delete call resumes from that time
``vm_status``       forces ``status.printableStatus`` (``printable_status``); ``ready`` is false
                    unless the forced status is ``Running``; ``Paused`` adds the ``Paused``
                    conditions
``restart_fail``    a restart stops the VM and leaves it ``Stopped``
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection

from osac.providers.compute import RUN_ALWAYS, RUN_STRATEGIES, VirtualMachineObservation, VirtualMachineSpec
from osac.providers.interfaces import ChangeNotice, TerminalProviderError, TransientProviderError
from osac.providers.simulator.compute.plan import (
    IMMUTABLE_FIELDS,
    KIND,
    Planned,
    Planner,
    boot_hash,
    changed_fields,
    is_halted,
    plan_volumes,
    spec_to_json,
    state_of,
    teardown_stage,
)
from osac.providers.simulator.compute.shapes import render, vm_name
from osac.providers.simulator.compute.store import StoredVirtualMachine, VirtualMachineStore
from osac.providers.simulator.runtime import change_feed, object_faults, plan_steps
from osac.providers.simulator.runtime.context import SimulatorRuntime
from osac.providers.simulator.runtime.faults import ANY
from osac.providers.simulator.runtime.plan_steps import Step
from osac.providers.simulator.runtime.settings import ComputeSettings
from osac.providers.simulator.runtime.step_timing import StepTiming
from osac.providers.simulator.runtime.times import iso


class SimulatedKubeVirt:
    """The simulated compute provider; all simulated providers share ``runtime``."""

    def __init__(self, runtime: SimulatorRuntime, settings: ComputeSettings | None = None) -> None:
        self.runtime = runtime
        self.settings = settings or ComputeSettings()
        self.store = VirtualMachineStore(runtime.engine, reader=runtime.reader)
        self._wakeup = change_feed.Wakeup()
        runtime.follow_faults(KIND, self._fault_changed)

    @property
    def timing(self) -> StepTiming:
        return StepTiming(self.runtime.speed, self.runtime.seed, self.settings.jitter)

    # -- the contract ---------------------------------------------------------------------------

    async def apply_virtual_machine(self, instance_id: str, spec: VirtualMachineSpec) -> None:
        _validate(instance_id, spec)
        await object_faults.raise_if_failing(
            self.runtime.faults, "provision_fail", KIND, instance_id, f"apply of virtual machine {instance_id}")
        spec_json = spec_to_json(spec)

        async def work(conn: AsyncConnection, stored: StoredVirtualMachine | None, steps: list[Step]) -> bool:
            now = self.runtime.clock.now()
            state = state_of(plan_steps.current(steps, now))
            pending = plan_steps.future(steps, now)
            if stored is None or (state.is_gone and not any(s.state is not None for s in pending)):
                await self._create(conn, instance_id, spec, spec_json, stored, steps, now)
                return True
            if state.deleting_at is not None:
                raise TransientProviderError(
                    "VirtualMachineDeleting",
                    f"virtual machine {instance_id} is being deleted; apply it again once it is gone")
            if stored.spec_json == spec_json:
                return False
            fixed = [name for name in changed_fields(stored.spec_json, spec_json) if name in IMMUTABLE_FIELDS]
            if fixed:
                raise TerminalProviderError(
                    "ImmutableFieldChanged",
                    f"virtual machine {instance_id} cannot change {', '.join(fixed)} (its DataVolumes are "
                    "imported); delete and recreate it")
            planner = self._planner(stored, now, spec_json)
            rebooted = boot_hash(spec_json) != boot_hash(stored.spec_json)
            if spec.run_strategy != stored.record.spec.run_strategy:
                planned = self._run_strategy_plan(planner, stored, steps, spec.run_strategy)
            elif rebooted:
                planned = planner.rebase(pending, boot_hash(spec_json))
            else:
                planned = Planned(changed=False)
            values: dict[str, Any] = {"spec": spec_json, "generation": stored.record.generation + 1,
                                      "commands": stored.commands + 1}
            if rebooted:
                values["spec_changed_at"] = now
            await self._write(conn, stored, steps, now, planned, **values)
            return True

        await self._change(instance_id, work)

    async def set_run_strategy(self, instance_id: str, run_strategy: str) -> None:
        if run_strategy not in RUN_STRATEGIES:
            raise TerminalProviderError(
                "InvalidSpec", f"run strategy '{run_strategy}' is not one of {', '.join(RUN_STRATEGIES)}")

        async def work(conn: AsyncConnection, stored: StoredVirtualMachine | None, steps: list[Step]) -> bool:
            now = self.runtime.clock.now()
            stored = self._existing(instance_id, stored, steps, now)
            if stored.record.spec.run_strategy == run_strategy:
                return False
            spec_json = {**stored.spec_json, "run_strategy": run_strategy}
            planner = self._planner(stored, now, spec_json)
            planned = self._run_strategy_plan(planner, stored, steps, run_strategy)
            await self._write(conn, stored, steps, now, planned, spec=spec_json,
                              generation=stored.record.generation + 1, commands=stored.commands + 1)
            return True

        await self._change(instance_id, work)

    async def restart_virtual_machine(self, instance_id: str) -> None:
        fail = await object_faults.first_for(self.runtime.faults, "restart_fail", KIND, instance_id) is not None

        async def work(conn: AsyncConnection, stored: StoredVirtualMachine | None, steps: list[Step]) -> bool:
            now = self.runtime.clock.now()
            stored = self._existing(instance_id, stored, steps, now)
            if stored.record.spec.run_strategy != RUN_ALWAYS:
                raise TerminalProviderError(
                    "VirtualMachineHalted",
                    f"virtual machine {instance_id} has run strategy {stored.record.spec.run_strategy}; "
                    f"set it to {RUN_ALWAYS} to start it")
            planner = self._planner(stored, now, stored.spec_json)
            state = state_of(plan_steps.current(steps, now))
            planned = planner.restart(state, plan_steps.future(steps, now), fail=fail)
            await self._write(conn, stored, steps, now, planned, commands=stored.commands + 1)
            return planned.changed

        await self._change(instance_id, work)

    async def delete_virtual_machine(self, instance_id: str) -> None:
        fault = await object_faults.first_for(self.runtime.faults, "teardown_fail", KIND, instance_id)

        async def work(conn: AsyncConnection, stored: StoredVirtualMachine | None, steps: list[Step]) -> bool:
            now = self.runtime.clock.now()
            await self.store.purge_gone(conn, now)
            if stored is None:
                return False
            state = state_of(plan_steps.current(steps, now))
            pending = plan_steps.future(steps, now)
            if state.is_gone and not any(s.state is not None for s in pending):
                return False
            planner = self._planner(stored, now, stored.spec_json)
            if state.deleting_at is not None:
                if not is_halted(state, pending):
                    return False
                if fault is not None:
                    stage = "Terminating" if state.exists else "DeletingVolumes"
                    raise object_faults.provider_error(
                        fault, f"teardown of virtual machine {instance_id} is stuck at stage {stage}",
                        default_reason="TeardownFailed")
                planned, gone_at = planner.resume_delete(state)
            else:
                halt_at = None if fault is None else teardown_stage(fault.params.get("stage"))
                planned, gone_at = planner.delete(state, halt_at)
            await self._write(conn, stored, steps, now, planned, gone_at=gone_at, commands=stored.commands + 1)
            return True

        await self._change(instance_id, work)

    async def _change(
        self, instance_id: str,
        work: Callable[[AsyncConnection, StoredVirtualMachine | None, list[Step]], Awaitable[bool]],
    ) -> None:
        """Run ``work`` on the stored VM and its steps; the feeds scan for what it planned."""
        await self._wakeup.planned(self.runtime.clock.now(), self.store.change(instance_id, work))

    async def observe_virtual_machine(self, instance_id: str) -> VirtualMachineObservation:
        stored, steps = await self.store.read(instance_id)
        now = self.runtime.clock.now()
        next_change = plan_steps.next_change_at(steps, now)
        found = await object_faults.first_of_each(self.runtime.faults, ("unreadable", "vm_status"), KIND, instance_id)
        unreadable = found.get("unreadable")
        if unreadable is not None:
            return VirtualMachineObservation(
                readable=False, error=f"simulated: virtual machine {instance_id} cannot be read "
                f"(fault {unreadable.id})", observed_at=now, next_change_at=next_change)
        if stored is None:
            return VirtualMachineObservation(readable=True, error="", observed_at=now)
        forced = found.get("vm_status")
        rendered = render(stored.record, steps, now, self.runtime.seed,
                          None if forced is None else str(forced.params["printable_status"]))
        return VirtualMachineObservation(
            readable=True,
            error="",
            observed_at=now,
            virtual_machine=rendered.virtual_machine,
            virtual_machine_instance=rendered.virtual_machine_instance,
            data_volumes=rendered.data_volumes,
            next_change_at=next_change,
        )

    def subscribe(self, since: datetime | None = None) -> AsyncIterator[ChangeNotice]:
        return change_feed.follow(KIND, self.runtime.reader or self.runtime.engine, self.runtime.clock,
                                  self._wakeup, since, self.runtime.schedulers)

    async def _fault_changed(self, target_id: str) -> None:
        """A fault aimed at ``target_id`` (``*``: every VM) was created or cleared: it alters the
        next observation, so each affected VM gets a notice now."""
        ids = await self.store.instance_ids() if target_id == ANY else [target_id]
        self._wakeup.announce(ids, self.runtime.clock.now())

    # -- the admin API --------------------------------------------------------------------------

    async def observation_document(self, instance_id: str) -> dict[str, Any]:
        """The observation as ``Simulator.GetObservation(kind="compute_instance")`` returns it."""
        observation = await self.observe_virtual_machine(instance_id)
        document = asdict(observation)
        document["observed_at"] = iso(observation.observed_at)
        document["next_change_at"] = iso(observation.next_change_at)
        return document

    # -- internals ------------------------------------------------------------------------------

    def _planner(self, stored: StoredVirtualMachine, now: datetime, spec_json: Mapping[str, Any]) -> Planner:
        return Planner(now=now, timing=self.timing, ordinal=stored.record.ordinal, command=stored.commands,
                       incarnations=stored.incarnations, booted_with=boot_hash(spec_json))

    @staticmethod
    def _existing(instance_id: str, stored: StoredVirtualMachine | None, steps: list[Step],
                  now: datetime) -> StoredVirtualMachine:
        state = state_of(plan_steps.current(steps, now))
        if stored is None or state.is_gone:
            raise TransientProviderError(
                "VirtualMachineNotFound", f"virtual machine {instance_id} does not exist; apply it first")
        if state.deleting_at is not None:
            raise TransientProviderError("VirtualMachineDeleting", f"virtual machine {instance_id} is being deleted")
        return stored

    @staticmethod
    def _run_strategy_plan(planner: Planner, stored: StoredVirtualMachine, steps: Sequence[Step],
                           run_strategy: str) -> Planned:
        now = planner.now
        state = state_of(plan_steps.current(steps, now))
        pending = plan_steps.future(steps, now)
        ready_at = max(volume.done_at for volume in stored.record.volumes)
        if run_strategy == RUN_ALWAYS:
            return planner.run(state, pending, ready_at)
        return planner.halt(state, pending, ready_at)

    async def _create(self, conn: AsyncConnection, instance_id: str, spec: VirtualMachineSpec,
                      spec_json: dict[str, Any], stored: StoredVirtualMachine | None, steps: list[Step],
                      now: datetime) -> None:
        await self.store.purge_gone(conn, now)
        ordinal = stored.record.ordinal if stored is not None else await self.store.next_ordinal(conn)
        commands = stored.commands if stored is not None else 0
        incarnations = stored.incarnations if stored is not None else 0
        planner = Planner(now=now, timing=self.timing, ordinal=ordinal, command=commands,
                          incarnations=incarnations, booted_with=boot_hash(spec_json))
        volumes = plan_volumes(spec, vm_name(instance_id), now, self.timing, ordinal)
        planned = planner.create(volumes, spec.run_strategy == RUN_ALWAYS)
        if stored is None:
            await self.store.insert(conn, instance_id, ordinal, spec_json, volumes, now, planned.incarnations)
        else:
            await self.store.update(
                conn, instance_id, spec=spec_json, volumes=[v.to_json() for v in volumes], created_at=now,
                generation=1, incarnations=planned.incarnations, commands=commands + 1, spec_changed_at=None,
                gone_at=None)
        await plan_steps.replan(conn, KIND, instance_id, steps, now, planned.steps(), keep=planned.keeps)

    async def _write(self, conn: AsyncConnection, stored: StoredVirtualMachine, steps: list[Step], now: datetime,
                     planned: Planned, **values: Any) -> None:
        if planned.changed:
            await plan_steps.replan(conn, KIND, stored.record.instance_id, steps, now, planned.steps(),
                                    keep=planned.keeps)
            values.setdefault("incarnations", planned.incarnations)
        else:
            await plan_steps.prune(conn, KIND, stored.record.instance_id, steps, now)
        if values:
            await self.store.update(conn, stored.record.instance_id, **values)


def _validate(instance_id: str, spec: VirtualMachineSpec) -> None:
    problems = []
    if not instance_id:
        problems.append("instance id: required")
    for name in ("cores", "memory_gib", "boot_disk_gib"):
        if getattr(spec, name) < 1:
            problems.append(f"{name}: must be at least 1, got {getattr(spec, name)}")
    if spec.gpus < 0:
        problems.append(f"gpus: must not be negative, got {spec.gpus}")
    if any(size < 1 for size in spec.additional_disks):
        problems.append("additional_disks: every size must be at least 1 GiB")
    if spec.run_strategy not in RUN_STRATEGIES:
        problems.append(f"run_strategy: '{spec.run_strategy}' is not one of {', '.join(RUN_STRATEGIES)}")
    if not spec.image:
        problems.append("image: required")
    names = [i.name for i in spec.interfaces]
    if len(set(names)) != len(names):
        problems.append("interfaces: names must be unique")
    if problems:
        raise TerminalProviderError("InvalidSpec", f"virtual machine {instance_id}: {'; '.join(problems)}")
