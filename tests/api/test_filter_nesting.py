"""Nested exists() in List and Watch filters (issue #20), through the running server.

Given security groups with and without a TCP ingress rule, when a client lists or watches with
the issue's filter shape (nested exists() around an arithmetic term) up to the deepest nesting
allowed, then it gets the matching object; one level more is refused before any stream opens.
A Watch whose query fails in the database ends with an error line, not silently.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import grpc
import httpx
import pytest
from sqlalchemy import text

from osac.auth.subject import Role
from osac.filters.macros import MAX_COMPREHENSION_NESTING
from osac.model import protos
from tests.support.networking import prepare_catalogue, set_state
from tests.support.server import GrpcError, ServerHandle
from tests.support.watching import payload, read_events

PUBLIC = "/api/fulfillment/v1"
WATCH = "/api/events/v1/events"


def nested(root: str, levels: int) -> str:
    """The issue's filter over a security group's ingress rules, ``levels`` exists() deep."""
    rules = f"{root}.spec.ingress"
    inner = "(r.port_from * 4 / 4 == r.port_from) && r.protocol == PROTOCOL_TCP"
    for level in range(levels):
        inner = f"{rules}.exists(r, {inner})"
        if level < levels - 1:
            inner = f"({inner}) && r.protocol == PROTOCOL_TCP"
    return f"(size({rules}) > 0) && ({inner})"


async def _groups(server: ServerHandle) -> tuple[str, str]:
    """A tenant's two security groups: (with a TCP rule, without rules); alice's token."""
    admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
    await prepare_catalogue(admin, defaults=False)
    response = await admin.request("POST", f"{PUBLIC}/tenants", json={"metadata": {"name": "acme"}})
    assert response.status_code == 200, response.text
    async with server.rest(_alice(server)) as alice:
        response = await alice.request(
            "POST", f"{PUBLIC}/virtual_networks", json={"metadata": {"name": "app"}, "spec": {"ipv4_cidr": "10.1.0.0/16"}}
        )
        assert response.status_code == 200, response.text
        network = response.json()["id"]
        await set_state(admin, "virtual_networks", network)  # no reconciler runs here
        ids = []
        for name, rules in (("web", [{"protocol": "PROTOCOL_TCP", "port_from": 443, "port_to": 443, "ipv4_cidr": "0.0.0.0/0"}]),
                            ("closed", [])):
            response = await alice.request(
                "POST", f"{PUBLIC}/security_groups",
                json={"metadata": {"name": name}, "spec": {"virtual_network": network, "ingress": rules}},
            )
            assert response.status_code == 200, response.text
            ids.append(response.json()["id"])
    await admin.http.aclose()
    return ids[0], ids[1]


def _alice(server: ServerHandle) -> str:
    return server.token(Role.TENANT_ADMIN, ("acme",), user="alice")


async def test_list_answers_nested_exists_up_to_the_deepest_nesting(server: ServerHandle) -> None:
    web, _ = await _groups(server)
    async with server.rest(_alice(server)) as alice:
        for levels in range(1, MAX_COMPREHENSION_NESTING + 1):
            response = await alice.request("GET", f"{PUBLIC}/security_groups", params={"filter": nested("this", levels)})
            assert response.status_code == 200, (levels, response.text)
            assert [item["id"] for item in response.json()["items"]] == [web], levels
    async with server.grpc(_alice(server)) as client:
        reply: Any = await client.call(
            f"{protos.PUBLIC}.SecurityGroups", "List", filter=nested("this", MAX_COMPREHENSION_NESTING)
        )
    assert [item.id for item in reply.items] == [web]


@pytest.mark.parametrize("levels", [3, MAX_COMPREHENSION_NESTING], ids=["issue", "deepest"])
async def test_watch_answers_nested_exists(server: ServerHandle, levels: int) -> None:
    web, _ = await _groups(server)
    lines = await read_events(
        server.http_url, _alice(server), path=WATCH, params={"after_revision": "1", "filter": nested("event.security_group", levels)}
    )
    assert all("result" in line for line in lines), lines
    assert [payload(line)[1]["id"] for line in lines] == [web]
    async with server.grpc(_alice(server)) as client:
        stream = client.stream(
            f"{protos.PUBLIC}.Events", "Watch", after_revision=1, filter=nested("event.security_group", levels)
        )
        async with asyncio.timeout(20):
            first = await anext(aiter(stream))
        stream.cancel()
    assert first.event.security_group.id == web


async def test_one_nesting_level_too_many_is_refused_before_any_stream(server: ServerHandle) -> None:
    await _groups(server)
    limit = f"exists() and all() nest at most {MAX_COMPREHENSION_NESTING} levels deep"
    too_deep = MAX_COMPREHENSION_NESTING + 1
    async with server.rest(_alice(server)) as alice:
        response = await alice.request("GET", f"{PUBLIC}/security_groups", params={"filter": nested("this", too_deep)})
    assert response.status_code == 400 and limit in response.json()["message"], response.text
    [line] = await read_events(
        server.http_url, _alice(server), path=WATCH, params={"filter": nested("event.security_group", too_deep)}
    )
    assert line["status"] == 400 and limit in line["body"]["message"], line
    assert line["body"]["code"] == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    async with server.grpc(_alice(server)) as client:
        stream = client.stream(f"{protos.PUBLIC}.Events", "Watch", filter=nested("event.security_group", too_deep))
        with pytest.raises(grpc.aio.AioRpcError) as raised:
            await anext(aiter(stream))
        with pytest.raises(GrpcError) as listed:
            await client.call(f"{protos.PUBLIC}.SecurityGroups", "List", filter=nested("this", too_deep))
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT and limit in (raised.value.details() or "")
    assert listed.value.code == grpc.StatusCode.INVALID_ARGUMENT and limit in listed.value.message


async def test_watch_whose_query_fails_in_the_database_ends_with_an_error_line(server: ServerHandle) -> None:
    """When reading the outbox fails mid-stream (here: its table is gone), the client is told."""
    web, _ = await _groups(server)
    lines: list[dict[str, Any]] = []
    headers = {"authorization": f"Bearer {_alice(server)}"}
    params = {"after_revision": "1", "filter": nested("event.security_group", 3)}
    async with (
        asyncio.timeout(30),
        httpx.AsyncClient(base_url=server.http_url, timeout=None) as http,
        http.stream("GET", WATCH, params=params, headers=headers) as response,
    ):
        assert response.status_code == 200
        iterator = response.aiter_lines()
        lines.append(json.loads(await anext(iterator)))
        async with server.app.store.engines.writer.begin() as connection:
            await connection.execute(text("ALTER TABLE events RENAME TO events_gone"))
        try:
            async for line in iterator:
                if line.strip():
                    lines.append(json.loads(line))
        finally:
            async with server.app.store.engines.writer.begin() as connection:
                await connection.execute(text("ALTER TABLE events_gone RENAME TO events"))
    first, *rest = lines
    assert payload(first)[1]["id"] == web
    assert rest == [{"error": {"code": grpc.StatusCode.INTERNAL.value[0], "message": "internal error; see the server log",
                               "details": []}}]
