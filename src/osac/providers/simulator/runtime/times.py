"""Timestamps in the simulator's tables.

SQLite stores ``DateTime(timezone=True)`` as naive text and returns naive values, so every value
is written in UTC and read back as UTC; PostgreSQL keeps the zone. Observations carry RFC 3339
text (``2026-11-30T01:40:54.123000Z``), which is what a ``google.protobuf.Struct`` can hold.
"""

from __future__ import annotations

from datetime import UTC, datetime


def to_db(value: datetime) -> datetime:
    """An aware datetime as UTC, for a bind parameter (naive input is taken as UTC)."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def from_db(value: datetime) -> datetime:
    """A datetime read from the database, aware and in UTC."""
    return to_db(value)


def iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    return to_db(value).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
