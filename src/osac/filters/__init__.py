"""CEL filters of List and Watch, translated to SQL (api.md §6, §7.2; docs/filters.md).

predicate = compile_filter(
    'this.status.state == SUBNET_STATE_READY', ObjectRoot(Subnet.DESCRIPTOR, subnets.c.data),
    dialect=engine.dialect.name, now=clock.now(),
)
select(subnets).where(tenancy, predicate)
"""

from osac.filters.compiler import compile_filter, json_dialect
from osac.filters.errors import FilterError
from osac.filters.operands import Source
from osac.filters.payload_kinds import payload_kinds
from osac.filters.roots import EventRoot, FilterRoot, ObjectRoot
from osac.filters.types import Encoding

__all__ = [
    "Encoding",
    "EventRoot",
    "FilterError",
    "FilterRoot",
    "ObjectRoot",
    "Source",
    "compile_filter",
    "json_dialect",
    "payload_kinds",
]
