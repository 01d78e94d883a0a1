"""Test objects: named widgets and events for readable expectations, and random ones for the oracle."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

from google.protobuf.message import Message

from .schema import load

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)

PROGRESSING, AVAILABLE, DEGRADED = 1, 2, 3
TRUE, FALSE = 1, 2
PENDING, READY, FAILED = 1, 2, 3
GOLD, SILVER = 1, 2
CREATED, UPDATED, DELETED, SIGNALED = 1, 2, 3, 4


def _at(delta: timedelta) -> dict[str, int]:
    moment = NOW + delta
    return {"seconds": int(moment.timestamp()), "nanos": moment.microsecond * 1000}


def _condition(type_: int, status: int, reason: str = "", ago: timedelta | None = None) -> dict[str, Any]:
    condition: dict[str, Any] = {"type": type_, "status": status, "reason": reason}
    if ago is not None:
        condition["last_transition_time"] = _at(-ago)
    return condition


def widget(id_: str, **fields: Any) -> Message:
    return load().Widget(id=id_, **fields)


def named_widgets() -> list[Message]:
    """Hand-made widgets whose ids name what is special about them."""
    return [
        widget(
            "web-ready",
            metadata={
                "name": "web-1",
                "tenant": "acme",
                "creator": "alice",
                "project": "team/a",
                "version": 3,
                "labels": {"env": "prod", "osac.openshift.io/default": "true"},
                "creation_timestamp": _at(-timedelta(minutes=30)),
                "finalizers": ["fulfillment-controller"],
            },
            spec={
                "network": "net-1",
                "domains": ["a.com", "web.a.com"],
                "tier": GOLD,
                "ratio": 0.75,
                "node_sets": {"workers": {"host_type": "bm-h100", "size": 5}},
                "ports": [80, 443],
                "slots": {3: "c"},
            },
            status={
                "state": READY,
                "ready": True,
                "available": 12,
                "hub": "hub-1",
                "conditions": [
                    _condition(PROGRESSING, FALSE, "AsExpected"),
                    _condition(AVAILABLE, TRUE, "AsExpected"),
                ],
            },
        ),
        widget(
            "web-pending",
            metadata={
                "name": "web-2",
                "tenant": "acme",
                "labels": {"env": "dev"},
                "creation_timestamp": _at(-timedelta(hours=2)),
            },
            spec={
                "network": "net-1",
                "tier": SILVER,
                "ports": [8080],
                "node_sets": {"workers": {"size": 3}, "gpu": {"host_type": "bm-h100", "size": 2}},
            },
            status={
                "state": PENDING,
                "available": 9,
                "conditions": [_condition(PROGRESSING, TRUE, "Stalled", ago=timedelta(minutes=40))],
            },
        ),
        widget(
            "db-failed",
            metadata={
                "name": "db",
                "tenant": "beta",
                "labels": {"env": "prod", "example.com/a.b": "x"},
                "creation_timestamp": _at(-timedelta(days=3)),
                "deletion_timestamp": _at(-timedelta(minutes=10)),
            },
            spec={"network": "net-2", "domains": ["db.b.org"]},
            status={
                "state": FAILED,
                "available": 100,
                "message": "boom",
                "conditions": [_condition(AVAILABLE, FALSE, "Stalled", ago=timedelta(hours=1))],
            },
        ),
        widget(
            "percent",
            metadata={
                "name": "50%_off",
                "tenant": "beta",
                "labels": {"team": "q_a"},
                "creation_timestamp": _at(-timedelta(minutes=59, seconds=59)),
            },
            spec={"ratio": 1.5},
            status={"state": 7, "available": 2**40},
        ),
        widget(
            "lookalike",
            metadata={"name": "5000_off", "tenant": "beta", "creation_timestamp": _at(-timedelta(hours=1))},
        ),
        widget(
            "upper",
            metadata={
                "name": "WEB-3",
                "tenant": "acme",
                "creation_timestamp": _at(-timedelta(hours=1, microseconds=1)),
            },
        ),
        widget(
            "odd-keys",
            metadata={
                "name": "ünï",
                "tenant": "acme",
                "labels": {"é": "accent", 'q"k': "quote", "back\\slash": "bs", "a b": "space", "": "empty"},
            },
            spec={"node_sets": {"wörkers": {"size": 4}}},
        ),
        widget(
            "negative",
            metadata={"name": "neg", "tenant": "acme"},
            spec={"ratio": -0.5, "ports": [-1], "node_sets": {"workers": {}}},
            status={"available": -3},
        ),
        widget("empty"),
    ]


def host_pool(id_: str, **fields: Any) -> Message:
    return load().HostPool(id=id_, **fields)


def named_events() -> list[Message]:
    """Events numbered by revision; payloads are the named widgets and two host pools."""
    widgets = {item.id: item for item in named_widgets()}
    event = load().Event
    return [
        event(id="1", revision=1, type=CREATED, widget=widgets["web-ready"]),
        event(id="2", revision=2, type=UPDATED, widget=widgets["web-pending"]),
        event(
            id="3",
            revision=3,
            type=DELETED,
            host_pool=host_pool("hp-1", metadata={"name": "pool-a"}, capacity=4, zones=["z1"]),
        ),
        event(id="4", revision=4, type=SIGNALED, widget=widgets["db-failed"]),
        event(id="5", revision=5, type=CREATED, host_pool=host_pool("hp-2", description="spare")),
    ]


NAMES = ["", "web-1", "web-2", "WEB-3", "db", "50%_off", "5000_off", "a_b", "web_1", "ünï"]
LABEL_KEYS = ["env", "team", "osac.openshift.io/default", "example.com/a.b", "é", 'q"k', "back\\slash"]
LABEL_VALUES = ["", "prod", "dev", "true", "Prod", "q_a"]
DOMAINS = ["a.com", "b.org", "web.a.com", "a%com"]
NODE_SET_KEYS = ["workers", "gpu", "wörkers"]
HOST_TYPES = ["", "bm-h100", "vm-small"]
INT64S = [0, 1, 9, 10, 11, 100, -3, 2**40, 2**62, -(2**62)]
RATIOS = [0.0, 0.5, 0.75, 1.0, 1.5, -0.5]
REASONS = ["", "Stalled", "AsExpected", "NotYetAvailable"]
NETWORKS = ["", "net-1", "net-2"]
#: Offsets from NOW, in seconds, around the interesting boundaries (1 h, 1 day).
OFFSETS = [-3 * 86400, -86400 - 1, -86400, -7200, -3601, -3600, -3599, -1800, -1, 0, 1, 3600]


def random_widget(rng: random.Random, id_: str | None = None) -> Message:
    """A widget with fields drawn from small pools, so that filters hit both sides often."""

    def maybe(probability: float = 0.5) -> bool:
        return rng.random() < probability

    def sample(pool: list[Any], most: int) -> list[Any]:
        return rng.sample(pool, rng.randint(0, min(most, len(pool))))

    def moment() -> dict[str, int]:
        stamp = _at(timedelta(seconds=rng.choice(OFFSETS)))
        stamp["nanos"] = rng.choice([0, 1, 999_999_999, 500_000_000])
        return stamp

    metadata: dict[str, Any] = {
        "name": rng.choice(NAMES),
        "tenant": rng.choice(["acme", "beta"]),
        "labels": {key: rng.choice(LABEL_VALUES) for key in sample(LABEL_KEYS, 3)},
        "version": rng.choice([0, 1, 5]),
        "finalizers": sample(["fulfillment-controller", "x"], 2),
    }
    if maybe(0.8):
        metadata["creation_timestamp"] = moment()
    if maybe(0.2):
        metadata["deletion_timestamp"] = moment()
    spec: dict[str, Any] = {
        "network": rng.choice(NETWORKS),
        "domains": sample(DOMAINS, 3),
        "node_sets": {
            key: {"host_type": rng.choice(HOST_TYPES), "size": rng.choice([0, 1, 2, 3, 4, 5, 10])}
            for key in sample(NODE_SET_KEYS, 2)
        },
        "tier": rng.choice([0, GOLD, SILVER]),
        "ratio": rng.choice(RATIOS),
        "ports": sample([-1, 0, 80, 443, 8080], 3),
        "slots": {slot: rng.choice(["a", "b"]) for slot in sample([1, 2, 3], 2)},
    }
    conditions = [
        _condition(
            rng.choice([PROGRESSING, AVAILABLE, DEGRADED]),
            rng.choice([0, TRUE, FALSE]),
            rng.choice(REASONS),
            ago=timedelta(seconds=-rng.choice(OFFSETS)) if maybe() else None,
        )
        for _ in range(rng.randint(0, 3))
    ]
    status: dict[str, Any] = {
        "state": rng.choice([0, PENDING, READY, FAILED, 4, 9]),
        "available": rng.choice(INT64S),
        "ready": maybe(),
        "message": rng.choice(["", "boom", "ok"]),
        "hub": rng.choice(["", "hub-1"]),
        "conditions": conditions,
    }
    return widget(id_ or f"r{rng.randrange(10**9):09d}", metadata=metadata, spec=spec, status=status)


def random_event(rng: random.Random, revision: int) -> Message:
    event = load().Event(
        id=str(revision), revision=revision, type=rng.choice([0, CREATED, UPDATED, DELETED, SIGNALED])
    )
    if rng.random() < 0.3:
        pool = host_pool(
            f"hp{revision}",
            metadata={"name": rng.choice(NAMES)},
            capacity=rng.choice([0, 4, 9]),
            zones=rng.sample(["z1", "z2"], rng.randint(0, 2)),
        )
        event.host_pool.CopyFrom(pool)
    else:
        event.widget.CopyFrom(random_widget(rng, f"w{revision}"))
    return event
