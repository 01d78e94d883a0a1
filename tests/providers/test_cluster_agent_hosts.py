"""What a simulated cluster's machines make of their bare-metal hosts (``clusters.agents``): the
power and provisioning the inventory lists for a host a cluster holds, by machine stage."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from osac.providers.simulator.clusters.agents import AgentHost, agent_hosts
from osac.providers.simulator.clusters.world import TEARDOWN_STARTED, Machine, Pool, World

T = datetime(2026, 1, 1, tzinfo=UTC)


def world(*, joined: bool, pool_deleting: bool = False, tearing_down: bool = False) -> World:
    pool = Pool("gpu", T, 1, machines={0: Machine(0, "bm-001", T, joined_at=T if joined else None),
                                       1: Machine(1, None, T)},
                deleting_at=T if pool_deleting else None)
    return World(created_at=T, teardown={TEARDOWN_STARTED: T} if tearing_down else {}, pools={"gpu": pool})


@pytest.mark.parametrize(("given", "expected"), [
    (world(joined=False), AgentHost(True, "provisioning")),
    (world(joined=True), AgentHost(True, "provisioned")),
    (world(joined=True, pool_deleting=True), AgentHost(True, "deprovisioning")),
    (world(joined=True, tearing_down=True), AgentHost(True, "deprovisioning")),
], ids=["installing", "joined", "pool-deleting", "teardown"])
def test_a_machine_on_a_host_gives_it_its_stage(given: World, expected: AgentHost) -> None:
    assert agent_hosts(given) == {"bm-001": expected}  # the virtual machine (no host) is not listed


def test_a_cluster_without_machines_holds_no_agent_hosts() -> None:
    assert agent_hosts(World(created_at=T, pools={"gpu": Pool("gpu", T, 2)})) == {}
