"""Every construct of the supported subset (api.md §6), on hand-made widgets, in both databases.

Each row is an expression and the ids of the named widgets (``objects.named_widgets``) it must
return; the oracle is asked the same question, so a row also checks the reference evaluator.
"""

from __future__ import annotations

import pytest
import pytest_asyncio

from osac.filters.times import datetime_to_nanos

from .conftest import Database
from .objects import NOW, host_pool, named_widgets
from .oracle import evaluate
from .schema import load

pytestmark = pytest.mark.asyncio(loop_scope="session")

ALL = sorted(item.id for item in named_widgets())


def but(*ids: str) -> list[str]:
    return [item for item in ALL if item not in ids]


NO_CONDITIONS = ["empty", "lookalike", "negative", "odd-keys", "percent", "upper"]

# (expression, expected ids); ids of the test are the expressions themselves.
CASES: list[tuple[str, list[str]]] = [
    # Field paths with proto names.
    ('this.spec.network == "net-1"', ["web-pending", "web-ready"]),
    ("this.metadata.tenant == 'beta'", ["db-failed", "lookalike", "percent"]),
    ("this.id == 'empty'", ["empty"]),
    ("this.metadata.project == 'team/a'", ["web-ready"]),
    # Relations; int64 compares as a number, not as text ('100' < '9').
    ("this.status.available > 9", ["db-failed", "percent", "web-ready"]),
    ("this.status.available <= 9", ["empty", "lookalike", "negative", "odd-keys", "upper", "web-pending"]),
    ("this.status.available >= 1099511627776", ["percent"]),
    ("this.status.available < -1", ["negative"]),
    ("this.metadata.version != 0", ["web-ready"]),
    ("this.spec.ratio < 0", ["negative"]),
    ("this.spec.ratio >= 0.75", ["percent", "web-ready"]),
    ("this.spec.ratio > this.spec.ratio - 1", ALL),
    # Strings order by code point, whatever the database collation.
    ("this.metadata.name < 'db'", ["empty", "lookalike", "percent", "upper"]),
    ("this.metadata.name > 'web-1'", ["odd-keys", "web-pending"]),
    # Comparison with null: set or not.
    ("this.metadata.deletion_timestamp == null", but("db-failed")),
    ("this.metadata.deletion_timestamp != null", ["db-failed"]),
    ("null == this.metadata.deletion_timestamp", but("db-failed")),
    (
        "this.metadata.labels['env'] == null",
        ["empty", "lookalike", "negative", "odd-keys", "percent", "upper"],
    ),
    ("this.spec.extra == null", ALL),
    # Arithmetic.
    ("this.spec.node_sets['workers'].size * 2 > 8", ["web-ready"]),
    ("this.spec.node_sets['workers'].size + this.spec.node_sets['gpu'].size == 5", ["web-pending"]),
    ("this.status.available % 10 == 9", ["web-pending"]),
    ("this.status.available % 10 == -3", ["negative"]),
    ("this.status.available / 4 == 3", ["web-ready"]),
    ("this.status.available / 2 == -1", ["negative"]),
    ("this.spec.ratio * 2.0 == 3.0", ["percent"]),
    ("this.status.available * 0.5 == 6.0", ["web-ready"]),
    ("this.status.available - 100 == 0", ["db-failed"]),
    ("-this.status.available == 3", ["negative"]),
    ("this.status.available == 2 * (3 + 3)", ["web-ready"]),
    ("this.metadata.name + '!' == 'db!'", ["db-failed"]),
    # Division by zero is an error: it never matches, also not under '!'; || can absorb it.
    ("this.status.available / 0 > 1 || this.metadata.name == 'db'", ["db-failed"]),
    ("!(this.status.available / 0 > 1)", []),
    ("this.status.available / this.metadata.version == 4", ["web-ready"]),
    # int64 overflow is an error too, in SQL as in CEL (not a database failure).
    ("this.status.available * 8388608 > 0", ["db-failed", "web-pending", "web-ready"]),
    ("!(this.status.available * 8388608 > 0)", ["empty", "lookalike", "negative", "odd-keys", "upper"]),
    ("this.status.available * 8388608 / 8388608 == this.status.available", but("percent")),
    ("this.status.available - 9223372036854775807 < 0", but("negative")),
    (
        "-(this.status.available - 9223372036854775807 - 1) > 0",
        ["db-failed", "percent", "web-pending", "web-ready"],
    ),
    # &&, ||, !, parentheses.
    ("!(this.status.state == WIDGET_STATE_READY)", but("web-ready")),
    (
        "(this.spec.network == 'net-1' || this.spec.network == 'net-2') && this.status.state != WIDGET_STATE_FAILED",
        ["web-pending", "web-ready"],
    ),
    ("!!this.status.ready", ["web-ready"]),
    ("true", ALL),
    ("false || this.id == 'upper'", ["upper"]),
    # in: map keys, map indexing, repeated fields, list literals.
    ("'osac.openshift.io/default' in this.metadata.labels", ["web-ready"]),
    ("'example.com/a.b' in this.metadata.labels", ["db-failed"]),
    ("this.metadata.labels['osac.openshift.io/default'] == 'true'", ["web-ready"]),
    ("this.metadata.labels['env'] == 'prod'", ["db-failed", "web-ready"]),
    ("this.metadata.labels.env == 'dev'", ["web-pending"]),
    # A missing map key is an error: neither == nor != nor !(==) matches it.
    ("this.metadata.labels['env'] != 'prod'", ["web-pending"]),
    ("!(this.metadata.labels['env'] == 'prod')", ["web-pending"]),
    (
        "!('env' in this.metadata.labels) || this.metadata.labels['env'] != 'prod'",
        but("db-failed", "web-ready"),
    ),
    ("'a.com' in this.spec.domains", ["web-ready"]),
    ("!('a.com' in this.spec.domains)", but("web-ready")),
    ("443 in this.spec.ports", ["web-ready"]),
    ("-1 in this.spec.ports", ["negative"]),
    ("this.metadata.name in ['db', 'web-1', 'nope']", ["db-failed", "web-ready"]),
    ("this.metadata.name in []", []),
    ("this.metadata.name in [this.spec.network, 'db']", ["db-failed", "empty"]),
    ("this.status.state in [WIDGET_STATE_PENDING, WIDGET_STATE_FAILED]", ["db-failed", "web-pending"]),
    ("this.status.state in ['WIDGET_STATE_READY', 7]", ["percent", "web-ready"]),
    ("'workers' in this.spec.node_sets", ["negative", "web-pending", "web-ready"]),
    ("3 in this.spec.slots", ["web-ready"]),
    ("this.spec.slots[3] == 'c'", ["web-ready"]),
    ("this.spec.network in this.metadata.labels", ["odd-keys"]),
    # Map keys that need quoting or escaping.
    ("this.metadata.labels['é'] == 'accent'", ["odd-keys"]),
    ("'q\"k' in this.metadata.labels", ["odd-keys"]),
    ("this.metadata.labels['back\\\\slash'] == 'bs'", ["odd-keys"]),
    ("this.metadata.labels['a b'] == 'space'", ["odd-keys"]),
    ("this.metadata.labels[''] == 'empty'", ["odd-keys"]),
    ("this.spec.node_sets['wörkers'].size == 4", ["odd-keys"]),
    # startsWith, endsWith, contains: case-sensitive, % and _ are plain characters.
    ("this.metadata.name.startsWith('web-')", ["web-pending", "web-ready"]),
    ("this.metadata.name.contains('50%_')", ["percent"]),
    ("this.metadata.name.endsWith('_off')", ["lookalike", "percent"]),
    ("this.metadata.name.endsWith('%_off')", ["percent"]),
    ("this.metadata.name.startsWith('')", ALL),
    ("this.metadata.name.contains('')", ALL),
    ("this.metadata.name.endsWith('')", ALL),
    (
        "this.metadata.name.startsWith(this.spec.network)",
        ["empty", "lookalike", "negative", "odd-keys", "percent", "upper"],
    ),
    ("this.metadata.name.endsWith(this.metadata.name)", ALL),
    ("this.metadata.name.contains(this.metadata.tenant)", ["empty"]),
    ("this.status.message.contains('oo')", ["db-failed"]),
    ("'web-1-extra'.startsWith(this.metadata.name) && this.metadata.name != ''", ["web-ready"]),
    # has(): message set, scalar non-zero, list/map non-empty, key present.
    ("has(this.metadata.deletion_timestamp)", ["db-failed"]),
    ("has(this.status.available)", ["db-failed", "negative", "percent", "web-pending", "web-ready"]),
    ("has(this.spec.node_sets)", ["negative", "odd-keys", "web-pending", "web-ready"]),
    ("has(this.metadata.labels.env)", ["db-failed", "web-pending", "web-ready"]),
    ("has(this.spec)", ["db-failed", "negative", "odd-keys", "percent", "web-pending", "web-ready"]),
    ("has(this.spec.node_sets['workers'].host_type)", ["web-ready"]),
    ("!has(this.status.conditions)", NO_CONDITIONS),
    ("has(this.spec.extra)", []),
    # exists() and all() over repeated messages, repeated scalars and map keys.
    ("this.status.conditions.exists(c, c.type == 1 && c.reason == 'Stalled')", ["web-pending"]),
    (
        "this.status.conditions.exists(c, c.type == WIDGET_CONDITION_TYPE_AVAILABLE && c.status == CONDITION_STATUS_TRUE)",
        ["web-ready"],
    ),
    ("this.status.conditions.all(c, c.reason == 'AsExpected')", sorted(["web-ready", *NO_CONDITIONS])),
    # An unset Timestamp is the epoch, as in CEL on protos.
    (
        "this.status.conditions.exists(c, c.last_transition_time < now - duration('30m'))",
        ["db-failed", "web-pending", "web-ready"],
    ),
    (
        "this.status.conditions.exists(c, has(c.last_transition_time) && c.last_transition_time < now - duration('30m'))",
        ["db-failed", "web-pending"],
    ),
    ("this.spec.domains.exists(d, d.endsWith('.org'))", ["db-failed"]),
    ("this.metadata.labels.exists(k, k.startsWith('osac.'))", ["web-ready"]),
    (
        "this.spec.node_sets.exists(k, k.startsWith('w'))",
        ["negative", "odd-keys", "web-pending", "web-ready"],
    ),
    ("this.spec.slots.exists(k, k == 3)", ["web-ready"]),
    ("this.spec.ports.all(p, p > 0)", but("negative")),
    (
        "this.status.conditions.exists(c, c.reason == 'Stalled' && this.spec.domains.exists(d, d.endsWith('org')))",
        ["db-failed"],
    ),
    ("this.status.conditions.exists(c, c.reason in this.metadata.labels)", []),
    # Enums: bare names, qualified names, names as strings, numbers.
    ("this.status.state == WIDGET_STATE_READY", ["web-ready"]),
    ("this.status.state == 'WIDGET_STATE_READY'", ["web-ready"]),
    ("this.status.state == 2", ["web-ready"]),
    ("WIDGET_STATE_READY == this.status.state", ["web-ready"]),
    ("this.status.state == 0", ["empty", "lookalike", "negative", "odd-keys", "upper"]),
    (
        "this.status.state == WIDGET_STATE_UNSPECIFIED",
        ["empty", "lookalike", "negative", "odd-keys", "upper"],
    ),
    ("this.status.state != WIDGET_STATE_READY", but("web-ready")),
    ("this.status.state == 7", ["percent"]),
    ("this.status.state > WIDGET_STATE_PENDING", ["db-failed", "percent", "web-ready"]),
    ("this.spec.tier == Tier.TIER_GOLD", ["web-ready"]),
    ("this.spec.tier == osac.filtertest.private.v1.TIER_SILVER", ["web-pending"]),
    # Timestamps: now, timestamp(), duration(), folded to constants; stored text compares in order.
    ("this.metadata.creation_timestamp > now - duration('1h')", ["percent", "web-ready"]),
    ('this.metadata.creation_timestamp >= now - duration("1h")', ["lookalike", "percent", "web-ready"]),
    (
        "this.metadata.creation_timestamp < timestamp('2026-05-01T00:00:00Z')",
        ["db-failed", "empty", "negative", "odd-keys"],
    ),
    ("this.metadata.creation_timestamp == timestamp('2026-05-01T11:00:00Z')", ["lookalike"]),
    ("this.metadata.creation_timestamp == timestamp('2026-05-01T12:00:00+01:00')", ["lookalike"]),
    ("this.metadata.creation_timestamp == timestamp('2026-05-01T10:59:59.999999Z')", ["upper"]),
    ("this.metadata.deletion_timestamp > this.metadata.creation_timestamp", ["db-failed"]),
    (
        "now - duration('1h30m') < this.metadata.creation_timestamp",
        ["lookalike", "percent", "upper", "web-ready"],
    ),
    (
        "this.metadata.creation_timestamp > now - duration('1.5h')",
        ["lookalike", "percent", "upper", "web-ready"],
    ),
    (
        "this.metadata.creation_timestamp > timestamp('2026-05-01T11:00:00Z') - duration('90s') + duration('1m')",
        ["lookalike", "percent", "upper", "web-ready"],
    ),
    (
        "this.metadata.creation_timestamp > now - (now - timestamp('2026-05-01T11:00:00Z'))",
        ["percent", "web-ready"],
    ),
    ("now > timestamp('2020-01-01T00:00:00Z')", ALL),
    ("this.metadata.deletion_timestamp > now", []),
    # Booleans.
    ("this.status.ready", ["web-ready"]),
    ("!this.status.ready", but("web-ready")),
    ("this.status.ready == false", but("web-ready")),
    ("this.status.ready != true", but("web-ready")),
    ("this.status.ready == (this.status.available > 10)", but("db-failed", "percent")),
    ("this.status.ready > false", ["web-ready"]),
    # size() of repeated fields, maps and strings (characters, not bytes).
    ("size(this.spec.domains) == 2", ["web-ready"]),
    ("this.spec.domains.size() == 0", but("db-failed", "web-ready")),
    ("size(this.metadata.labels) >= 2", ["db-failed", "odd-keys", "web-ready"]),
    ("this.metadata.name.size() == 3", ["negative", "odd-keys"]),
    ("size(this.metadata.name) > 6", ["lookalike", "percent"]),
    ("size(this.spec.node_sets['workers'].host_type) == 7", ["web-ready"]),
    # The private API sees private-only fields.
    ("this.status.hub == 'hub-1'", ["web-ready"]),
    ("'fulfillment-controller' in this.metadata.finalizers", ["web-ready"]),
]


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def named(database: Database) -> Database:
    await database.replace_objects("widgets", named_widgets())
    pools = [
        host_pool("hp-1", metadata={"name": "pool-a"}, capacity=4, zones=["z1"]),
        host_pool("hp-2", description="spare"),
    ]
    await database.replace_objects("host_pools", pools)
    return database


