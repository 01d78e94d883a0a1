"""JSON access and string tests in SQL, per database.

``JsonDialect`` is everything the compiler needs from a database; ``sqlite.py`` and
``postgresql.py`` implement it. Extraction returns NULL for a missing key; the compiler decides
whether that means the zero value (COALESCE) or an error (a missing map key).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    FromClause,
    String,
    exists,
    func,
    literal,
    literal_column,
    select,
)

from osac.filters.operands import Source
from osac.filters.types import Encoding


class JsonDialect(ABC):
    name: str
    #: The deepest SQL nesting (``nesting.sql_nesting``) a compiled filter may have.
    max_sql_nesting: int

    @abstractmethod
    def extract(self, source: Source, path: tuple[str, ...], encoding: Encoding) -> ColumnElement[Any]:
        """The scalar at ``path``, typed by ``encoding``; NULL when absent.

        Booleans come back in the dialect's raw form; turn them into a predicate with
        ``is_true``.
        """

    @abstractmethod
    def zero(self, encoding: Encoding) -> ColumnElement[Any]:
        """The raw zero value of an encoding, to COALESCE a missing key with."""

    @abstractmethod
    def is_true(self, raw: ColumnElement[Any]) -> ColumnElement[bool]:
        """A predicate from a raw boolean returned by ``extract``."""

    @abstractmethod
    def has_key(self, source: Source, path: tuple[str, ...]) -> ColumnElement[bool]:
        """Whether ``path`` is present (proto3 JSON omits zero values, so: set / non-zero)."""

    @abstractmethod
    def array_elements(self, source: Source, path: tuple[str, ...]) -> tuple[FromClause, Source]:
        """A FROM item with one row per element of the array at ``path``, and the element."""

    @abstractmethod
    def map_entries(
        self, source: Source, path: tuple[str, ...]
    ) -> tuple[FromClause, ColumnElement[str], Source]:
        """A FROM item with one row per entry of the object at ``path``: key text, value."""

    @abstractmethod
    def array_length(self, source: Source, path: tuple[str, ...]) -> ColumnElement[int]:
        """Number of elements of the array at ``path`` (0 when absent)."""

    @abstractmethod
    def starts_with(self, text: ColumnElement[str], prefix: ColumnElement[str] | str) -> ColumnElement[bool]:
        """Case-sensitive prefix test; a constant prefix is matched literally (no wildcards)."""

    @abstractmethod
    def ends_with(self, text: ColumnElement[str], suffix: ColumnElement[str] | str) -> ColumnElement[bool]:
        """Case-sensitive suffix test."""

    @abstractmethod
    def contains(self, text: ColumnElement[str], part: ColumnElement[str] | str) -> ColumnElement[bool]:
        """Case-sensitive substring test."""

    def ordered(self, text: ColumnElement[str]) -> ColumnElement[str]:
        """``text`` in code point order, for ``<``-style comparisons of strings and timestamps."""
        return text

    def int_operand(self, value: ColumnElement[Any]) -> ColumnElement[Any]:
        """An integer as computed with, so that an overflow can be detected instead of raised."""
        return value

    def int_quotient(self, dividend: ColumnElement[Any], divisor: ColumnElement[Any]) -> ColumnElement[Any]:
        """Integer division truncating toward zero (CEL, C)."""
        return dividend.op("/", return_type=BigInteger())(divisor)

    #: Whether an integer overflow stays visible through later ``+ - * /`` (SQLite turns it
    #: into a REAL, which every later operator keeps), so that one ``checked_int`` at the end
    #: of an arithmetic expression detects an overflow anywhere in it.
    overflow_propagates: bool = False

    @abstractmethod
    def checked_int(self, value: ColumnElement[Any]) -> ColumnElement[Any]:
        """``value`` if it fits in int64, else NULL: CEL's overflow error, without repeating
        ``value`` (clamp it to just outside the range, then NULLIF the bounds)."""

    def string_length(self, text: ColumnElement[str]) -> ColumnElement[int]:
        return func.length(text, type_=BigInteger)

    @staticmethod
    def text_literal(value: str) -> ColumnElement[str]:
        return literal(value, String())


def rows_exist(rows: FromClause, condition: ColumnElement[bool]) -> ColumnElement[bool]:
    """``EXISTS (SELECT 1 FROM rows WHERE condition)``, correlated to every enclosing query.

    SQLAlchemy's automatic correlation looks only at the directly enclosing SELECT, so a
    comprehension nested in another would otherwise re-join the outer table.
    """
    return exists(select(literal_column("1")).select_from(rows).where(condition).correlate_except(rows))


def count_rows(rows: FromClause) -> ColumnElement[int]:
    """``(SELECT count(1) FROM rows)``, correlated like ``rows_exist``."""
    query = select(func.count(literal_column("1"))).select_from(rows).correlate_except(rows)
    return query.scalar_subquery()
