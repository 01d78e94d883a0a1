"""PostgreSQL: ``#>`` / ``#>>`` paths on the JSONB column.

Paths are bound as ``text[]`` parameters, so map keys with ``/``, ``.``, ``,`` or quotes need no
escaping. String ordering uses ``COLLATE "C"`` (code point order, as CEL) whatever the database
collation. Constant string tests use LIKE with ``%``, ``_`` and ``\\`` escaped.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Float,
    FromClause,
    Numeric,
    String,
    Text,
    cast,
    collate,
    func,
    literal,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB

from osac.filters.dialect import JsonDialect
from osac.filters.nesting import MAX_SQL_NESTING_POSTGRESQL
from osac.filters.operands import Source
from osac.filters.types import Encoding

LIKE_ESCAPE = "\\"


def escape_like(text: str) -> str:
    """``text`` as a LIKE pattern matching itself only."""
    return (
        text.replace(LIKE_ESCAPE, LIKE_ESCAPE * 2)
        .replace("%", LIKE_ESCAPE + "%")
        .replace("_", LIKE_ESCAPE + "_")
    )


def _path(keys: tuple[str, ...]) -> ColumnElement[list[str]]:
    return literal(list(keys), ARRAY(Text()))


class PostgresqlJson(JsonDialect):
    name = "postgresql"
    max_sql_nesting = MAX_SQL_NESTING_POSTGRESQL

    def _json(self, source: Source, path: tuple[str, ...]) -> ColumnElement[Any]:
        if not path:
            return source.document
        return source.document.op("#>", return_type=JSONB())(_path(path))

    def _text(self, source: Source, path: tuple[str, ...]) -> ColumnElement[str]:
        return source.document.op("#>>", return_type=Text())(_path(path))

    def extract(self, source: Source, path: tuple[str, ...], encoding: Encoding) -> ColumnElement[Any]:
        text = self._text(source, path)
        if encoding in (Encoding.TEXT, Encoding.BOOL):
            return text
        if encoding in (Encoding.NUMBER, Encoding.TEXT_INT):
            return cast(text, BigInteger())
        if encoding is Encoding.TEXT_UINT:
            return cast(text, Numeric())
        if encoding is Encoding.FLOAT:
            return cast(text, Float())
        raise ValueError(f"cannot extract {encoding} as a scalar")

    def zero(self, encoding: Encoding) -> ColumnElement[Any]:
        if encoding is Encoding.TEXT:
            return literal("", String())
        if encoding is Encoding.BOOL:
            return literal("false", String())
        if encoding is Encoding.FLOAT:
            return literal(0.0, Float())
        return literal(0, BigInteger())

    def is_true(self, raw: ColumnElement[Any]) -> ColumnElement[bool]:
        return raw == "true"

    def has_key(self, source: Source, path: tuple[str, ...]) -> ColumnElement[bool]:
        return self._json(source, path).is_not(None)

    def array_elements(self, source: Source, path: tuple[str, ...]) -> tuple[FromClause, Source]:
        elements = func.jsonb_array_elements(self._json(source, path)).table_valued("value")
        return elements, Source(elements.c.value, is_element=True)

    def map_entries(
        self, source: Source, path: tuple[str, ...]
    ) -> tuple[FromClause, ColumnElement[str], Source]:
        entries = func.jsonb_each(self._json(source, path)).table_valued("key", "value")
        return entries, entries.c.key, Source(entries.c.value, is_element=True)

    def array_length(self, source: Source, path: tuple[str, ...]) -> ColumnElement[int]:
        return func.coalesce(func.jsonb_array_length(self._json(source, path)), 0, type_=BigInteger)

    def int_operand(self, value: ColumnElement[Any]) -> ColumnElement[Any]:
        # NUMERIC cannot overflow, so checked_int can turn an overflow into NULL instead of
        # PostgreSQL failing the whole query with "bigint out of range".
        return cast(value, Numeric())

    def int_quotient(self, dividend: ColumnElement[Any], divisor: ColumnElement[Any]) -> ColumnElement[Any]:
        return func.trunc(dividend.op("/", return_type=Numeric())(divisor), type_=Numeric)

    def checked_int(self, value: ColumnElement[Any]) -> ColumnElement[Any]:
        low, high = literal(-(2**63) - 1, Numeric()), literal(2**63, Numeric())
        clamped = func.least(func.greatest(value, low), high, type_=Numeric)
        return func.nullif(func.nullif(clamped, low), high, type_=Numeric)

    def starts_with(self, text: ColumnElement[str], prefix: ColumnElement[str] | str) -> ColumnElement[bool]:
        if isinstance(prefix, str):
            return text.like(escape_like(prefix) + "%", escape=LIKE_ESCAPE)
        return func.starts_with(text, prefix)

    def ends_with(self, text: ColumnElement[str], suffix: ColumnElement[str] | str) -> ColumnElement[bool]:
        if isinstance(suffix, str):
            return text.like("%" + escape_like(suffix), escape=LIKE_ESCAPE)
        return func.right(text, func.length(suffix)) == suffix

    def contains(self, text: ColumnElement[str], part: ColumnElement[str] | str) -> ColumnElement[bool]:
        if isinstance(part, str):
            return text.like("%" + escape_like(part) + "%", escape=LIKE_ESCAPE)
        return func.strpos(text, part) > 0

    def ordered(self, text: ColumnElement[str]) -> ColumnElement[str]:
        return collate(text, "C")
