"""A regression guard on what cluster passes cost, counted rather than timed (issue 19): at 100
READY clusters, each infrastructure change (the simulator fault ``hc_degraded`` set or cleared)
costs exactly one pass, of the cluster it targets and of no other, and that pass sends at most
``CHANGE_STATEMENTS`` statements in at most one write transaction and parses no storage JSON; a
settled cluster's resync pass sends at most ``RESYNC_STATEMENTS`` and writes nothing. It fails
when a change makes passes more frequent or more expensive, whatever the machine's speed.

The counts come from the controller itself (``Controller.add_pass_listener``, ``osac.store.cost``).
The resync interval is set out of reach (1,000 h), so no cluster's resync slot falls inside the
test and every pass seen is one a change caused."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import timedelta
from typing import Any

import pytest

from bench.pass_cost import Passes
from osac.auth.subject import Role
from osac.model import protos
from osac.server.settings import merge_config
from osac.store.cost import PassCost
from tests.caas.conftest import PULL_SECRET, RELEASE_IMAGE, ssh_key
from tests.support.onboarding import INSTANT, ready_catalogue, wait_for
from tests.support.server import running_server

PUBLIC = "/api/fulfillment/v1"
PRIVATE = "/api/private/v1"
FAULTS = f"{protos.PRIVATE}.SimulatorFaults"
CLUSTERS = 100
#: The changes measured: each of these clusters gets its fault set, then cleared.
TARGETS = 5
#: Per change pass: the cluster; the simulated plan's row, its faults and its ports; the status
#: write (the cluster's row, its lifecycle event, the revision counter, the outbox row).
CHANGE_STATEMENTS = 8
#: Per resync pass of a settled cluster: the cluster; the plan's row, its faults and its ports.
RESYNC_STATEMENTS = 4
CONFIG = merge_config(INSTANT, {"cluster_status": {"resync_interval": "1000h"}})


@pytest.fixture
async def fleet(db_url, tmp_path):
    async with running_server(tmp_path, db_url, controllers=True, config=CONFIG) as server:
        admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
        await ready_catalogue(admin)
        # a /22 VIP block per tenant subnet: room for every cluster's two VIPs in one tenant
        classes = (await admin.request("GET", f"{PRIVATE}/network_classes")).json()["items"]
        default = next(item for item in classes if item.get("is_default"))
        widened = await admin.request("PATCH", f"{PRIVATE}/network_classes/{default['id']}",
                                      params={"update_mask": "spec.vip_prefix_length"},
                                      json={"spec": {"vip_prefix_length": 22}})
        assert widened.status_code == 200, widened.text
        await ready_catalogue(admin)
        tenant = (await admin.request("POST", f"{PUBLIC}/tenants", json={"metadata": {"name": "acme"}})).json()
        await wait_for(admin, f"{PUBLIC}/tenants/{tenant['id']}",
                       lambda t: t["status"]["state"] == "TENANT_STATE_READY", timeout=60)
        alice = server.rest(server.token(Role.TENANT_ADMIN, ("acme",), user="alice"))
        key = ssh_key()

        async def create(index: int) -> str:
            body = {"metadata": {"name": f"c{index:03d}"},
                    "spec": {"template": "ocp-small", "release_image": RELEASE_IMAGE, "pull_secret": PULL_SECRET,
                             "ssh_public_key": key}}
            response = await alice.request("POST", f"{PUBLIC}/clusters", json=body)
            assert response.status_code == 200, response.text
            return str(response.json()["id"])

        ids: list[str] = []
        for start in range(0, CLUSTERS, 10):
            ids += await asyncio.gather(*(create(index) for index in range(start, min(start + 10, CLUSTERS))))
        ready = "this.status.state == CLUSTER_STATE_READY"
        await wait_for(alice, f"{PUBLIC}/clusters?limit=1&filter={ready}", lambda page: page["total"] == CLUSTERS,
                       timeout=240)
        yield server, ids


async def _passes_of(passes: Passes, controller: Any, trigger: Any, target: str) -> tuple[Counter[str], list[PassCost]]:
    """Run ``trigger``; the passes per cluster until the controller is quiet, and the target's costs."""
    start = len(passes.seen)
    await trigger()
    await passes.quiet(controller, after=start, object_id=target)
    seen = passes.seen[start:]
    return Counter(object_id for object_id, _, _ in seen), [cost for object_id, _, cost in seen if object_id == target]


async def test_each_change_costs_one_bounded_pass_of_its_cluster_and_none_of_the_others(fleet) -> None:
    server, ids = fleet
    controller = server.app.controllers.controllers["cluster"]
    passes = Passes()
    controller.add_pass_listener(passes)
    await passes.quiet(controller, 1.0)
    fault_cls = protos.message_class(f"{protos.PRIVATE}.SimulatorFault")
    async with server.grpc(server.token(Role.PROVIDER_ADMIN, user="root")) as grpc:
        for target in ids[:: CLUSTERS // TARGETS][:TARGETS]:
            created: dict[str, str] = {}

            async def set_fault(target: str = target, created: dict[str, str] = created) -> None:
                fault = fault_cls(fault="hc_degraded", target_kind="cluster", target_id=target)
                created["id"] = (await grpc.call(FAULTS, "Create", object=fault)).object.id

            async def clear_fault(created: dict[str, str] = created) -> None:
                await grpc.call(FAULTS, "Delete", id=created["id"])

            for trigger, degraded in ((set_fault, "CONDITION_STATUS_TRUE"), (clear_fault, "CONDITION_STATUS_FALSE")):
                # When the infrastructure changes under one cluster
                per_cluster, costs = await _passes_of(passes, controller, trigger, target)
                # Then exactly that cluster has exactly one pass, and it is bounded
                assert per_cluster == {target: 1}, per_cluster
                [cost] = costs
                assert cost.statements <= CHANGE_STATEMENTS, cost
                assert cost.write_transactions == 1 and cost.read_transactions <= 2, cost
                assert cost.decoded == 0, cost  # every version it reads was parsed or written before
                cluster = (await server.rest(server.token(Role.PROVIDER_ADMIN, user="root")).request(
                    "GET", f"{PRIVATE}/clusters/{target}")).json()
                condition = next(c for c in cluster["status"]["conditions"]
                                 if c["type"] == "CLUSTER_CONDITION_TYPE_DEGRADED")
                assert condition["status"] == degraded

            # And its resync pass (queued by time, nothing changed) writes nothing
            async def resync(target: str = target) -> None:
                controller.enqueue_after(target, timedelta(0))

            for _ in range(2):
                per_cluster, [cost] = await _passes_of(passes, controller, resync, target)
                assert per_cluster == {target: 1}, per_cluster
                assert cost.statements <= RESYNC_STATEMENTS, cost
                assert cost.write_transactions == 0 and cost.encoded == 0 and cost.decoded == 0, cost
