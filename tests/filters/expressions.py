"""Expressions for the oracle comparisons: a fixed list, and a hypothesis strategy that
combines typed atoms with &&, || and !."""

from __future__ import annotations

from hypothesis import strategies as st

STRING_FIELDS = [
    "this.metadata.name",
    "this.spec.network",
    "this.status.message",
    "this.metadata.tenant",
    "this.metadata.labels['env']",
    "this.metadata.labels['é']",
    "this.metadata.labels['osac.openshift.io/default']",
    "this.spec.node_sets['gpu'].host_type",
    "this.spec.slots[1]",
]
STRING_CONSTANTS = [
    "''",
    "'web-1'",
    "'db'",
    "'prod'",
    "'WEB-3'",
    "'ünï'",
    "'50%_off'",
    "'net-1'",
    "'bm-h100'",
    "'a'",
    "'w'",
]
INT_FIELDS = [
    "this.status.available",
    "this.metadata.version",
    "this.spec.node_sets['workers'].size",
    "this.status.state",
    "this.spec.tier",
    "size(this.spec.domains)",
    "size(this.metadata.labels)",
    "this.metadata.name.size()",
    "this.spec.node_sets['wörkers'].size",
]
INT_CONSTANTS = ["0", "1", "2", "3", "9", "10", "-3", "1099511627776", "4611686018427387904"]
STATES = ["WIDGET_STATE_READY", "'WIDGET_STATE_PENDING'", "WidgetState.WIDGET_STATE_FAILED", "7", "0"]
TIERS = ["TIER_GOLD", "'TIER_SILVER'", "TIER_UNSPECIFIED", "1"]
TIMESTAMP_FIELDS = ["this.metadata.creation_timestamp", "this.metadata.deletion_timestamp"]
TIMESTAMP_CONSTANTS = [
    "now",
    "now - duration('1h')",
    "now - duration('24h')",
    "timestamp('2026-05-01T11:00:00Z')",
    "now + duration('1s')",
    "timestamp('2026-05-01T12:00:00.999999Z')",
]
RELATIONS = ["==", "!=", "<", "<=", ">", ">="]
STRING_TESTS = ["startsWith", "endsWith", "contains"]

FIXED: list[str] = [
    "this.status.available > 9",
    "this.status.available <= 9",
    "this.status.available > 4611686018427387903",
    "this.spec.ratio > 0.5",
    "this.spec.ratio * 2.0 >= 1.5",
    "this.spec.ratio < this.status.available",
    "this.metadata.name == ''",
    "this.metadata.name < 'db'",
    "this.metadata.name >= 'web'",
    "this.metadata.labels['env'] == 'prod'",
    "this.metadata.labels['env'] != 'prod'",
    "!(this.metadata.labels['env'] == 'prod')",
    "this.metadata.labels['env'] == null",
    "this.metadata.labels['q\"k'] == 'dev'",
    "'back\\\\slash' in this.metadata.labels",
    "'osac.openshift.io/default' in this.metadata.labels",
    "this.metadata.labels['example.com/a.b'] == ''",
    "has(this.metadata.labels.env) && this.metadata.labels.env.startsWith('p')",
    "this.metadata.name in this.metadata.labels",
    "this.spec.node_sets['workers'].size * 2 > 8",
    "this.spec.node_sets['workers'].size + this.spec.node_sets['gpu'].size >= 5",
    "this.spec.node_sets['workers'].size / this.metadata.version == 1",
    "this.status.available % 7 == 2",
    "this.status.available / 3 == -1",
    "this.status.available - this.metadata.version > 5",
    "this.status.available * 2 < 0",
    "this.status.available * 4 / 4 == this.status.available",
    "this.status.available + 4611686018427387904 > 0",
    "-(this.status.available * 2) >= 0",
    "(this.status.available - 4611686018427387904) * 2 <= 0",
    "!(this.status.available / this.metadata.version > 1)",
    "this.status.available / this.metadata.version > 1 || this.status.ready",
    "this.status.state == WIDGET_STATE_READY",
    "this.status.state == 'WIDGET_STATE_FAILED'",
    "this.status.state != WIDGET_STATE_READY",
    "this.status.state == 0",
    "this.status.state in [WIDGET_STATE_PENDING, 'WIDGET_STATE_FAILED', 9]",
    "this.spec.tier == TIER_SILVER",
    "this.metadata.name.startsWith('web')",
    "this.metadata.name.contains('%_')",
    "this.metadata.name.endsWith('_1')",
    "!(this.metadata.labels['env'].startsWith(''))",
    "!(this.metadata.labels['env'].endsWith(''))",
    "!(this.metadata.labels['env'].contains(''))",
    "this.metadata.name.contains(this.spec.network)",
    "'a.com' in this.spec.domains",
    "'a%com' in this.spec.domains",
    "80 in this.spec.ports",
    "this.spec.domains.exists(d, d.endsWith('.com'))",
    "this.spec.ports.all(p, p >= 0)",
    "this.spec.ports.exists(p, p > this.metadata.version * 100)",
    "this.metadata.labels.exists(k, k.contains('/'))",
    "this.metadata.labels.all(k, k != 'env')",
    "this.spec.node_sets.exists(k, k == 'gpu') && this.spec.node_sets['gpu'].size > 1",
    "this.spec.slots.exists(s, s > 1)",
    "2 in this.spec.slots",
    "this.status.conditions.exists(c, c.type == WIDGET_CONDITION_TYPE_AVAILABLE && c.status == CONDITION_STATUS_TRUE)",
    "this.status.conditions.exists(c, c.reason == 'Stalled' && c.last_transition_time < now - duration('1h'))",
    "this.status.conditions.all(c, c.status != CONDITION_STATUS_FALSE)",
    "!this.status.conditions.exists(c, c.reason == '')",
    "this.status.conditions.exists(c, c.reason in this.metadata.labels)",
    "this.status.conditions.exists(c, this.metadata.labels['env'] == 'prod' && c.type == 1)",
    "this.status.conditions.all(c, this.metadata.labels['env'] == 'prod')",
    "this.status.conditions.exists(c, this.spec.domains.exists(d, d.size() == c.reason.size()))",
    "has(this.metadata.deletion_timestamp)",
    "this.metadata.deletion_timestamp == null",
    "has(this.status.conditions)",
    "has(this.spec.node_sets['workers'].host_type)",
    "this.metadata.creation_timestamp > now - duration('1h')",
    "this.metadata.creation_timestamp >= now - duration('3600s')",
    "this.metadata.creation_timestamp < now - duration('24h')",
    "this.metadata.creation_timestamp == now",
    "this.metadata.deletion_timestamp >= this.metadata.creation_timestamp",
    "this.status.ready",
    "this.status.ready in [true]",
    "(this.status.available > 9) in [false, this.status.ready]",
    "(this.status.available > 9) == (this.spec.ratio > 0.5)",
    "!(this.status.available > 9) < this.status.ready",
    "this.metadata.creation_timestamp in [now, timestamp('2026-05-01T11:00:00Z'), now - duration('3600s')]",
    "this.status.ready == has(this.metadata.deletion_timestamp)",
    "size(this.metadata.labels) > 1",
    "this.metadata.name.size() < 3",
    "this.status.hub == 'hub-1' || 'x' in this.metadata.finalizers",
]


