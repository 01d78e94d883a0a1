"""What the tests of ``tests/caas/test_cluster_lifecycle.py`` and the tests that share its set-up use: moved here from that module so that no test module imports another."""

from __future__ import annotations

from typing import Any

import pytest

from osac.auth.subject import Role
from tests.support.onboarding import INSTANT, ready_catalogue, wait_for
from tests.support.server import running_server
from tests.support.waiting import until_gone

PUBLIC = "/api/fulfillment/v1"
PRIVATE = "/api/private/v1"


@pytest.fixture
async def live(db_url, tmp_path):
    async with running_server(tmp_path, db_url, controllers=True, config=INSTANT) as server:
        admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
        await ready_catalogue(admin)
        tenant = (await admin.request("POST", f"{PUBLIC}/tenants", json={"metadata": {"name": "acme"}})).json()
        await wait_for(admin, f"{PUBLIC}/tenants/{tenant['id']}", lambda t: t["status"]["state"] == "TENANT_STATE_READY")
        alice = server.rest(server.token(Role.TENANT_ADMIN, ("acme",), user="alice"))
        yield server, admin, alice


def condition(cluster: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in cluster["status"]["conditions"] if c["type"] == f"CLUSTER_CONDITION_TYPE_{name}")


async def archived(client, path: str, timeout: float = 60.0) -> None:
    await until_gone(client, path, timeout)


async def event_reasons(client, object_id: str) -> list[str]:
    page = (await client.request("GET", f"{PUBLIC}/lifecycle_events",
                                 params={"filter": f"this.object_id == '{object_id}'"})).json()
    return [e["reason"] for e in page["items"]]
