"""Pure pieces: literals, times, the storage text of timestamps, and the test oracle itself."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from celpy import celtypes

from osac.filters import FilterError
from osac.filters.literals import decode_int, decode_string
from osac.filters.postgresql import escape_like
from osac.filters.times import (
    ZERO_TIMESTAMP_TEXT,
    datetime_to_nanos,
    format_timestamp,
    parse_duration,
    parse_timestamp,
)
from osac.store import codec

from .expressions import FIXED
from .oracle import ERROR, evaluate
from .schema import load
from .test_oracle import corpus, oracle_ids


@pytest.mark.parametrize(
    ("token", "value"),
    [
        ("'abc'", "abc"),
        ('"a\\"b"', 'a"b'),
        ("'\\\\'", "\\"),
        ("'\\n\\t'", "\n\t"),
        ("'\\x41\\u00e9\\U0001F600\\101'", "Aé😀A"),
        ("r'\\d+'", "\\d+"),
        ("'''multi\nline'''", "multi\nline"),
        ("'ünï'", "ünï"),
    ],
    ids=[
        "plain",
        "escaped quote",
        "backslash",
        "control",
        "hex, unicode, octal",
        "raw",
        "triple quoted",
        "non-ASCII",
    ],
)
def test_string_literal(token: str, value: str) -> None:
    assert decode_string(token) == value


@pytest.mark.parametrize(
    ("token", "value"),
    [("42", 42), ("-7", -7), ("0x1F", 31), ("-0x10", -16), ("7u", 7), ("9223372036854775807", 2**63 - 1)],
    ids=["decimal", "negative", "hex", "negative hex", "unsigned", "int64 max"],
)
def test_int_literal(token: str, value: int) -> None:
    assert decode_int(token) == value


@pytest.mark.parametrize("text", ["1h30m", "90s", "1.5h", "-250ms", "2h45m30.5s", "+3m", ".5s", "0.000001s"])
def test_duration_agrees_with_celpy(text: str) -> None:
    delta = celtypes.DurationType(text)
    assert (
        parse_duration(text)
        == ((delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds) * 1000
    )


@pytest.mark.parametrize(
    ("text", "nanos"), [("1us", 1000), ("1µs", 1000), ("100ns", 100), ("1.5ns", 1), ("0", 0), ("-0s", 0)]
)
def test_duration_below_a_microsecond(text: str, nanos: int) -> None:
    """celpy's own durations stop at microseconds, so these are spelled out."""
    assert parse_duration(text) == nanos


@pytest.mark.parametrize(
    "text",
    [
        "2026-01-02T03:04:05Z",
        "2026-01-02T03:04:05.123456Z",
        "2026-01-02T03:04:05+01:30",
        "1999-12-31T23:59:59-08:00",
        "0001-01-01T00:00:00Z",
        "9999-12-31T23:59:59Z",
    ],
)
def test_timestamp_agrees_with_celpy(text: str) -> None:
    moment = celtypes.TimestampType(text)
    delta = moment - celtypes.TimestampType("1970-01-01T00:00:00Z")
    assert (
        parse_timestamp(text)
        == ((delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds) * 1000
    )


def test_timestamp_keeps_nanoseconds() -> None:
    assert parse_timestamp("2026-01-02T03:04:05.123456789Z") % 10**9 == 123_456_789


@pytest.mark.parametrize(
    "moment",
    [
        datetime(2026, 5, 1, 12, tzinfo=UTC),
        datetime(1970, 1, 1, tzinfo=UTC),
        datetime(2001, 2, 3, 4, 5, 6, 789, tzinfo=UTC),
        datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
    ],
    ids=str,
)
def test_timestamp_text_is_the_storage_text(moment: datetime) -> None:
    """Folded constants compare with stored timestamps as text, so they must be written alike."""
    nanos = datetime_to_nanos(moment)
    assert format_timestamp(nanos) == codec.format_timestamp(*divmod(nanos, 10**9))
    assert format_timestamp(nanos) == codec.format_datetime(moment)
    assert codec.format_timestamp(0, 0) == ZERO_TIMESTAMP_TEXT


def test_timestamp_text_orders_like_time() -> None:
    base = datetime(2026, 5, 1, tzinfo=UTC)
    moments = [base + timedelta(microseconds=step * 997_001) for step in range(-2000, 2000, 37)]
    texts = [format_timestamp(datetime_to_nanos(moment)) for moment in moments]
    assert texts == sorted(texts)


@pytest.mark.parametrize("text", ["1d", "h", "1h 30m", "", "1.h5", "--1s"])
def test_invalid_duration(text: str) -> None:
    with pytest.raises(FilterError, match=f'^filter: invalid duration "{text}"'):
        parse_duration(text)


def test_escape_like() -> None:
    assert escape_like("50%_\\x") == "50\\%\\_\\\\x"


def test_oracle_models_errors() -> None:
    item = load().Widget(id="x")
    files = [load().private.DESCRIPTOR]
    assert evaluate("this.metadata.labels['a'] == ''", files=files, now_nanos=0, this=item) is ERROR
    assert evaluate("this.metadata.labels['a'] == '' || true", files=files, now_nanos=0, this=item) is True
    assert (
        evaluate("this.status.available * 9223372036854775807 * 2 == 0", files=files, now_nanos=0, this=item)
        is True
    )
    item.status.available = 2
    assert (
        evaluate("this.status.available * 9223372036854775807 == 0", files=files, now_nanos=0, this=item)
        is ERROR
    )


def test_fixed_expressions_are_selective() -> None:
    """Guard against a vacuous comparison: most expressions select some, not all, of the corpus."""
    objects = corpus()
    sizes = [len(oracle_ids(expression, objects)) for expression in FIXED]
    selective = [size for size in sizes if 0 < size < len(objects)]
    assert len(selective) >= len(FIXED) * 0.9
