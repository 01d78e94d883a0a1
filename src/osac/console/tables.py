"""The list views' query string: filters, sort, page and page size, all bookmarkable.

``?name=web&state=READY&tenant=acme&sort=name&dir=desc&page=2&per_page=20``. Filters become the
API's CEL filter, so the database does the filtering. Name, creation and state sort through the
API's List ``order`` (``pages.DATABASE_ORDERS``), so those views page in the database; sorting by
a column the API cannot order by (tenant, a cluster's stage or health, addresses) reads every
matching object in pages of ``READ_PAGE`` and sorts them here (documented in docs/console.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from urllib.parse import urlencode

from osac.services.core.errors import InvalidArgument

PER_PAGE_CHOICES = (10, 20, 50, 100)
DEFAULT_PER_PAGE = 20
READ_PAGE = 1000
CREATED = "created"


@dataclass(frozen=True)
class TableQuery:
    sort: str = CREATED
    descending: bool = False
    page: int = 1
    per_page: int = DEFAULT_PER_PAGE
    filters: Mapping[str, str] = field(default_factory=dict)

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.per_page

    def link(self, *, sort: str | None = None, descending: bool | None = None, page: int | None = None,
             per_page: int | None = None, **filter_changes: object) -> str:
        """This view's query string with the changes given (``page``, ``sort``, ``descending``,
        ``per_page``, a filter; a filter given None or "" is removed)."""
        filters = dict(self.filters)
        for key, value in filter_changes.items():
            if value in (None, ""):
                filters.pop(key, None)
            else:
                filters[key] = str(value)
        query = replace(
            self, filters=filters, sort=self.sort if sort is None else sort,
            descending=self.descending if descending is None else descending,
            page=self.page if page is None else page,
            per_page=self.per_page if per_page is None else per_page,
        )
        params: dict[str, str] = {k: v for k, v in sorted(query.filters.items()) if v}
        if query.sort != CREATED:
            params["sort"] = query.sort
        if query.descending:
            params["dir"] = "desc"
        if query.page != 1:
            params["page"] = str(query.page)
        if query.per_page != DEFAULT_PER_PAGE:
            params["per_page"] = str(query.per_page)
        return "?" + urlencode(params) if params else "?"

    def sort_link(self, column: str) -> str:
        descending = not self.descending if column == self.sort else False
        return self.link(sort=column, descending=descending, page=1)


def parse_query(params: Mapping[str, str], sorts: Sequence[str], filter_names: Sequence[str]) -> TableQuery:
    """The query of a list view. :raises InvalidArgument: naming the parameter and what is accepted."""
    sort = params.get("sort", CREATED) or CREATED
    if sort not in sorts:
        raise InvalidArgument(f"sort: '{sort}' is not a column of this list; use one of {', '.join(sorts)}")
    direction = params.get("dir", "asc") or "asc"
    if direction not in ("asc", "desc"):
        raise InvalidArgument(f"dir: '{direction}' is not a direction; use asc or desc")
    page = _positive(params, "page", 1)
    per_page = _positive(params, "per_page", DEFAULT_PER_PAGE)
    if per_page not in PER_PAGE_CHOICES:
        raise InvalidArgument(f"per_page: {per_page} is not offered; use one of "
                              f"{', '.join(str(n) for n in PER_PAGE_CHOICES)}")
    filters = {name: params[name].strip() for name in filter_names if params.get(name, "").strip()}
    return TableQuery(sort, direction == "desc", page, per_page, filters)


def _positive(params: Mapping[str, str], name: str, default: int) -> int:
    text = params.get(name, "") or str(default)
    if not text.isdigit() or int(text) < 1:
        raise InvalidArgument(f"{name}: '{text}' is not a positive whole number")
    return int(text)


def cel_string(value: str) -> str:
    """``value`` as a CEL string literal."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


@dataclass(frozen=True)
class Pagination:
    page: int
    per_page: int
    total: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))

    @property
    def first(self) -> int:
        return 0 if self.total == 0 else (self.page - 1) * self.per_page + 1

    @property
    def last(self) -> int:
        return min(self.total, self.page * self.per_page)
