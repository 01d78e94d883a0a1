"""CEL filters of List and Watch, translated to SQL (api.md §6, §7.2; docs/filters.md).

predicate = compile_filter(
    'this.status.state == SUBNET_STATE_READY', ObjectRoot(Subnet.DESCRIPTOR, subnets.c.data),
    dialect=engine.dialect.name, now=clock.now(),
)
select(subnets).where(tenancy, predicate)
"""

from osac.filters.compiler import compile_filter
from osac.filters.errors import FilterError
from osac.filters.roots import EventRoot, FilterRoot, ObjectRoot

__all__ = ["EventRoot", "FilterError", "FilterRoot", "ObjectRoot", "compile_filter"]
