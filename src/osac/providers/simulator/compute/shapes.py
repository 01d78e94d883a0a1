"""KubeVirt-shaped dicts of a simulated VM at one moment (simulator.md §3.2, compute.md §2.4).

``render`` is a pure function of the VM's row, its plan and the time, plus the ``vm_status``
fault when one forces the printable status. The dicts carry what the real objects carry for the
fields the status derivation reads (``status.printableStatus``, ``status.ready``,
``status.conditions``, the VMI's uid, creation time, phase, conditions and interfaces, each
DataVolume's phase and progress), in Kubernetes conventions: JSON-compatible values only, empty
optional fields omitted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from osac.providers.compute import VirtualMachineSpec
from osac.providers.simulator.compute.plan import (
    INTERFACES_ADDRESSED,
    INTERFACES_NONE,
    KIND,
    RUNNING,
    InstanceState,
    MachineState,
    VolumePlan,
    boot_hash,
    spec_to_json,
    state_of,
)
from osac.providers.simulator.runtime import plan_steps
from osac.providers.simulator.runtime.plan_steps import Step
from osac.providers.simulator.runtime.step_timing import stable_uid
from osac.providers.simulator.runtime.times import iso

NAMESPACE = "osac-simulated"
NODE_NAME = "sim-node-1"
VM_API = "kubevirt.io/v1"
CDI_API = "cdi.kubevirt.io/v1beta1"
PAUSED = "Paused"
RESTART_REQUIRED_REASON = "NonLiveUpdatableFieldsChanged"


def vm_name(instance_id: str) -> str:
    return f"ci-{instance_id}"


@dataclass(frozen=True)
class VirtualMachineRecord:
    """The stored facts of one VM that are not in its plan."""

    instance_id: str
    ordinal: int
    spec: VirtualMachineSpec
    volumes: tuple[VolumePlan, ...]
    created_at: datetime
    generation: int
    spec_changed_at: datetime | None


@dataclass(frozen=True)
class Rendered:
    virtual_machine: dict[str, Any] | None
    virtual_machine_instance: dict[str, Any] | None
    data_volumes: list[dict[str, Any]]


def render(record: VirtualMachineRecord, steps: Sequence[Step], now: datetime, seed: int,
           forced_status: str | None = None) -> Rendered:
    state = state_of(plan_steps.current(steps, now))
    if state.is_gone:
        return Rendered(None, None, [])
    name = vm_name(record.instance_id)
    status = forced_status or state.status
    ready = state.ready and status == RUNNING
    instance = state.instance if state.exists else None
    vm = None
    if state.exists:
        ready_since = plan_steps.last_change(steps, now, lambda s: bool(s.get("ready"))) or record.created_at
        vm = _virtual_machine(record, state, name, status, ready, ready_since, now, seed)
    vmi = None if instance is None else _instance(record, instance, name, ready, status == PAUSED, now)
    volumes = [_data_volume(volume, name, now) for volume in record.volumes] if state.volumes else []
    return Rendered(vm, vmi, volumes)


def _virtual_machine(record: VirtualMachineRecord, state: MachineState, name: str, status: str, ready: bool,
                     ready_since: datetime, now: datetime, seed: int) -> dict[str, Any]:
    spec = record.spec
    metadata: dict[str, Any] = {
        "name": name,
        "namespace": NAMESPACE,
        "uid": stable_uid(seed, KIND, record.ordinal, "vm", iso(record.created_at)),
        "creationTimestamp": iso(record.created_at),
        "generation": record.generation,
        "labels": dict(spec.labels),
    }
    if state.deleting_at is not None:
        metadata["deletionTimestamp"] = iso(state.deleting_at)
    conditions = [_ready_condition(ready, status, state, ready_since)]
    if status == PAUSED:
        conditions.append(_condition(PAUSED, True, "PausedByUser", "the virtual machine is paused", now))
    instance = state.instance
    if instance is not None and instance.is_live and instance.booted_with != boot_hash(spec_to_json(spec)):
        changed_at = record.spec_changed_at or now
        conditions.append(_condition(
            "RestartRequired", True, RESTART_REQUIRED_REASON,
            "a non-live-updatable field was changed in the template spec", changed_at))
    return {
        "apiVersion": VM_API,
        "kind": "VirtualMachine",
        "metadata": metadata,
        "spec": _vm_spec(spec, name, record.volumes),
        "status": {
            "printableStatus": status,
            "ready": ready,
            "created": instance is not None,
            "observedGeneration": record.generation,
            "conditions": conditions,
        },
    }


def _ready_condition(ready: bool, status: str, state: MachineState, since: datetime) -> dict[str, Any]:
    if ready:
        return _condition("Ready", True, "", "", since)
    if state.instance is None:
        return _condition("Ready", False, "VMINotExists", "VMI does not exist", since)
    return _condition("Ready", False, status or "NotReady", f"the virtual machine is {status or 'not ready'}", since)


def _vm_spec(spec: VirtualMachineSpec, name: str, volumes: Sequence[VolumePlan]) -> dict[str, Any]:
    disks = [{"name": f"disk-{index}", "disk": {"bus": "virtio"}} for index in range(len(volumes))]
    pod_volumes: list[dict[str, Any]] = [
        {"name": f"disk-{index}", "dataVolume": {"name": volume.name}} for index, volume in enumerate(volumes)
    ]
    if spec.user_data:
        disks.append({"name": "cloudinit", "disk": {"bus": "virtio"}})
        pod_volumes.append({"name": "cloudinit", "cloudInitNoCloud": {"userData": spec.user_data}})
    devices: dict[str, Any] = {
        "disks": disks,
        "interfaces": [{"name": i.name, "macAddress": i.mac, "bridge": {}} for i in spec.interfaces],
    }
    if spec.gpus:
        devices["gpus"] = [{"name": f"gpu-{index}", "deviceName": "nvidia.com/GPU"} for index in range(spec.gpus)]
    template_spec: dict[str, Any] = {
        "domain": {"cpu": {"cores": spec.cores}, "memory": {"guest": f"{spec.memory_gib}Gi"}, "devices": devices},
        "networks": [{"name": i.name, "multus": {"networkName": i.segment}} for i in spec.interfaces],
        "volumes": pod_volumes,
    }
    if spec.ssh_public_key:
        template_spec["accessCredentials"] = [{"sshPublicKey": {
            "source": {"secret": {"secretName": f"{name}-ssh"}}, "propagationMethod": {"noCloud": {}}}}]
    return {
        "runStrategy": spec.run_strategy,
        "dataVolumeTemplates": [
            {"metadata": {"name": volume.name}, "spec": _volume_spec(volume)} for volume in volumes
        ],
        "template": {"metadata": {"labels": dict(spec.labels)}, "spec": template_spec},
    }


def _instance(record: VirtualMachineRecord, instance: InstanceState, name: str, ready: bool, paused: bool,
              now: datetime) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "name": name,
        "namespace": NAMESPACE,
        "uid": instance.uid,
        "creationTimestamp": iso(instance.created_at),
        "labels": dict(record.spec.labels),
    }
    if instance.deleting_at is not None:
        metadata["deletionTimestamp"] = iso(instance.deleting_at)
    conditions = [_condition("Ready", ready and not paused, "" if ready and not paused else "NotReady", "",
                             instance.created_at)]
    if paused:
        conditions.append(_condition(PAUSED, True, "PausedByUser", "the virtual machine is paused", now))
    interfaces: list[dict[str, Any]] = []
    if instance.interfaces != INTERFACES_NONE:
        for index, spec_interface in enumerate(record.spec.interfaces):
            item: dict[str, Any] = {"name": spec_interface.name, "mac": spec_interface.mac,
                                    "interfaceName": f"eth{index}"}
            if instance.interfaces == INTERFACES_ADDRESSED:
                item["ipAddress"] = spec_interface.address
                item["ipAddresses"] = [spec_interface.address]
            interfaces.append(item)
    return {
        "apiVersion": VM_API,
        "kind": "VirtualMachineInstance",
        "metadata": metadata,
        "status": {"phase": instance.phase, "nodeName": NODE_NAME, "conditions": conditions,
                   "interfaces": interfaces},
    }


def _volume_spec(volume: VolumePlan) -> dict[str, Any]:
    source: dict[str, Any] = {"registry": {"url": volume.source}} if volume.source else {"blank": {}}
    return {"source": source, "storage": {"resources": {"requests": {"storage": f"{volume.size_gib}Gi"}}}}


def _data_volume(volume: VolumePlan, owner: str, now: datetime) -> dict[str, Any]:
    phase, progress = volume.progress(now)
    return {
        "apiVersion": CDI_API,
        "kind": "DataVolume",
        "metadata": {
            "name": volume.name,
            "namespace": NAMESPACE,
            "creationTimestamp": iso(volume.started_at),
            "ownerReferences": [{"apiVersion": VM_API, "kind": "VirtualMachine", "name": owner}],
        },
        "spec": _volume_spec(volume),
        "status": {"phase": phase, "progress": progress},
    }


def _condition(kind: str, status: bool, reason: str, message: str, since: datetime) -> dict[str, Any]:
    return {"type": kind, "status": "True" if status else "False", "reason": reason, "message": message,
            "lastTransitionTime": iso(since)}
