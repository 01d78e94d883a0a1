"""The change stream: outbox order, resume without loss, across a server restart."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from osac.auth.subject import Role
from osac.model import protos
from tests.support.networking import prepare_catalogue
from tests.support.server import running_server
from tests.support.watching import payload, read_events, revisions


async def _make_networks(client, count: int, start: int = 0) -> list[str]:
    ids = []
    for index in range(start, start + count):
        response = await client.request(
            "POST", "/api/fulfillment/v1/virtual_networks",
            json={"metadata": {"name": f"vn-{index}"}, "spec": {"ipv4_cidr": f"10.{index}.0.0/16"}},
        )
        assert response.status_code == 200, response.text
        ids.append(response.json()["id"])
    return ids


async def _tenant(server) -> None:
    admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
    await prepare_catalogue(admin, defaults=False)  # also for servers started here, not by the fixture
    assert (await admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": "acme"}})).status_code == 200


async def test_list_then_watch_from_list_revision_has_no_gap(server) -> None:
    await _tenant(server)
    alice = server.rest(server.token(Role.TENANT_ADMIN, ("acme",), user="alice"))
    await _make_networks(alice, 3)
    page = (await alice.request("GET", "/api/fulfillment/v1/virtual_networks")).json()
    later = await _make_networks(alice, 2, start=3)
    lines = await read_events(server.http_url, server.token(Role.TENANT_ADMIN, ("acme",)),
                              params={"after_revision": page["revision"], "filter": "has(event.virtual_network)"})
    assert [payload(line)[1]["id"] for line in lines] == later
    assert all(line["result"]["event"]["type"] == "EVENT_TYPE_OBJECT_CREATED" for line in lines)


async def test_resume_after_disconnect_gets_every_missed_event_once(server) -> None:
    await _tenant(server)
    token = server.token(Role.TENANT_ADMIN, ("acme",), user="alice")
    alice = server.rest(token)
    first = await _make_networks(alice, 4)
    lines = await read_events(server.http_url, token, params={"after_revision": "1", "filter": "has(event.virtual_network)"}, count=2)
    assert [payload(line)[1]["id"] for line in lines] == first[:2]
    last = revisions(lines)[-1]
    more = await _make_networks(alice, 3, start=4)
    resumed = await read_events(server.http_url, token, params={"after_revision": str(last), "filter": "has(event.virtual_network)"})
    assert [payload(line)[1]["id"] for line in resumed] == first[2:] + more
    seen = revisions(lines) + revisions(resumed)
    assert seen == sorted(set(seen))


async def test_resume_across_server_restart(db_url, tmp_path) -> None:
    async with running_server(tmp_path, db_url) as server:
        await _tenant(server)
        token = server.token(Role.TENANT_ADMIN, ("acme",), user="alice")
        before = await _make_networks(server.rest(token), 2)
        lines = await read_events(server.http_url, token, params={"after_revision": "1", "filter": "has(event.virtual_network)"})
        last = revisions(lines)[-1]
        assert [payload(line)[1]["id"] for line in lines] == before
    async with running_server(tmp_path, db_url) as server:
        token = server.token(Role.TENANT_ADMIN, ("acme",), user="alice")
        after = await _make_networks(server.rest(token), 2, start=2)
        resumed = await read_events(server.http_url, token, params={"after_revision": str(last), "filter": "has(event.virtual_network)"})
        assert [payload(line)[1]["id"] for line in resumed] == after
        assert min(revisions(resumed)) > last


async def test_live_watch_over_grpc_sees_update_and_delete(server) -> None:
    await _tenant(server)
    token = server.token(Role.TENANT_ADMIN, ("acme",), user="alice")
    alice = server.rest(token)
    async with server.grpc(token) as client:
        stream = client.stream(f"{protos.PUBLIC}.Events", "Watch", filter="has(event.virtual_network)")
        async with asyncio.timeout(10):  # the headers come once the stream is live, before any event
            await stream.initial_metadata()
        [vn] = await _make_networks(alice, 1)
        await alice.request("PATCH", f"/api/fulfillment/v1/virtual_networks/{vn}", json={"metadata": {"labels": {"a": "b"}}})
        await alice.request("DELETE", f"/api/fulfillment/v1/virtual_networks/{vn}")
        events = []
        async with asyncio.timeout(20):
            async for response in stream:
                events.append(response.event)
                if len(events) == 3:
                    break
        stream.cancel()
    assert [e.type for e in events] == [1, 2, 3]
    assert [e.virtual_network.id for e in events] == [vn] * 3
    assert events[1].virtual_network.metadata.labels["a"] == "b"
    assert events[0].revision < events[1].revision < events[2].revision


async def test_a_live_watch_over_rest_is_live_once_its_headers_came(server) -> None:
    """A REST stream's status line comes once the stream is established: the first change
    committed after it is the stream's first line, with no wait on the client's side."""
    import json

    import httpx

    await _tenant(server)
    token = server.token(Role.TENANT_ADMIN, ("acme",), user="alice")
    headers = {"authorization": f"Bearer {token}"}
    async with (
        asyncio.timeout(20),
        httpx.AsyncClient(base_url=server.http_url, timeout=None) as http,
        http.stream("GET", "/api/events/v1/events", params={"filter": "has(event.virtual_network)"},
                    headers=headers) as response,
    ):
        assert response.status_code == 200
        [vn] = await _make_networks(server.rest(token), 1)
        async for line in response.aiter_lines():
            if line.strip():
                break
    kind, created = payload(json.loads(line))
    assert (kind, created["id"]) == ("virtual_network", vn)


async def test_resume_from_pruned_revision_is_out_of_range(server) -> None:
    from datetime import timedelta

    from osac.store import outbox

    await _tenant(server)
    token = server.token(Role.TENANT_ADMIN, ("acme",), user="alice")
    await _make_networks(server.rest(token), 2)
    removed = await outbox.prune(server.app.store, server.app.clock.now() + timedelta(seconds=1))
    assert removed > 0
    lines = await read_events(server.http_url, token, params={"after_revision": "1"})
    [error] = lines
    assert error["status"] == 400
    assert error["body"]["code"] == grpc.StatusCode.OUT_OF_RANGE.value[0]
    assert error["body"]["message"].startswith("revision 1 is no longer retained (oldest is ")
    assert error["body"]["message"].endswith("re-list and resume from the list revision")


@pytest.mark.parametrize("expression, message", [
    ("has(event.nonexistent)", "nonexistent"),
    ("event.type ==", "filter"),
])
async def test_bad_watch_filter_is_invalid_argument(server, expression: str, message: str) -> None:
    lines = await read_events(server.http_url, server.token(Role.PROVIDER_ADMIN), params={"filter": expression})
    assert lines[0]["status"] == 400 and message in lines[0]["body"]["message"]


async def test_streams_that_only_choose_kinds_are_served_from_the_shared_window(server) -> None:
    """``has(event.virtual_network) || has(event.subnet)`` keeps exactly those kinds of the
    caller's tenants, like the SQL filter (another tenant's network and a host type are not
    shown), and twenty such streams cost the server no more statements per commit than one
    (filters.payload_kinds, docs/watch.md)."""
    from osac.store import cost

    await _tenant(server)
    admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
    assert (await admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": "other"}})).status_code == 200
    acme = server.token(Role.TENANT_ADMIN, ("acme",), user="alice")
    other = server.token(Role.TENANT_ADMIN, ("other",), user="bob")
    kinds = "has(event.virtual_network) || has(event.subnet)"
    async with server.grpc(acme) as client:
        streams = [client.stream(f"{protos.PUBLIC}.Events", "Watch", filter=kinds) for _ in range(20)]
        async with asyncio.timeout(10):  # every stream live before the first change
            await asyncio.gather(*(stream.initial_metadata() for stream in streams))

        async def statements_of(make) -> int:
            await asyncio.sleep(0.3)
            before = cost.PROCESS.statements
            await make()
            await asyncio.sleep(0.3)
            return cost.PROCESS.statements - before

        [vn] = await _make_networks(server.rest(acme), 1)
        await _make_networks(server.rest(other), 1, start=50)  # another tenant's: never shown
        host_type = await admin.request("POST", "/api/private/v1/host_types", json={"metadata": {"name": "ht"}})
        assert host_type.status_code == 200, host_type.text  # another kind: not chosen
        label = {"metadata": {"labels": {"seen": "yes"}}}
        many = await statements_of(lambda: server.rest(acme).request(
            "PATCH", f"/api/fulfillment/v1/virtual_networks/{vn}", json=label))
        for stream in streams[1:]:
            stream.cancel()
        await asyncio.sleep(0.5)
        one = await statements_of(lambda: server.rest(acme).request(
            "PATCH", f"/api/fulfillment/v1/virtual_networks/{vn}", json={"metadata": {"labels": {"seen": "again"}}}))
        assert many <= one + 2, (many, one)  # a poll may fall in either window; never one per stream

        seen = []
        async with asyncio.timeout(20):
            async for response in streams[0]:
                event = response.event
                seen.append((event.WhichOneof("payload"), event.type, event.virtual_network.id,
                             dict(event.virtual_network.metadata.labels)))
                if len(seen) == 3:
                    break
        streams[0].cancel()
    assert seen == [("virtual_network", 1, vn, {}), ("virtual_network", 2, vn, {"seen": "yes"}),
                    ("virtual_network", 2, vn, {"seen": "again"})]


async def test_an_event_is_encoded_once_for_every_stream_of_the_shared_window(server) -> None:
    """Streams of one API and one encoding share what is sent: the event's gRPC response is
    serialised once however many streams send it (EventsService.watch's ``encode``), a stream
    with a filter of its own encodes for itself, and every stream gets its own tenant's view."""
    await _tenant(server)
    caller = await server.app.authenticator.caller(f"Bearer {server.token(Role.TENANT_ADMIN, ('acme',))}", private=False)
    encoded: list[int] = []

    def encode(event) -> tuple[int, str]:
        encoded.append(event.revision)
        return event.revision, event.WhichOneof("payload")

    shared = [await server.app.events.watch(caller, "", 0, encode) for _ in range(5)]
    own = await server.app.events.watch(caller, "event.virtual_network.metadata.name == 'vn-0'", 0, encode)
    firsts = [asyncio.ensure_future(anext(stream)) for stream in [*shared, own]]
    await asyncio.sleep(0.2)  # every stream is waiting for the next commit
    await _make_networks(server.rest(server.token(Role.TENANT_ADMIN, ("acme",))), 1)
    async with asyncio.timeout(10):
        sent = [await first for first in firsts]
    for stream in [*shared, own]:
        await stream.aclose()

    revision = sent[0][0]
    assert sent == [(revision, "virtual_network")] * 6
    assert all(item is sent[0] for item in sent[:5])  # one object for the five shared streams
    assert encoded == [revision, revision]  # once for them, once for the stream of its own filter
