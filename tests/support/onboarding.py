"""What the tests of ``tests/reconcile/test_default_networking.py`` and the tests that share its set-up use: moved here from that module so that no test module imports another."""

from __future__ import annotations

from typing import Any

import pytest

from osac.auth.subject import Role
from osac.server.settings import DEFAULT_CONFIG, merge_config
from tests.support.server import running_server
from tests.support.waiting import until_get

INSTANT = merge_config(DEFAULT_CONFIG, {"simulator": {"speed": "instant"}})


async def wait_for(client, path: str, predicate, timeout: float = 20.0) -> dict[str, Any]:
    return dict(await until_get(client, path, predicate, timeout))


async def ready_catalogue(admin) -> None:
    await wait_for(admin, "/api/private/v1/network_classes",
                   lambda page: page["items"][0].get("status", {}).get("state") == "NETWORK_CLASS_STATE_READY")
    await wait_for(admin, "/api/private/v1/external_ip_pools",
                   lambda page: page["items"][0].get("status", {}).get("state") == "EXTERNAL_IP_POOL_STATE_READY")


@pytest.fixture
async def live(db_url, tmp_path):
    async with running_server(tmp_path, db_url, controllers=True, config=INSTANT) as server:
        admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
        await ready_catalogue(admin)
        yield server, admin
