"""Every rejected construct and its message (FilterError -> INVALID_ARGUMENT).

Compilation fails before any SQL is built, so no database is needed; both dialects are still
checked so that neither accepts more than the other.
"""

from __future__ import annotations

from datetime import datetime

import pytest
from sqlalchemy import BigInteger, Column, MetaData, SmallInteger, String, Table, true

from osac.filters import EventRoot, FilterError, ObjectRoot, compile_filter
from osac.store.schema import JSONData

from .objects import NOW
from .schema import load

_metadata = MetaData()
WIDGETS = Table("widgets", _metadata, Column("id", String, primary_key=True), Column("data", JSONData))
EVENTS = Table(
    "events",
    _metadata,
    Column("revision", BigInteger, primary_key=True),
    Column("type", SmallInteger),
    Column("kind", String),
    Column("data", JSONData),
)
WIDGET_FIELDS = "id, metadata, spec, status"
SPEC_FIELDS = "network, domains, node_sets, tier, ratio, ports, slots, extra"
PUBLIC_METADATA_FIELDS = (
    "creation_timestamp, deletion_timestamp, creator, tenant, name, labels, annotations, version, project"
)
STATE_VALUES = "WIDGET_STATE_UNSPECIFIED, WIDGET_STATE_PENDING, WIDGET_STATE_READY, WIDGET_STATE_FAILED, WIDGET_STATE_DELETING"

