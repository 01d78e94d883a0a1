"""SQLite: ``json_extract`` / ``json_each`` on the JSON text column.

SQLite's JSON path matches an object key against its raw JSON text, so a key that is escaped
in the stored text (non-ASCII, ``"``, ``\\``, control characters) cannot be named in a path.
Such map keys are reached through ``json_each``, whose ``key`` column is unescaped. SQLite's
LIKE ignores ASCII case, so string tests use ``substr``/``instr`` instead.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Float,
    FromClause,
    Integer,
    Numeric,
    String,
    and_,
    case,
    cast,
    func,
    literal,
    select,
    type_coerce,
)

from osac.filters.dialect import JsonDialect
from osac.filters.nesting import MAX_SQL_NESTING_SQLITE
from osac.filters.operands import Source
from osac.filters.types import Encoding


def _is_path_safe(key: str) -> bool:
    return bool(key) and all(" " <= ch <= "~" and ch not in '"\\' for ch in key)


def _path(keys: tuple[str, ...]) -> str:
    return "$" + "".join(f'."{key}"' for key in keys)


class SqliteJson(JsonDialect):
    name = "sqlite"
    max_sql_nesting = MAX_SQL_NESTING_SQLITE
    overflow_propagates = True

    def _locate(self, source: Source, path: tuple[str, ...]) -> tuple[ColumnElement[Any], tuple[str, ...]]:
        """The document holding the rest of ``path``, after stepping over unsafe keys."""
        document = source.document
        start = 0
        for index, key in enumerate(path):
            if not _is_path_safe(key):
                entries = func.json_each(document, _path(path[start:index])).table_valued("key", "value")
                query = select(entries.c.value).where(entries.c.key == key).correlate_except(entries)
                document = query.scalar_subquery()
                start = index + 1
        return document, path[start:]

    def _raw(self, source: Source, path: tuple[str, ...]) -> ColumnElement[Any]:
        document, rest = self._locate(source, path)
        if not rest:
            # A scalar array element, or the value of an unsafe map key: a plain SQL value.
            return document
        return func.json_extract(document, _path(rest))

    def extract(self, source: Source, path: tuple[str, ...], encoding: Encoding) -> ColumnElement[Any]:
        raw = self._raw(source, path)
        if encoding is Encoding.TEXT:
            return type_coerce(raw, String())
        if encoding is Encoding.NUMBER:
            return type_coerce(raw, BigInteger())
        if encoding is Encoding.TEXT_INT:
            return cast(raw, BigInteger())
        if encoding is Encoding.TEXT_UINT:
            return cast(raw, Numeric())
        if encoding is Encoding.FLOAT:
            return cast(raw, Float())
        if encoding is Encoding.BOOL:
            return type_coerce(raw, Integer())
        raise ValueError(f"cannot extract {encoding} as a scalar")

    def zero(self, encoding: Encoding) -> ColumnElement[Any]:
        if encoding is Encoding.TEXT:
            return literal("", String())
        if encoding is Encoding.FLOAT:
            return literal(0.0, Float())
        return literal(0, BigInteger())

    def is_true(self, raw: ColumnElement[Any]) -> ColumnElement[bool]:
        return raw != 0

    def has_key(self, source: Source, path: tuple[str, ...]) -> ColumnElement[bool]:
        document, rest = self._locate(source, path)
        if not rest:
            return document.is_not(None)
        return func.json_type(document, _path(rest)).is_not(None)

    def _each(self, source: Source, path: tuple[str, ...]) -> FromClause:
        document, rest = self._locate(source, path)
        return func.json_each(document, _path(rest)).table_valued("key", "value")

    def array_elements(self, source: Source, path: tuple[str, ...]) -> tuple[FromClause, Source]:
        entries = self._each(source, path)
        return entries, Source(entries.c.value, is_element=True)

    def map_entries(
        self, source: Source, path: tuple[str, ...]
    ) -> tuple[FromClause, ColumnElement[str], Source]:
        entries = self._each(source, path)
        return entries, type_coerce(entries.c.key, String()), Source(entries.c.value, is_element=True)

    def array_length(self, source: Source, path: tuple[str, ...]) -> ColumnElement[int]:
        document, rest = self._locate(source, path)
        return func.coalesce(func.json_array_length(document, _path(rest)), 0, type_=BigInteger)

    def checked_int(self, value: ColumnElement[Any]) -> ColumnElement[Any]:
        # SQLite turns an overflowing integer result into a REAL. json_each(json_array(v)) names
        # the value once and tells its type, so the test does not repeat the expression. Clamping
        # first keeps an integer as it is and a REAL that grew to infinity (an overflow carried
        # through more arithmetic) finite, which json_array() needs.
        finite = func.max(func.min(value, literal(1e300, Float())), literal(-1e300, Float()))
        cell = func.json_each(func.json_array(finite)).table_valued("type", "value")
        query = (
            select(case((cell.c.type == "integer", cell.c.value))).select_from(cell).correlate_except(cell)
        )
        return type_coerce(query.scalar_subquery(), BigInteger())

    def starts_with(self, text: ColumnElement[str], prefix: ColumnElement[str] | str) -> ColumnElement[bool]:
        if isinstance(prefix, str):
            return func.substr(text, 1, len(prefix), type_=String) == prefix
        return func.substr(text, 1, func.length(prefix), type_=String) == prefix

    def ends_with(self, text: ColumnElement[str], suffix: ColumnElement[str] | str) -> ColumnElement[bool]:
        if isinstance(suffix, str):
            if not suffix:
                # True for any text and NULL for NULL: a missing value stays an error under ``!``.
                return func.length(text) >= 0
            return func.substr(text, -len(suffix), type_=String) == suffix
        # substr(x, -0) is the whole string, so count from the left instead.
        start = func.length(text) - func.length(suffix) + 1
        return and_(start >= 1, func.substr(text, start, type_=String) == suffix)

    def contains(self, text: ColumnElement[str], part: ColumnElement[str] | str) -> ColumnElement[bool]:
        return func.instr(text, part) > 0