def _relation(fields: list[str], constants: list[str]) -> st.SearchStrategy[str]:
    return st.builds(
        lambda field, op, constant, flip: f"{constant} {op} {field}" if flip else f"{field} {op} {constant}",
        st.sampled_from(fields),
        st.sampled_from(RELATIONS),
        st.sampled_from(constants),
        st.booleans(),
    )


_ATOMS = st.one_of(
    st.sampled_from(FIXED),
    _relation(STRING_FIELDS, STRING_CONSTANTS),
    _relation(INT_FIELDS, INT_CONSTANTS),
    _relation(TIMESTAMP_FIELDS, TIMESTAMP_CONSTANTS),
    _relation(["this.status.state"], STATES),
    _relation(["this.spec.tier"], TIERS),
    st.builds(
        lambda items: f"this.status.state in [{', '.join(items)}]",
        st.lists(st.sampled_from(STATES), max_size=3),
    ),
    _relation(["this.spec.ratio"], ["0.5", "0", "1.5", "-1"]),
    st.builds(
        lambda field, op, number, relation, constant: f"{field} {op} {number} {relation} {constant}",
        st.sampled_from(INT_FIELDS),
        st.sampled_from(["+", "-", "*", "/", "%"]),
        st.sampled_from(
            ["2", "3", "-4", "this.metadata.version", "4611686018427387904", "this.status.available"]
        ),
        st.sampled_from(RELATIONS),
        st.sampled_from(["0", "1", "5", "-2"]),
    ),
    st.builds(
        lambda field, test, constant: f"{field}.{test}({constant})",
        st.sampled_from(STRING_FIELDS),
        st.sampled_from(STRING_TESTS),
        st.sampled_from(STRING_CONSTANTS + STRING_FIELDS),
    ),
    st.builds(
        lambda constant: f"{constant} in this.metadata.labels",
        st.sampled_from(STRING_CONSTANTS + ["'env'", "'é'"]),
    ),
    st.builds(
        lambda field: f"has({field})",
        st.sampled_from(
            [
                "this.metadata.deletion_timestamp",
                "this.status.available",
                "this.spec.domains",
                "this.metadata.labels.env",
                "this.spec.node_sets['workers'].size",
                "this.status",
                "this.spec.node_sets['gpu'].host_type",
            ]
        ),
    ),
    st.builds(
        lambda field, test, value: f"this.status.conditions.exists(c, c.{field} {test} {value})",
        st.sampled_from(["type", "status"]),
        st.sampled_from(RELATIONS),
        st.sampled_from(["0", "1", "2"]),
    ),
)

EXPRESSIONS: st.SearchStrategy[str] = st.recursive(
    _ATOMS,
    lambda inner: st.one_of(
        st.builds(lambda a, b: f"({a}) && ({b})", inner, inner),
        st.builds(lambda a, b: f"({a}) || ({b})", inner, inner),
        st.builds(lambda a: f"!({a})", inner),
        st.builds(lambda a: f"this.status.conditions.exists(c, ({a}) && c.type == 1)", inner),
    ),
    max_leaves=4,
)
