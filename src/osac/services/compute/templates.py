"""What a ComputeInstance takes from its template and instance type (api.md §11.7, §11.8).

The template is required. Its ``spec_defaults`` fill the fields the request left empty (image,
boot disk, run strategy, instance type, Windows flag) and its parameter definitions validate and
default ``spec.template_parameters`` (the rules every template shares, ``cluster_parameters``).
What is filled is stored in the spec, so Get shows exactly what was provisioned and later
template edits never change existing instances. The instance type, given or defaulted, must
exist and be ACTIVE.

``is_windows`` is a plain bool: a template default of true cannot be overridden with false.
"""

from __future__ import annotations

from typing import Any

from osac.api.private.v1 import instance_type_type_pb2 as instance_types
from osac.api.private.v1.compute_instance_template_type_pb2 import ComputeInstanceTemplate
from osac.api.private.v1.instance_type_type_pb2 import InstanceType
from osac.model import registry
from osac.model.shape import as_kind
from osac.services.clusters import parameters
from osac.services.core.errors import FailedPrecondition, InvalidArgument
from osac.services.networking import gates
from osac.store.objects import Tx, object_label

ALWAYS = "Always"
HALTED = "Halted"
RUN_STRATEGIES = (ALWAYS, HALTED)


def run_strategy(path: str, value: str) -> str:
    """The canonical spelling of a run strategy (``always`` → ``Always``).

    :raises InvalidArgument: anything but Always or Halted.
    """
    for strategy in RUN_STRATEGIES:
        if value.lower() == strategy.lower():
            return strategy
    raise InvalidArgument(f"{path}: '{value}' is not a run strategy; use {' or '.join(RUN_STRATEGIES)}")


async def apply_template(tx: Tx, spec: Any) -> None:
    """Fill ``spec`` from its template and check the instance type (create only).

    :raises InvalidArgument: no template; unknown or ill-typed parameters; no instance type;
        a bad run strategy or disk size.
    :raises FailedPrecondition: the instance type is not ACTIVE.
    """
    if not spec.template:
        raise InvalidArgument("spec.template: required; name a ComputeInstanceTemplate")
    template_kind = registry.get("compute_instance_template")
    template = as_kind(await gates.load(tx, template_kind, spec.template), ComputeInstanceTemplate)
    label = object_label(template_kind, template)
    defaults: Any = template.spec_defaults
    resolved = parameters.apply_to_cluster(
        spec.template_parameters, template.parameters, label, "spec.template_parameters"
    )
    for name, value in resolved.items():
        if name not in spec.template_parameters:
            spec.template_parameters[name].CopyFrom(value)
    if not (spec.image.source_type or spec.image.source_ref) and defaults.HasField("image"):
        spec.image.CopyFrom(defaults.image)
    if not spec.boot_disk.size_gib and defaults.boot_disk.size_gib:
        spec.boot_disk.CopyFrom(defaults.boot_disk)
    spec.run_strategy = run_strategy("spec.run_strategy", spec.run_strategy or defaults.run_strategy or ALWAYS)
    spec.is_windows = spec.is_windows or defaults.is_windows
    if not spec.instance_type:
        if not defaults.instance_type:
            raise InvalidArgument(f"spec.instance_type: required; {label} has no default instance type")
        spec.instance_type = defaults.instance_type
    check_disks(spec)
    await require_active_instance_type(tx, spec.instance_type)


def check_disks(spec: Any) -> None:
    """Disk sizes are whole GiB: the boot disk >= 0 (0 = the image's own size), others > 0."""
    if spec.boot_disk.size_gib < 0:
        raise InvalidArgument(f"spec.boot_disk.size_gib: must be >= 0, got {spec.boot_disk.size_gib}")
    for index, disk in enumerate(spec.additional_disks):
        if disk.size_gib <= 0:
            raise InvalidArgument(f"spec.additional_disks[{index}].size_gib: must be > 0, got {disk.size_gib}")


async def require_active_instance_type(tx: Tx, instance_type_id: str) -> None:
    """:raises FailedPrecondition: ``InstanceType 'large' is DEPRECATED; new instances need an
    ACTIVE instance type`` (with the suggested replacement when the type names one)."""
    kind = registry.get("instance_type")
    instance_type = as_kind(await gates.load(tx, kind, instance_type_id), InstanceType)
    spec: Any = instance_type.spec
    if spec.state == instance_types.INSTANCE_TYPE_STATE_ACTIVE:
        return
    value = instance_types.InstanceTypeState.DESCRIPTOR.values_by_number.get(spec.state)
    state = value.name.removeprefix("INSTANCE_TYPE_STATE_") if value is not None else str(spec.state)
    hint = f" such as '{spec.deprecation.replacement}'" if spec.deprecation.replacement else ""
    raise FailedPrecondition(
        f"{object_label(kind, instance_type)} is {state}; new instances need an ACTIVE instance type{hint}"
    )