# (expression, the exact message, or a prefix of it ending in '...').
OBJECT_ERRORS: list[tuple[str, str]] = [
    # Names are checked against the descriptor.
    ("this.spec.vnet == 'x'", f"filter: unknown field 'spec.vnet' on Widget; known fields: {SPEC_FIELDS}"),
    ("this.nope", f"filter: unknown field 'nope' on Widget; known fields: {WIDGET_FIELDS}"),
    (
        "this.status.conditions.exists(c, c.kind == 1)",
        "filter: unknown field 'c.kind' on WidgetCondition; known fields: type, status, last_transition_time, reason, message",
    ),
    (
        "this.spec.node_sets['w'].count > 1",
        "filter: unknown field 'spec.node_sets['w'].count' on Widget; known fields: host_type, size",
    ),
    (
        "foo == 1",
        "filter: unknown identifier 'foo'; fields are reached through 'this' (e.g. this.metadata.name) and enum values are written in full (e.g. ...",
    ),
    # Enums.
    (
        "this.status.state == WIDGET_STATE_REDY",
        f"filter: unknown value 'WIDGET_STATE_REDY' of enum WidgetState; known values: {STATE_VALUES}",
    ),
    (
        "this.status.state == 'READY'",
        f"filter: unknown value 'READY' of enum WidgetState; known values: {STATE_VALUES}",
    ),
    (
        "this.status.state == TIER_GOLD",
        f"filter: unknown value 'TIER_GOLD' of enum WidgetState; known values: {STATE_VALUES}",
    ),
    (
        "this.status.state in [WIDGET_STATE_READY, NOPE]",
        f"filter: unknown value 'NOPE' of enum WidgetState; known values: {STATE_VALUES}",
    ),
    (
        "this.spec.tier == WidgetState.TIER_GOLD",
        "filter: unknown value 'WidgetState.TIER_GOLD' of enum Tier; known values: TIER_UNSPECIFIED, TIER_GOLD, TIER_SILVER",
    ),
    # Functions and macros outside the subset.
    (
        "this.metadata.name.matches('^w')",
        "filter: unsupported function 'matches': regular expressions are not supported; use startsWith(), endsWith() or contains()",
    ),
    (
        "this.metadata.name.lowerAscii() == 'x'",
        "filter: unsupported function 'lowerAscii'; supported: has, size, startsWith, endsWith, contains, exists, all, timestamp, duration",
    ),
    ("int(this.status.available) > 1", "filter: unsupported function 'int'; supported: ..."),
    (
        "this.spec.domains.map(d, d) == []",
        "filter: unsupported macro 'map'; supported macros: has(), exists(), all()",
    ),
    (
        "this.status.conditions.exists_one(c, c.type == 1)",
        "filter: unsupported macro 'exists_one'; supported macros: has(), exists(), all()",
    ),
    (
        "this.spec.domains.filter(d, d == 'a').size() > 0",
        "filter: unsupported macro 'filter'; supported macros: has(), exists(), all()",
    ),
    # Syntax.
    (
        "this.metadata.name ==",
        'filter: syntax error: the expression ends too early; check operators, parentheses and quotes (e.g. this.metadata.name == "web")',
    ),
    (
        "this.metadata.name = 'x'",
        "filter: syntax error at column 20 near '= 'x''; check operators, parentheses and quotes (e.g. this.metadata.name == \"web\")",
    ),
    (
        "this.status.ready ? true : false",
        "filter: the conditional operator '? :' is not supported; use && and ||",
    ),
    ("{'a': 1}['a'] == 1", "filter: map literals '{...}' are not supported"),
    ("Widget{id: 'a'}.id == 'a'", "filter: message construction 'Type{...}' is not supported"),
    ("this.metadata.name == b'x'", "filter: bytes literal b'x' is not supported"),
    (".this.metadata.name == 'x'", "filter: leading-dot name '.this' is not supported"),
    ("this.metadata.name == '\\q'", "filter: invalid escape sequence '\\q' in a string literal"),
    (
        "this.status.available > 99999999999999999999",
        "filter: integer literal 99999999999999999999 is out of the int64 range",
    ),
    # A literal of more digits than int() converts (4300) is refused as out of range, not a 500.
    (
        "0" * 5000 + "1" * 21,
        "filter: integer literal " + "0" * 40 + "... (5021 characters) is out of the int64 range",
    ),
    ("0" * 16_000, "filter: the filter must be a boolean expression, got int 0"),
    ("9" * 16_000, "filter: integer literal " + "9" * 40 + "... (16000 characters) is out of the int64 range"),
    ("this.status.available == 0x" + "f" * 17, "filter: integer literal 0x" + "f" * 17 + " is out of the int64 range"),
    ("a" * 20_000, "filter: expression is too long (20000 characters, at most 16384)"),
    ("(" * 70 + "true" + ")" * 70, "filter: expression is nested too deeply (at most 64 levels)"),
    # Types.
    ("this.metadata.name == 5", "filter: cannot compare string field 'metadata.name' with int 5 using '=='"),
    (
        "this.status.available == 'x'",
        "filter: cannot compare int field 'status.available' with string 'x' using '=='",
    ),
    ("this.status.ready == 1", "filter: cannot compare bool field 'status.ready' with int 1 using '=='"),
    (
        "this.metadata.creation_timestamp > '2026-01-01T00:00:00Z'",
        "filter: cannot compare timestamp field 'metadata.creation_timestamp' with string '2026-01-01T00:00:00Z' using '>'; "
        'write the time as timestamp("2026-01-02T03:04:05Z") or now - duration("1h")',
    ),
    (
        "this.metadata.name",
        "filter: the filter must be a boolean expression, got string field 'metadata.name'",
    ),
    ("this.status.available + 1", "filter: the filter must be a boolean expression, got int expression"),
    (
        "WIDGET_STATE_READY",
        "filter: the filter must be a boolean expression, got identifier 'WIDGET_STATE_READY'",
    ),
    ("this.spec.domains == ['a']", "filter: a list literal cannot be compared with '=='; use 'in'"),
    (
        "this.spec.domains == this.spec.domains",
        "filter: cannot compare list(string) field 'spec.domains'; use 'in', exists(), all() or size()",
    ),
    (
        "this.spec == this.spec",
        "filter: cannot compare message WidgetSpec field 'spec'; compare its fields or use has()",
    ),
    ("this.spec.extra.a == 1", "filter: cannot select 'a' from google.protobuf.Struct field 'spec.extra'"),
    (
        "this.spec.extra == this.spec.extra",
        "filter: google.protobuf.Struct field 'spec.extra' cannot be filtered on except with has()",
    ),
    ("this.metadata.name.size == 1", "filter: cannot select 'size' from string field 'metadata.name'"),
    (
        "this.metadata.creation_timestamp + duration('1h') > now",
        'filter: timestamp and duration arithmetic needs constant operands (now, timestamp(...), duration(...)); move it to the constant side, e.g. this.metadata.creation_timestamp > now - duration("1h")',
    ),
    (
        "this.metadata.name + 1 == 'a1'",
        "filter: operator '+' does not apply to string field 'metadata.name' and int 1",
    ),
    ("this.spec.ratio % 2.0 == 1.0", "filter: operator '%' applies to integers only"),
    ("-this.metadata.name == 'x'", "filter: unary '-' does not apply to string field 'metadata.name'"),
    ("!this.metadata.name", "filter: operator '!' needs a boolean, got string field 'metadata.name'"),
    (
        "this.metadata.name == 'a' && this.status.available",
        "filter: operator '&&' needs a boolean, got int field 'status.available'",
    ),
    ("this.status.available > 1 / 0", "filter: division by zero"),
    ("this.status.available > 5 % 0", "filter: division by zero"),
    ("this.status.available > 9223372036854775807 + 1", "filter: integer overflow in a constant expression"),
    # Timestamps and durations.
    (
        "this.metadata.creation_timestamp > now - duration('1d')",
        'filter: invalid duration "1d": expected a number with a unit (h, m, s, ms, us, ns) such as "1h30m", "90s" or "1.5h"',
    ),
    (
        "this.metadata.creation_timestamp > timestamp('yesterday')",
        'filter: invalid timestamp "yesterday": expected RFC 3339 such as "2026-01-02T03:04:05Z" or "2026-01-02T03:04:05.5+01:00"',
    ),
    (
        "this.metadata.creation_timestamp > timestamp('2026-02-30T00:00:00Z')",
        'filter: invalid timestamp "2026-02-30T00:00:00Z": day is out of range for month',
    ),
    (
        "this.metadata.creation_timestamp > timestamp(this.metadata.name)",
        'filter: timestamp() needs a string literal, e.g. timestamp("2026-01-02T03:04:05Z")',
    ),
    (
        "this.metadata.creation_timestamp > now - duration('200000000h')",
        "filter: duration out of range (about 10000 years)",
    ),
    (
        "this.metadata.creation_timestamp > timestamp('9999-12-31T23:59:59Z') + duration('1s')",
        "filter: timestamp out of range (0001-01-01 to 9999-12-31)",
    ),
    # Maps, lists, in, has, null.
    (
        "this.metadata.labels[this.metadata.name] == 'x'",
        "filter: the index of map(string, string) field 'metadata.labels' must be a constant, e.g. metadata.labels['key']",
    ),
    (
        "this.spec.domains[0] == 'a'",
        "filter: indexing list(string) field 'spec.domains' is not supported; use 'in', exists() or all()",
    ),
    (
        "this.metadata.labels[1] == 'x'",
        "filter: int 1 cannot be a key of map(string, string) field 'metadata.labels'",
    ),
    (
        "1 in this.metadata.labels",
        "filter: int 1 cannot be a key of map(string, string) field 'metadata.labels'",
    ),
    (
        "'x' in this.metadata.name",
        "filter: 'in' needs a list literal, a repeated field or a map field on its right, got string field 'metadata.name'",
    ),
    (
        "'x' in this.status.conditions",
        "filter: 'in' cannot search list(message WidgetCondition) field 'status.conditions'; use exists(), e.g. status.conditions.exists(x, x.name == 'a')",
    ),
    ("this.metadata.deletion_timestamp < null", "filter: null can only be compared with == or !=, not '<'"),
    (
        "this.status.available + 1 == null",
        "filter: only fields can be compared with null, not int expression",
    ),
    ("has(this)", "filter: has() takes one field selection, e.g. has(this.metadata.deletion_timestamp)"),
    (
        "has(this.metadata, this.spec)",
        "filter: has() takes one field selection, e.g. has(this.metadata.deletion_timestamp)",
    ),
    ("has(now.x)", "filter: cannot select 'x' from timestamp constant"),
    ("this.metadata.name.startsWith(1)", "filter: startsWith() applies to strings, not int 1"),
    (
        "size(this.status.available) > 1",
        "filter: size() applies to strings, repeated and map fields, not int field 'status.available'",
    ),
    ("size(this.spec.domains, 1) > 1", "filter: size() takes one argument: size(x) or x.size()"),
    # Comprehensions.
    (
        "this.status.conditions.exists(this, this.type == 1)",
        "filter: 'this' cannot name the variable of exists(); pick another name",
    ),
    (
        "this.metadata.name.exists(c, true)",
        "filter: exists() applies to repeated and map fields, not string field 'metadata.name'",
    ),
    (
        "this.status.conditions.exists(c, c.reason)",
        "filter: the predicate of exists() needs a boolean, got string field 'c.reason'",
    ),
    ("this.status.conditions.all(c.type == 1)", "filter: all() is written list.all(x, predicate over x)"),
    (
        "this.status.conditions.exists('c', true)",
        "filter: exists() is written list.exists(x, predicate over x)",
    ),
    # Event syntax on an object.
    ("has(event.widget)", "filter: unknown identifier 'event.widget'; fields are reached through 'this' ..."),
]