@pytest.mark.parametrize(("expression", "expected"), CASES, ids=[case[0] for case in CASES])
async def test_subset(named: Database, expression: str, expected: list[str]) -> None:
    assert await named.object_ids("widgets", expression) == expected
    assert _oracle_ids(expression) == expected


PUBLIC_CASES = [
    ("this.status.state == WIDGET_STATE_READY", ["web-ready"]),
    ("this.metadata.labels['env'] == 'prod' && has(this.spec.domains)", ["db-failed", "web-ready"]),
    ("this.status.conditions.exists(c, c.reason == 'Stalled')", ["db-failed", "web-pending"]),
]


@pytest.mark.parametrize(("expression", "expected"), PUBLIC_CASES, ids=[case[0] for case in PUBLIC_CASES])
async def test_public_shape(named: Database, expression: str, expected: list[str]) -> None:
    assert await named.object_ids("widgets", expression, public=True) == expected


FLAT_CASES = [
    ("this.capacity > 0", ["hp-1"]),
    ("'z1' in this.zones", ["hp-1"]),
    ("this.description == ''", ["hp-1"]),
    ("this.metadata.name == '' && has(this.description)", ["hp-2"]),
]


@pytest.mark.parametrize(("expression", "expected"), FLAT_CASES, ids=[case[0] for case in FLAT_CASES])
async def test_flat_kind(named: Database, expression: str, expected: list[str]) -> None:
    assert await named.object_ids("host_pools", expression) == expected


async def test_blank_expression_is_no_filter(named: Database) -> None:
    assert await named.object_ids("widgets", "  \n") == ALL
    assert await named.object_ids("widgets", "") == ALL


def _oracle_ids(expression: str) -> list[str]:
    files = [load().private.DESCRIPTOR]
    now = datetime_to_nanos(NOW)
    return sorted(
        item.id
        for item in named_widgets()
        if evaluate(expression, files=files, now_nanos=now, this=item) is True
    )
