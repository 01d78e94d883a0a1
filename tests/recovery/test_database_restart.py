"""PostgreSQL restarts under a running ``osac serve``: while it is down the API answers
UNAVAILABLE (HTTP 503) and ``/healthz`` 503; once it is back the same process serves and
reconciles again, without a restart of its own (docs/deploy.md)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.private_postgres import PrivatePostgres
from tests.support.server_process import ServerProcess, catalogue_ready, get_json

PUBLIC = "/api/fulfillment/v1"


@pytest.fixture
def private_postgres() -> Iterator[PrivatePostgres]:
    if not PrivatePostgres.available():
        pytest.skip("no PostgreSQL binaries to run a server of the test's own")
    database = PrivatePostgres()
    try:
        database.create()
        yield database
    finally:
        database.remove()


async def _ready(admin, tenant_id: str) -> None:  # type: ignore[no-untyped-def]
    async with asyncio.timeout(60):
        while (await get_json(admin, f"{PUBLIC}/tenants/{tenant_id}"))["status"].get("state") != "TENANT_STATE_READY":
            await asyncio.sleep(0.2)


@pytest.mark.timeout(300)
async def test_the_api_answers_unavailable_while_postgresql_is_down_and_recovers_by_itself(
    private_postgres: PrivatePostgres, tmp_path: Path
) -> None:
    server = ServerProcess(tmp_path / "data", private_postgres.url)
    await server.start()
    try:
        async with server.client() as admin:
            await catalogue_ready(admin)
            acme = (await admin.post(f"{PUBLIC}/tenants", json={"metadata": {"name": "acme"}})).json()
            await _ready(admin, acme["id"])

            private_postgres.stop()
            down = await admin.get(f"{PUBLIC}/tenants/{acme['id']}")
            assert down.status_code == 503, down.text
            assert down.json()["code"] == 14  # UNAVAILABLE
            assert "database" in down.json()["message"]
            created = await admin.post(f"{PUBLIC}/tenants", json={"metadata": {"name": "beta"}})
            assert created.status_code == 503, created.text
            assert (await admin.get("/healthz")).status_code == 503

            private_postgres.start()
            async with asyncio.timeout(30):
                while (await admin.get("/healthz")).status_code != 200:
                    await asyncio.sleep(0.2)
            assert (await get_json(admin, f"{PUBLIC}/tenants/{acme['id']}"))["metadata"]["name"] == "acme"
            beta = await admin.post(f"{PUBLIC}/tenants", json={"metadata": {"name": "beta"}})
            assert beta.status_code == 200, beta.text
            await _ready(admin, beta.json()["id"])  # the controllers reconcile again
            names = [item["metadata"]["name"] for item in (await get_json(admin, f"{PUBLIC}/tenants"))["items"]]
            assert sorted(names) == ["acme", "beta"]  # the refused create stored nothing
        assert server.process is not None and server.process.poll() is None  # never restarted
    finally:
        server.stop()
