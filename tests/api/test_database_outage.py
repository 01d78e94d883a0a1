"""PostgreSQL goes away and comes back: while it is gone every request answers UNAVAILABLE (503
over REST) with a message that says to retry and writes nothing; once it is back the same server
answers again, without a restart of its own."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import psycopg
import pytest
from sqlalchemy.engine import make_url

from osac.api.public.v1 import virtual_networks_service_pb2 as vn_service
from osac.auth.subject import Role
from tests.support.server import GrpcError, running_server

NETWORKS = "/api/fulfillment/v1/virtual_networks"
UNAVAILABLE = "the database cannot be reached now; nothing was changed, retry the request"


def _admin_dsn(url: str) -> tuple[str, str]:
    parsed = make_url(url)
    name = parsed.database
    assert name
    return parsed.set(drivername="postgresql", database="postgres").render_as_string(hide_password=False), name


async def _set_reachable(url: str, reachable: bool) -> None:
    dsn, name = _admin_dsn(url)
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as admin:
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS {"true" if reachable else "false"}')
        if not reachable:
            await admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                [name],
            )


async def test_requests_answer_unavailable_while_postgresql_is_gone_and_recover(pg_database: str, tmp_path: Path) -> None:
    async with running_server(tmp_path, pg_database) as server:
        admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
        assert (await admin.request("GET", NETWORKS)).status_code == 200
        before = (await admin.request("GET", NETWORKS)).json()
        await _set_reachable(pg_database, False)
        try:
            listed = await admin.request("GET", NETWORKS)
            assert (listed.status_code, listed.json()["message"]) == (503, UNAVAILABLE)
            created = await admin.request(
                "POST", NETWORKS, json={"metadata": {"name": "during-outage", "tenant": "shared"},
                                        "spec": {"ipv4_cidr": "10.77.0.0/16"}}
            )
            assert (created.status_code, created.json()["message"]) == (503, UNAVAILABLE)
            async with server.grpc(server.token(Role.PROVIDER_ADMIN, user="root")) as client:
                with pytest.raises(GrpcError) as raised:
                    await client.call("osac.public.v1.VirtualNetworks", "List", vn_service.VirtualNetworksListRequest())
            assert (raised.value.code, raised.value.message) == (grpc.StatusCode.UNAVAILABLE, UNAVAILABLE)
            health = await admin.request("GET", "/healthz")
            assert health.status_code != 500
        finally:
            await _set_reachable(pg_database, True)
        # Back: the pool reconnects on its own; nothing was written meanwhile.
        async with asyncio.timeout(10):
            while (after := await admin.request("GET", NETWORKS)).status_code != 200:
                await asyncio.sleep(0.1)
        assert after.json()["total"] == before["total"]
        assert "during-outage" not in [item["metadata"]["name"] for item in after.json()["items"]]