PUBLIC_ERRORS: list[tuple[str, str]] = [
    (
        "'x' in this.metadata.finalizers",
        f"filter: unknown field 'metadata.finalizers' on Widget; known fields: {PUBLIC_METADATA_FIELDS}",
    ),
    (
        "this.status.hub == 'hub-1'",
        "filter: unknown field 'status.hub' on Widget; known fields: state, message, conditions, available, ready",
    ),
]

EVENT_ERRORS: list[tuple[str, str]] = [
    (
        "has(event.subnet)",
        "filter: unknown field 'event.subnet' on Event; known fields: id, type, widget, host_pool, revision",
    ),
    (
        "event.widget.spec.vnet == 'x'",
        f"filter: unknown field 'event.widget.spec.vnet' on Event; known fields: {SPEC_FIELDS}",
    ),
    (
        "event.type == EVENT_TYPE_NOPE",
        "filter: unknown value 'EVENT_TYPE_NOPE' of enum EventType; known values: ...",
    ),
    (
        "event.revision > 1",
        "filter: field 'event.revision' cannot be filtered; filter on event.type or on a payload (has(event.<kind>), event.<kind>.metadata.name == ...)",
    ),
    ("event == 1", "filter: 'event' is not a value; select a field, e.g. event.type"),
    ("has(event.type)", "filter: has() applies to fields of the object, not enum EventType expression"),
    (
        "this.metadata.name == 'x'",
        "filter: unknown identifier 'this.metadata.name'; fields are reached through 'event' (e.g. event.metadata.name) and enum values are written in full (e.g. ...",
    ),
]


