"""Timestamps and durations as integer nanoseconds, and their storage text.

Filters fold every timestamp expression (``now - duration("1h")``) to a constant in Python and
compare it as text with the stored value. The text form mirrors ``osac.store.codec``: RFC 3339
UTC with exactly nine fractional digits, so that text order is time order.
"""

from __future__ import annotations

import re
from calendar import timegm
from datetime import UTC, datetime, timedelta
from fractions import Fraction

from osac.filters.errors import FilterError

NANOS = 10**9
#: CEL's timestamp range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z.
MIN_TIMESTAMP = timegm((1, 1, 1, 0, 0, 0)) * NANOS
MAX_TIMESTAMP = (timegm((9999, 12, 31, 23, 59, 59)) + 1) * NANOS - 1
#: CEL's duration range: about +-10000 years.
MAX_DURATION = 315_576_000_000 * NANOS

_TIMESTAMP = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))"
)
_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
_UNIT_NANOS = {
    "ns": 1,
    "us": 10**3,
    "µs": 10**3,
    "ms": 10**6,
    "s": NANOS,
    "m": 60 * NANOS,
    "h": 3600 * NANOS,
}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def parse_timestamp(text: str) -> int:
    """Nanoseconds since the epoch of an RFC 3339 timestamp such as ``2026-01-02T03:04:05Z``."""
    match = _TIMESTAMP.fullmatch(text)
    if match is None:
        raise FilterError(
            f'invalid timestamp "{text}": expected RFC 3339 such as "2026-01-02T03:04:05Z" '
            'or "2026-01-02T03:04:05.5+01:00"'
        )
    year, month, day, hour, minute, second = (int(g) for g in match.groups()[:6])
    try:
        datetime(year, month, day, hour, minute, second)
    except ValueError as error:
        raise FilterError(f'invalid timestamp "{text}": {error}') from None
    fraction = match.group(7) or ""
    nanos = int(fraction.ljust(9, "0")) if fraction else 0
    offset = 0
    if match.group(9):
        offset = (int(match.group(10)) * 60 + int(match.group(11))) * 60
        if match.group(9) == "-":
            offset = -offset
    seconds = timegm((year, month, day, hour, minute, second)) - offset
    return check_timestamp(seconds * NANOS + nanos)


def datetime_to_nanos(value: datetime) -> int:
    """Nanoseconds since the epoch of an aware datetime."""
    if value.tzinfo is None:
        raise ValueError("now must be a timezone-aware datetime")
    delta = value - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * NANOS + delta.microseconds * 1000


def parse_duration(text: str) -> int:
    """Nanoseconds of a CEL duration such as ``1h30m``, ``90s``, ``1.5h``, ``-250ms``."""
    body = text
    sign = 1
    if body[:1] in "+-" and body:
        sign = -1 if body[0] == "-" else 1
        body = body[1:]
    if body == "0":
        return 0
    total = Fraction(0)
    position = 0
    for match in _DURATION_PART.finditer(body):
        if match.start() != position:
            break
        total += Fraction(match.group(1)) * _UNIT_NANOS[match.group(2)]
        position = match.end()
    if not body or position != len(body):
        raise FilterError(
            f'invalid duration "{text}": expected a number with a unit (h, m, s, ms, us, ns) '
            'such as "1h30m", "90s" or "1.5h"'
        )
    return check_duration(sign * int(total))


def check_timestamp(nanos: int) -> int:
    if not MIN_TIMESTAMP <= nanos <= MAX_TIMESTAMP:
        raise FilterError("timestamp out of range (0001-01-01 to 9999-12-31)")
    return nanos


def check_duration(nanos: int) -> int:
    if not -MAX_DURATION <= nanos <= MAX_DURATION:
        raise FilterError("duration out of range (about 10000 years)")
    return nanos


def format_timestamp(nanos: int) -> str:
    """The storage text of a timestamp: ``YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`` in UTC."""
    seconds, fraction = divmod(nanos, NANOS)
    moment = _EPOCH + timedelta(seconds=seconds)
    return (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T"
        f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}.{fraction:09d}Z"
    )


#: The stored text of an unset Timestamp's zero value (the epoch).
ZERO_TIMESTAMP_TEXT = format_timestamp(0)
