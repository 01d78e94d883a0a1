"""The simulated KubeVirt's progression (simulator.md §3.2) at ``instant`` on a fake clock: every
intermediate observation is visible by moving the clock to ``next_change_at``, and every
emitted dict has the documented shape."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from osac.clock import FakeClock
from osac.providers.compute import VirtualMachineObservation
from osac.providers.interfaces import TerminalProviderError, TransientProviderError
from osac.providers.simulator.compute.provider import SimulatedKubeVirt
from osac.providers.simulator.runtime.context import SimulatorRuntime
from tests.providers.compute_support import check_shape, vm_spec, walk

VM = "0192a0c4-7f00-7000-8000-000000000001"


@pytest.fixture
def kubevirt(runtime: SimulatorRuntime) -> SimulatedKubeVirt:
    return SimulatedKubeVirt(runtime)


async def settle(kubevirt: SimulatedKubeVirt, clock: FakeClock, instance: str = VM) -> list[VirtualMachineObservation]:
    seen = await walk(clock, lambda: kubevirt.observe_virtual_machine(instance), lambda o: o.next_change_at)
    for observation in seen:
        check_observation(observation)
    return seen


def check_observation(observation: VirtualMachineObservation) -> None:
    if observation.virtual_machine is not None:
        check_shape("virtual_machine", observation.virtual_machine)
    if observation.virtual_machine_instance is not None:
        check_shape("virtual_machine_instance", observation.virtual_machine_instance)
    for volume in observation.data_volumes:
        check_shape("data_volume", volume)


def status(observation: VirtualMachineObservation) -> str | None:
    vm = observation.virtual_machine
    return None if vm is None else vm["status"]["printableStatus"]


def vmi(observation: VirtualMachineObservation) -> dict[str, Any]:
    assert observation.virtual_machine_instance is not None
    return observation.virtual_machine_instance


def condition(document: dict[str, Any], kind: str) -> dict[str, Any] | None:
    return next((c for c in document["status"]["conditions"] if c["type"] == kind), None)


def phases(seen: list[VirtualMachineObservation]) -> list[str | None]:
    """The printable statuses in order, each once."""
    result: list[str | None] = []
    for observation in seen:
        if not result or result[-1] != status(observation):
            result.append(status(observation))
    return result


async def test_a_new_vm_imports_its_disks_then_starts_and_reports_its_addresses(
    kubevirt: SimulatedKubeVirt, clock: FakeClock
) -> None:
    created_at = clock.now()
    await kubevirt.apply_virtual_machine(VM, vm_spec())
    seen = await settle(kubevirt, clock)

    volumes = [[(d["metadata"]["name"], d["status"]["phase"], d["status"]["progress"]) for d in o.data_volumes]
               for o in seen[:5]]
    assert [v[0] for v in volumes] == [
        (f"ci-{VM}-boot", "ImportScheduled", "N/A"),
        (f"ci-{VM}-boot", "ImportInProgress", "25.00%"),
        (f"ci-{VM}-boot", "ImportInProgress", "50.00%"),
        (f"ci-{VM}-boot", "ImportInProgress", "75.00%"),
        (f"ci-{VM}-boot", "Succeeded", "100.0%"),
    ]
    assert [len(v) for v in volumes] == [3] * 5  # boot disk + 2 additional disks
    assert [status(o) for o in seen] == ["Provisioning"] * 4 + ["Starting", "Running", "Running"]
    assert [o.virtual_machine["status"]["ready"] for o in seen if o.virtual_machine] == [False] * 5 + [True, True]

    starting, running, addressed = seen[4], seen[5], seen[6]
    assert seen[3].virtual_machine_instance is None
    assert vmi(starting)["status"]["phase"] == "Scheduled" and vmi(starting)["status"]["interfaces"] == []
    assert vmi(starting)["metadata"]["creationTimestamp"] == starting.observed_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert vmi(running)["status"]["phase"] == "Running"
    assert [(i["name"], i["mac"], "ipAddress" in i) for i in vmi(running)["status"]["interfaces"]] == [
        ("nic-0", "02:00:0a:00:01:05", False), ("nic-1", "02:00:0a:00:02:05", False)]
    assert [(i["name"], i["ipAddress"]) for i in vmi(addressed)["status"]["interfaces"]] == [
        ("nic-0", "10.0.1.5"), ("nic-1", "10.0.2.5")]
    assert len({vmi(o)["metadata"]["uid"] for o in (starting, running, addressed)}) == 1
    assert condition(addressed.virtual_machine, "Ready")["status"] == "True"
    assert condition(addressed.virtual_machine, "RestartRequired") is None
    assert addressed.next_change_at is None

    vm = addressed.virtual_machine
    assert vm["metadata"]["name"] == f"ci-{VM}"
    assert vm["metadata"]["labels"] == {"osac.openshift.io/tenant": "acme"}
    assert vm["spec"]["runStrategy"] == "Always"
    assert vm["spec"]["template"]["spec"]["domain"]["cpu"] == {"cores": 2}
    assert vm["metadata"]["creationTimestamp"] == created_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    # every step is its own change, strictly later than the one before
    times = [o.observed_at for o in seen]
    assert times == sorted(set(times))


async def test_applying_the_same_spec_again_changes_nothing(kubevirt: SimulatedKubeVirt, clock: FakeClock) -> None:
    await kubevirt.apply_virtual_machine(VM, vm_spec())
    first = await kubevirt.observe_virtual_machine(VM)
    await kubevirt.apply_virtual_machine(VM, vm_spec())
    again = await kubevirt.observe_virtual_machine(VM)
    assert again == first
    settled = (await settle(kubevirt, clock))[-1]
    await kubevirt.apply_virtual_machine(VM, vm_spec())
    assert await kubevirt.observe_virtual_machine(VM) == settled


async def test_a_halted_vm_ends_stopped_without_an_instance(kubevirt: SimulatedKubeVirt, clock: FakeClock) -> None:
    await kubevirt.apply_virtual_machine(VM, vm_spec(run_strategy="Halted"))
    seen = await settle(kubevirt, clock)
    assert phases(seen) == ["Provisioning", "Stopped"]
    assert all(o.virtual_machine_instance is None for o in seen)
    assert condition(seen[-1].virtual_machine, "Ready")["reason"] == "VMINotExists"


async def test_stop_then_start(kubevirt: SimulatedKubeVirt, clock: FakeClock) -> None:
    await kubevirt.apply_virtual_machine(VM, vm_spec())
    running = (await settle(kubevirt, clock))[-1]

    await kubevirt.set_run_strategy(VM, "Halted")
    stopping = await settle(kubevirt, clock)
    assert [status(o) for o in stopping] == ["Stopping", "Stopped"]
    assert "deletionTimestamp" in vmi(stopping[0])["metadata"]
    assert stopping[0].virtual_machine["spec"]["runStrategy"] == "Halted"
    assert stopping[-1].virtual_machine_instance is None
    assert not stopping[-1].virtual_machine["status"]["ready"]
    await kubevirt.set_run_strategy(VM, "Halted")  # idempotent
    assert (await kubevirt.observe_virtual_machine(VM)).next_change_at is None

    await kubevirt.set_run_strategy(VM, "Always")
    started = await settle(kubevirt, clock)
    assert [status(o) for o in started] == ["Starting", "Running", "Running"]
    assert vmi(started[-1])["metadata"]["uid"] != vmi(running)["metadata"]["uid"]


async def test_stopping_while_the_disks_import_ends_stopped(kubevirt: SimulatedKubeVirt, clock: FakeClock) -> None:
    await kubevirt.apply_virtual_machine(VM, vm_spec())
    await kubevirt.set_run_strategy(VM, "Halted")
    assert phases(await settle(kubevirt, clock)) == ["Provisioning", "Stopped"]


async def test_restart_stops_and_starts_a_new_instance(kubevirt: SimulatedKubeVirt, clock: FakeClock) -> None:
    await kubevirt.apply_virtual_machine(VM, vm_spec())
    before = vmi((await settle(kubevirt, clock))[-1])
    restarted_at = clock.now()

    await kubevirt.restart_virtual_machine(VM)
    seen = await settle(kubevirt, clock)
    assert phases(seen) == ["Stopping", "Stopped", "Starting", "Running"]
    after = vmi(seen[-1])
    assert after["metadata"]["uid"] != before["metadata"]["uid"]
    assert after["metadata"]["creationTimestamp"] > restarted_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    assert seen[-1].virtual_machine["status"]["ready"] is True
    assert "ipAddress" in after["status"]["interfaces"][0]


async def test_a_restart_of_a_stopped_vm_starts_it(kubevirt: SimulatedKubeVirt, clock: FakeClock) -> None:
    await kubevirt.apply_virtual_machine(VM, vm_spec())
    await settle(kubevirt, clock)
    await kubevirt.set_run_strategy(VM, "Halted")
    await settle(kubevirt, clock)
    with pytest.raises(TerminalProviderError) as caught:
        await kubevirt.restart_virtual_machine(VM)
    assert caught.value.reason == "VirtualMachineHalted"


async def test_a_change_needing_a_reboot_is_reported_until_the_restart(
    kubevirt: SimulatedKubeVirt, clock: FakeClock
) -> None:
    await kubevirt.apply_virtual_machine(VM, vm_spec())
    await settle(kubevirt, clock)
    generation = (await kubevirt.observe_virtual_machine(VM)).virtual_machine["metadata"]["generation"]

    await kubevirt.apply_virtual_machine(VM, vm_spec(labels={"osac.openshift.io/tenant": "acme", "team": "a"}))
    relabelled = (await kubevirt.observe_virtual_machine(VM)).virtual_machine
    assert condition(relabelled, "RestartRequired") is None
    assert relabelled["metadata"]["labels"]["team"] == "a"

    await kubevirt.apply_virtual_machine(VM, vm_spec(cores=4, labels={"osac.openshift.io/tenant": "acme", "team": "a"}))
    changed = (await kubevirt.observe_virtual_machine(VM)).virtual_machine
    required = condition(changed, "RestartRequired")
    assert required is not None and required["status"] == "True" and required["reason"]
    assert changed["metadata"]["generation"] == generation + 2
    assert changed["spec"]["template"]["spec"]["domain"]["cpu"] == {"cores": 4}
    assert changed["status"]["printableStatus"] == "Running"

    await kubevirt.restart_virtual_machine(VM)
    assert condition((await settle(kubevirt, clock))[-1].virtual_machine, "RestartRequired") is None


async def test_a_spec_change_before_the_first_boot_needs_no_restart(
    kubevirt: SimulatedKubeVirt, clock: FakeClock
) -> None:
    await kubevirt.apply_virtual_machine(VM, vm_spec())
    await kubevirt.apply_virtual_machine(VM, vm_spec(memory_gib=8))
    settled = (await settle(kubevirt, clock))[-1]
    assert status(settled) == "Running"
    assert condition(settled.virtual_machine, "RestartRequired") is None


@pytest.mark.parametrize("change", [{"boot_disk_gib": 80}, {"image": "quay.io/other:1"}, {"additional_disks": (10,)}])
async def test_disks_and_image_cannot_change(kubevirt: SimulatedKubeVirt, change: dict[str, Any]) -> None:
    await kubevirt.apply_virtual_machine(VM, vm_spec())
    with pytest.raises(TerminalProviderError) as caught:
        await kubevirt.apply_virtual_machine(VM, vm_spec(**change))
    assert caught.value.reason == "ImmutableFieldChanged"
    assert next(iter(change)) in caught.value.message


async def test_delete_removes_the_vm_its_instance_and_its_volumes(kubevirt: SimulatedKubeVirt, clock: FakeClock) -> None:
    await kubevirt.apply_virtual_machine(VM, vm_spec())
    running = (await settle(kubevirt, clock))[-1]

    await kubevirt.delete_virtual_machine(VM)
    seen = await settle(kubevirt, clock)
    terminating, leftovers, gone = seen
    assert status(terminating) == "Terminating"
    assert "deletionTimestamp" in terminating.virtual_machine["metadata"]
    assert "deletionTimestamp" in vmi(terminating)["metadata"]
    assert (leftovers.virtual_machine, leftovers.virtual_machine_instance) == (None, None)
    assert len(leftovers.data_volumes) == 3
    assert (gone.virtual_machine, gone.virtual_machine_instance, gone.data_volumes) == (None, None, [])
    assert gone.readable and gone.next_change_at is None

    with pytest.raises(TransientProviderError) as caught:
        await kubevirt.set_run_strategy(VM, "Halted")
    assert caught.value.reason == "VirtualMachineNotFound"
    await kubevirt.delete_virtual_machine(VM)  # deleting what is gone succeeds
    await kubevirt.delete_virtual_machine("0192a0c4-7f00-7000-8000-00000000ffff")

    await kubevirt.apply_virtual_machine(VM, vm_spec())  # a new VM under the same id
    again = (await settle(kubevirt, clock))[-1]
    assert again.virtual_machine["metadata"]["uid"] != running.virtual_machine["metadata"]["uid"]
    assert status(again) == "Running"


async def test_calls_during_deletion_wait(kubevirt: SimulatedKubeVirt, clock: FakeClock) -> None:
    await kubevirt.apply_virtual_machine(VM, vm_spec())
    await kubevirt.delete_virtual_machine(VM)
    for call in (kubevirt.apply_virtual_machine(VM, vm_spec(cores=8)), kubevirt.restart_virtual_machine(VM),
                 kubevirt.set_run_strategy(VM, "Halted")):
        with pytest.raises(TransientProviderError) as caught:
            await call
        assert caught.value.reason == "VirtualMachineDeleting"
    await kubevirt.delete_virtual_machine(VM)  # a repeat changes nothing
    assert phases(await settle(kubevirt, clock)) == ["Terminating", None]


async def test_old_history_is_pruned_without_moving_transition_times(
    kubevirt: SimulatedKubeVirt, clock: FakeClock
) -> None:
    await kubevirt.apply_virtual_machine(VM, vm_spec())
    await settle(kubevirt, clock)
    await kubevirt.set_run_strategy(VM, "Halted")
    await settle(kubevirt, clock)
    await kubevirt.set_run_strategy(VM, "Always")
    running = (await settle(kubevirt, clock))[-1].virtual_machine
    assert running is not None
    ready_since = condition(running, "Ready")["lastTransitionTime"]
    recorded = len((await kubevirt.store.read(VM))[1])

    clock.advance(3 * 3600)
    await kubevirt.apply_virtual_machine(VM, vm_spec(labels={"team": "b"}))  # a write prunes old steps
    assert len((await kubevirt.store.read(VM))[1]) < recorded
    after = (await kubevirt.observe_virtual_machine(VM)).virtual_machine
    assert after is not None and condition(after, "Ready")["lastTransitionTime"] == ready_since
    assert after["status"]["printableStatus"] == "Running"


async def test_calls_on_an_unknown_vm_and_invalid_input(kubevirt: SimulatedKubeVirt) -> None:
    unknown = await kubevirt.observe_virtual_machine(VM)
    assert (unknown.readable, unknown.virtual_machine, unknown.data_volumes, unknown.next_change_at) == (
        True, None, [], None)
    for call in (kubevirt.restart_virtual_machine(VM), kubevirt.set_run_strategy(VM, "Always")):
        with pytest.raises(TransientProviderError) as caught:
            await call
        assert caught.value.reason == "VirtualMachineNotFound"
    with pytest.raises(TerminalProviderError, match="run strategy 'Sometimes'"):
        await kubevirt.set_run_strategy(VM, "Sometimes")
    with pytest.raises(TerminalProviderError) as invalid:
        await kubevirt.apply_virtual_machine(VM, replace(vm_spec(), cores=0, image=""))
    assert invalid.value.reason == "InvalidSpec"
    assert "cores: must be at least 1" in invalid.value.message and "image: required" in invalid.value.message
