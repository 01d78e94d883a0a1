"""What the tests of ``tests/caas/test_cluster_scenarios.py`` and the tests that share its set-up use: moved here from that module so that no test module imports another."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from osac.auth.subject import Role
from tests.caas.conftest import PULL_SECRET, RELEASE_IMAGE, ssh_key
from tests.support.onboarding import INSTANT, ready_catalogue, wait_for
from tests.support.server import RestClient, running_server
from tests.support.waiting import until_gone

PUBLIC = "/api/fulfillment/v1"
PRIVATE = "/api/private/v1"
READY = "CLUSTER_STATE_READY"


@asynccontextmanager
async def live(db_url: str, tmp_path: Any, config: dict[str, Any] = INSTANT) -> AsyncIterator[tuple[RestClient, RestClient]]:
    async with running_server(tmp_path, db_url, controllers=True, config=config) as server:
        admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
        await ready_catalogue(admin)
        tenant = (await admin.request("POST", f"{PUBLIC}/tenants", json={"metadata": {"name": "acme"}})).json()
        await wait_for(admin, f"{PUBLIC}/tenants/{tenant['id']}", lambda t: t["status"]["state"] == "TENANT_STATE_READY")
        yield admin, server.rest(server.token(Role.TENANT_ADMIN, ("acme",), user="alice"))


async def create(alice: RestClient, name: str = "prod", **spec: Any) -> dict[str, Any]:
    body = {"metadata": {"name": name},
            "spec": {"template": "ocp-small", "release_image": RELEASE_IMAGE, "pull_secret": PULL_SECRET,
                     "ssh_public_key": ssh_key(), **spec}}
    response = await alice.request("POST", f"{PUBLIC}/clusters", json=body)
    assert response.status_code == 200, response.text
    return dict(response.json())


async def fault(admin: RestClient, name: str, **params: Any) -> str:
    response = await admin.request("POST", f"{PRIVATE}/simulator/faults",
                                   json={"fault": name, "target_kind": "cluster", "params": params})
    assert response.status_code == 200, response.text
    return str(response.json()["id"])


async def clear(admin: RestClient, fault_id: str) -> None:
    assert (await admin.request("DELETE", f"{PRIVATE}/simulator/faults/{fault_id}")).status_code == 200


async def observation(admin: RestClient, cluster_id: str) -> dict[str, Any]:
    """What the simulated HyperShift reports for the cluster (for failure messages)."""
    response = await admin.request("POST", f"{PRIVATE}/simulator/get_observation",
                                   json={"kind": "cluster", "key": cluster_id})
    return dict(response.json())


def condition(cluster: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in cluster["status"]["conditions"] if c["type"] == f"CLUSTER_CONDITION_TYPE_{name}")


def reason(name: str, value: str):  # noqa: ANN201 - a predicate
    return lambda c: condition(c, name)["reason"] == value


async def archived(client: RestClient, path: str, timeout: float = 60) -> None:
    async def describe(last: Any) -> str:
        return f"{path} was never archived; last: {last}; events: {await reasons(client, path.rsplit('/', 1)[-1])}"

    await until_gone(client, path, timeout, describe)


async def events(client: RestClient, object_id: str) -> list[dict[str, Any]]:
    page = (await client.request("GET", f"{PUBLIC}/lifecycle_events",
                                 params={"filter": f"this.object_id == '{object_id}'"})).json()
    return list(page["items"])


async def reasons(client: RestClient, object_id: str) -> list[str]:
    return [e["reason"] for e in await events(client, object_id)]
