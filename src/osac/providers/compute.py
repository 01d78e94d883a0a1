"""The compute provider (simulator.md §2.2): KubeVirt-like virtual machines.

A VM is named after its ComputeInstance id, so every call is idempotent on it: applying the same
spec twice changes nothing, deleting what is gone succeeds. The provider never chooses
addresses or MACs: ``VirtualMachineSpec.interfaces`` carries what the service's IPAM reserved,
and the VMI reports interface ``nic-<i>`` with exactly that address once the guest is up.

Observations are KubeVirt-shaped dicts (``compute.md`` §2.4 lists the fields the status
derivation reads); ``next_change_at`` tells the caller when the observation will change next
without any call, so a reconciler requeues at that moment instead of polling.

Errors: ``TransientProviderError`` (retry with backoff) and ``TerminalProviderError`` (recorded;
the instance becomes FAILED, or DELETE_FAILED while deleting), see ``interfaces.py``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from osac.providers.interfaces import ChangeNotice

RUN_ALWAYS = "Always"
RUN_HALTED = "Halted"
RUN_STRATEGIES = (RUN_ALWAYS, RUN_HALTED)


@dataclass(frozen=True)
class VirtualMachineInterface:
    """NIC ``name`` (``nic-<i>``, attachment i) plugged into the overlay of subnet ``segment``
    with the service-chosen ``mac`` and reserved ``address``."""

    name: str
    segment: str
    mac: str
    address: str


@dataclass(frozen=True)
class VirtualMachineSpec:
    """What the VM should be. ``image`` is the boot image reference (e.g. an OCI URL);
    ``additional_disks`` are sizes in GiB, one DataVolume each besides the boot disk.

    ``run_strategy`` and ``labels`` change without a reboot; any other change to a VM that has a
    running instance is reported as the VM condition ``RestartRequired`` until it restarts.
    ``image``, ``boot_disk_gib`` and ``additional_disks`` cannot change once the VM exists
    (their DataVolumes are already imported)."""

    cores: int
    memory_gib: int
    image: str
    boot_disk_gib: int
    gpus: int = 0
    additional_disks: tuple[int, ...] = ()
    run_strategy: str = RUN_ALWAYS
    user_data: str = ""
    ssh_public_key: str = ""
    interfaces: tuple[VirtualMachineInterface, ...] = ()
    labels: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class VirtualMachineObservation:
    """One look at a VM. ``readable=False`` means the provider could not read (``error`` says
    why): the objects are then unknown, which is different from ``virtual_machine=None`` (the VM
    does not exist). ``data_volumes`` may outlive the VM during teardown."""

    readable: bool
    error: str
    observed_at: datetime
    virtual_machine: dict[str, Any] | None = None
    virtual_machine_instance: dict[str, Any] | None = None
    data_volumes: list[dict[str, Any]] = field(default_factory=list)
    #: When the observation changes next by itself; None when nothing is in progress.
    next_change_at: datetime | None = None


class ComputeProvider(Protocol):
    """KubeVirt-like virtual machines, one per ComputeInstance id."""

    async def apply_virtual_machine(self, instance_id: str, spec: VirtualMachineSpec) -> None:
        """Create the VM and its DataVolumes, or update it to ``spec``.

        :raises TerminalProviderError: ``ImmutableFieldChanged`` (image or disks changed).
        :raises TransientProviderError: ``VirtualMachineDeleting`` (wait until it is gone).
        """
        ...

    async def set_run_strategy(self, instance_id: str, run_strategy: str) -> None:
        """``Always`` starts the VM, ``Halted`` stops it.

        :raises TransientProviderError: ``VirtualMachineNotFound``, ``VirtualMachineDeleting``.
        :raises TerminalProviderError: ``InvalidSpec`` (another run strategy).
        """
        ...

    async def restart_virtual_machine(self, instance_id: str) -> None:
        """Stop, then start again with a new VirtualMachineInstance (new ``metadata.uid``).

        :raises TransientProviderError: ``VirtualMachineNotFound``, ``VirtualMachineDeleting``.
        :raises TerminalProviderError: ``VirtualMachineHalted`` (run strategy ``Halted``).
        """
        ...

    async def delete_virtual_machine(self, instance_id: str) -> None:
        """Start removing the VM, its instance and its DataVolumes (observe until all are gone)."""
        ...

    async def observe_virtual_machine(self, instance_id: str) -> VirtualMachineObservation: ...

    def subscribe(self, since: datetime | None = None) -> AsyncIterator[ChangeNotice]:
        """A notice (kind ``compute_instance``, key = instance id) for every change that happens
        by itself, as its time passes, in time order; ``since`` (default: now) replays the
        changes after that time that are still recorded."""
        ...