def _check(root: ObjectRoot | EventRoot, expression: str, message: str, dialect: str) -> None:
    with pytest.raises(FilterError) as caught:
        compile_filter(expression, root, dialect=dialect, now=NOW)
    if message.endswith("..."):
        assert str(caught.value).startswith(message[:-3])
    else:
        assert str(caught.value) == message


@pytest.mark.parametrize("dialect", ["sqlite", "postgresql"])
@pytest.mark.parametrize(
    ("expression", "message"), OBJECT_ERRORS, ids=[case[0][:80] for case in OBJECT_ERRORS]
)
def test_object_filter_error(expression: str, message: str, dialect: str) -> None:
    _check(ObjectRoot(load().private.Widget.DESCRIPTOR, WIDGETS.c.data), expression, message, dialect)


@pytest.mark.parametrize("dialect", ["sqlite", "postgresql"])
@pytest.mark.parametrize(("expression", "message"), PUBLIC_ERRORS, ids=[case[0] for case in PUBLIC_ERRORS])
def test_private_only_field_is_unknown_to_public_callers(expression: str, message: str, dialect: str) -> None:
    _check(ObjectRoot(load().public.Widget.DESCRIPTOR, WIDGETS.c.data), expression, message, dialect)
    compile_filter(
        expression, ObjectRoot(load().private.Widget.DESCRIPTOR, WIDGETS.c.data), dialect=dialect, now=NOW
    )


@pytest.mark.parametrize("dialect", ["sqlite", "postgresql"])
@pytest.mark.parametrize(("expression", "message"), EVENT_ERRORS, ids=[case[0] for case in EVENT_ERRORS])
def test_event_filter_error(expression: str, message: str, dialect: str) -> None:
    root = EventRoot(load().private.Event.DESCRIPTOR, EVENTS.c.type, EVENTS.c.kind, EVENTS.c.data)
    _check(root, expression, message, dialect)


def test_filter_error_is_a_value_error() -> None:
    assert issubclass(FilterError, ValueError)


def test_blank_expression_compiles_to_true() -> None:
    root = ObjectRoot(load().private.Widget.DESCRIPTOR, WIDGETS.c.data)
    assert compile_filter(" \t\n", root, dialect="sqlite", now=NOW) is true()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"dialect": "mysql", "now": NOW},
            "unsupported SQL dialect 'mysql'; expected one of ['postgresql', 'sqlite']",
        ),
        ({"dialect": "sqlite", "now": datetime(2026, 1, 1)}, "now must be a timezone-aware datetime"),
    ],
    ids=["unknown dialect", "naive now"],
)
def test_caller_mistakes_are_plain_value_errors(kwargs: dict[str, object], message: str) -> None:
    root = ObjectRoot(load().private.Widget.DESCRIPTOR, WIDGETS.c.data)
    with pytest.raises(
        ValueError, match="^" + message.replace("[", r"\[").replace("]", r"\]") + "$"
    ) as caught:
        compile_filter("true", root, **kwargs)  # type: ignore[arg-type]
    assert not isinstance(caught.value, FilterError)
