"""Scenario 19 (cluster-status.md §18, §20): what metering reads from the change stream. The
private and public payloads of one revision carry the same status (private adds ``hub``); a
consumer that disconnects during a cluster's whole life and resumes from its last revision gets
every missed event once, in order, each state change with its ``state_transition_time``, DELETING
before DELETED; a revision older than retention is OUT_OF_RANGE."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import grpc

from osac.auth.subject import Role
from osac.store import outbox
from tests.caas.conftest import RELEASE_IMAGE
from tests.support.cluster_lifecycle import PUBLIC, archived, live
from tests.support.onboarding import wait_for
from tests.support.watching import payload, read_events, revisions

__all__ = ["live"]

PRIVATE_WATCH = "/api/private/v1/events/watch"
CLUSTERS = {"filter": "has(event.cluster)"}


async def _revision(client: Any) -> int:
    return int((await client.request("GET", f"{PUBLIC}/clusters")).json()["revision"])


def _clusters(lines: list[dict[str, Any]]) -> list[tuple[int, str, dict[str, Any]]]:
    """(revision, event type, cluster) of each line."""
    found = []
    for line in lines:
        kind, obj = payload(line)
        assert kind == "cluster", line
        found.append((int(line["result"]["event"]["revision"]), line["result"]["event"]["type"], obj))
    return found


async def test_a_consumer_resuming_from_its_last_revision_misses_nothing(live) -> None:
    server, admin, alice = live
    public_token = server.token(Role.TENANT_ADMIN, ("acme",), user="alice")
    private_token = server.token(Role.PROVIDER_ADMIN, user="root")
    start = await _revision(alice)
    body = {"metadata": {"name": "metered"}, "spec": {"template": "ocp-small", "release_image": RELEASE_IMAGE}}
    created = (await alice.request("POST", f"{PUBLIC}/clusters", json=body)).json()
    path = f"{PUBLIC}/clusters/{created['id']}"

    # The consumer reads the first change, then is gone for the cluster's whole life.
    first = await read_events(server.http_url, public_token, params={"after_revision": str(start), **CLUSTERS},
                              count=1)
    last = revisions(first)[-1]
    await wait_for(alice, path, lambda c: c["status"]["state"] == "CLUSTER_STATE_READY", timeout=60)
    assert (await alice.request("DELETE", path)).status_code == 200
    await archived(alice, path)

    resumed = _clusters(await read_events(server.http_url, public_token,
                                          params={"after_revision": str(last), **CLUSTERS}))
    private = _clusters(await read_events(server.http_url, private_token, path=PRIVATE_WATCH,
                                          params={"after_revision": str(last), **CLUSTERS}))
    assert [r for r, _, _ in resumed] == [r for r, _, _ in private] == sorted({r for r, _, _ in resumed})
    assert min(r for r, _, _ in resumed) > last
    for (_, _, public_cluster), (_, _, private_cluster) in zip(resumed, private, strict=True):
        private_status = dict(private_cluster["status"])
        private_status.pop("hub", None)
        assert public_cluster["status"] == private_status

    versions = [int(c["metadata"].get("version", 0)) for _, _, c in resumed]
    assert versions == sorted(versions)
    states = [c["status"]["state"] for _, _, c in resumed]
    assert "CLUSTER_STATE_READY" in states
    previous = payload(first[0])[1]["status"]
    for _, _, cluster in resumed:
        status = cluster["status"]
        if status["state"] != previous["state"]:
            assert status["state_transition_time"] != previous.get("state_transition_time"), status
        previous = status
    types = [t for _, t, _ in resumed]
    assert types[-1] == "EVENT_TYPE_OBJECT_DELETED" and types.count("EVENT_TYPE_OBJECT_DELETED") == 1
    assert states.index("CLUSTER_STATE_DELETING") < len(states) - 1  # DELETING announced before DELETED

    removed = await outbox.prune(server.app.store, server.app.clock.now() + timedelta(seconds=1))
    assert removed > 0
    [error] = await read_events(server.http_url, public_token, params={"after_revision": str(last), **CLUSTERS})
    assert error["status"] == 400 and error["body"]["code"] == grpc.StatusCode.OUT_OF_RANGE.value[0]
    assert error["body"]["message"].startswith(f"revision {last} is no longer retained")
