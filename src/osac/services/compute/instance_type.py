"""InstanceType semantics (api.md §11.7).

A new instance type is usable: an omitted ``spec.state`` is stored as ACTIVE (only ACTIVE types
may be used by new ComputeInstances). Cores and memory are what the type sells, so they must be
positive; a GPU count cannot be negative.
"""

from __future__ import annotations

from typing import Any

from osac.api.private.v1 import instance_type_type_pb2 as instance_types
from osac.api.private.v1.instance_type_type_pb2 import InstanceType
from osac.services.core.behaviour import Behaviour, WriteContext
from osac.services.core.errors import InvalidArgument


class InstanceTypeBehaviour(Behaviour[InstanceType]):
    async def prepare(self, ctx: WriteContext, obj: InstanceType, stored: InstanceType | None) -> None:
        spec: Any = obj.spec
        if stored is None and spec.state == instance_types.INSTANCE_TYPE_STATE_UNSPECIFIED:
            spec.state = instance_types.INSTANCE_TYPE_STATE_ACTIVE
        if spec.cores <= 0:
            raise InvalidArgument(f"spec.cores: must be > 0, got {spec.cores}")
        if spec.memory_gib <= 0:
            raise InvalidArgument(f"spec.memory_gib: must be > 0, got {spec.memory_gib}")
        if spec.gpu.count < 0:
            raise InvalidArgument(f"spec.gpu.count: must be >= 0, got {spec.gpu.count}")


