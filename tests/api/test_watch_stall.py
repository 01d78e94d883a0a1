"""A Watch client that stops reading is disconnected once an event has waited for it longer than
``api.watch_stall_seconds`` (docs/watch.md "Memory"): over REST the connection is closed, over
gRPC the stream ends with RESOURCE_EXHAUSTED naming the resume; the server goes on serving."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import grpc
import pytest

from osac.auth.subject import Role
from osac.server.settings import DEFAULT_CONFIG, merge_config
from osac.services.core.limits import watch_stalled
from tests.support.networking import prepare_catalogue
from tests.support.server import ServerHandle, running_server

STALL = 1.0
CONFIG = merge_config(DEFAULT_CONFIG, {"api": {"watch_stall_seconds": STALL}})
VNS = "/api/fulfillment/v1/virtual_networks"
#: 60 changes of ~200 KB: far more than a socket's and HTTP/2's buffers hold.
CHANGES = 60
NOTE = 200_000


async def _history(server: ServerHandle) -> int:
    """Write the history; the revision a stream replaying it resumes after."""
    admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
    await prepare_catalogue(admin, defaults=False)
    assert (await admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": "acme"}})).status_code == 200
    alice = server.rest(server.token(Role.TENANT_ADMIN, ("acme",), user="alice"))
    response = await alice.request("POST", VNS, json={"metadata": {"name": "big"}, "spec": {"ipv4_cidr": "10.1.0.0/16"}})
    assert response.status_code == 200, response.text
    vn_id = response.json()["id"]
    start = int((await alice.request("GET", VNS)).json()["revision"])
    for index in range(CHANGES):
        response = await alice.request("PATCH", f"{VNS}/{vn_id}", params={"update_mask": "metadata.annotations"},
                                       json={"metadata": {"annotations": {"note": chr(97 + index % 26) * NOTE}}})
        assert response.status_code == 200, response.text
    return start


@pytest.mark.timeout(120)
async def test_a_rest_client_that_stops_reading_is_disconnected(db_url: str, tmp_path: Path,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    async with running_server(tmp_path, db_url, config=CONFIG) as server:
        after = await _history(server)
        token = server.token(Role.TENANT_ADMIN, ("acme",), user="alice")
        reader, writer = await asyncio.open_connection("127.0.0.1", server.app.http_port)
        writer.write(f"GET /api/events/v1/events?after_revision={after} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     f"Authorization: Bearer {token}\r\n\r\n".encode())
        await writer.drain()
        with caplog.at_level(logging.WARNING, logger="osac.server.stalled_streams"):
            await asyncio.sleep(STALL * 4)  # the client reads nothing
            started = time.monotonic()
            received = 0
            async with asyncio.timeout(30):
                while chunk := await reader.read(1 << 16):  # then everything the server had sent, and the end
                    received += len(chunk)
        writer.close()
        assert time.monotonic() - started < 10
        assert 0 < received < CHANGES * NOTE, "the server ended the stream before the end of the history"
        assert watch_stalled(STALL) in caplog.messages
        assert "ASGI callable returned without completing response." not in caplog.messages
        # the server serves on, and a client that reads gets the whole history
        alice = server.rest(token)
        assert (await alice.request("GET", VNS)).status_code == 200


@pytest.mark.timeout(120)
async def test_a_grpc_client_that_stops_reading_gets_resource_exhausted(db_url: str, tmp_path: Path) -> None:
    async with running_server(tmp_path, db_url, config=CONFIG) as server:
        after = await _history(server)
        async with server.grpc(server.token(Role.TENANT_ADMIN, ("acme",), user="alice")) as client:
            call = client.stream("osac.public.v1.Events", "Watch", after_revision=after)
            await asyncio.sleep(STALL * 4)  # the client reads nothing
            received = 0
            with pytest.raises(grpc.aio.AioRpcError) as ended:
                async with asyncio.timeout(30):
                    async for _event in call:
                        received += 1
            assert ended.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert ended.value.details() == watch_stalled(STALL)
            assert received < CHANGES
            response = await client.call("osac.public.v1.VirtualNetworks", "List")
            assert response.total == 1  # type: ignore[attr-defined]


def test_the_stall_limit_is_checked_at_start() -> None:
    from osac.server.settings import Settings

    for bad in (0, -1, "30s", True, 7200):
        with pytest.raises(ValueError, match="api.watch_stall_seconds: .* is not a number of seconds above 0, at most 3600"):
            _ = Settings(config=merge_config(DEFAULT_CONFIG, {"api": {"watch_stall_seconds": bad}})).watch_stall_seconds
