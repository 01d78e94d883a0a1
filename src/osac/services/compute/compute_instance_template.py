"""ComputeInstanceTemplate semantics (api.md §11.7).

A template's defaults are copied into every ComputeInstance created from it, so they must be
valid there: the run strategy Always or Halted (stored in that spelling), a boot disk size that
is not negative; parameter definitions as for every template (``cluster_parameters``: named,
unique, of a known type, defaults of that type).
``spec_defaults.instance_type`` is a reference: it must name an existing InstanceType.
"""

from __future__ import annotations

from typing import Any

from osac.api.private.v1.compute_instance_template_type_pb2 import ComputeInstanceTemplate
from osac.services.clusters import parameters
from osac.services.compute import templates
from osac.services.core.behaviour import Behaviour, WriteContext
from osac.services.core.errors import InvalidArgument


class ComputeInstanceTemplateBehaviour(Behaviour[ComputeInstanceTemplate]):
    async def prepare(self, ctx: WriteContext, obj: ComputeInstanceTemplate, stored: ComputeInstanceTemplate | None) -> None:
        template: Any = obj
        parameters.validate_definitions(template.parameters)
        defaults = template.spec_defaults
        if defaults.run_strategy:
            defaults.run_strategy = templates.run_strategy("spec_defaults.run_strategy", defaults.run_strategy)
        if defaults.boot_disk.size_gib < 0:
            raise InvalidArgument(f"spec_defaults.boot_disk.size_gib: must be >= 0, got {defaults.boot_disk.size_gib}")


