"""Fixtures of the provider tests: a migrated database (SQLite and PostgreSQL), a fake clock, the
simulator runtime at speed ``instant``, and builders for fabric requests."""

from __future__ import annotations

import ipaddress
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from osac.clock import FakeClock
from osac.providers.interfaces import NetworkAttachmentSpec, SecurityRuleSpec, SubnetSpec
from osac.providers.simulator.fabric.provider import SimulatedFabric
from osac.providers.simulator.runtime.context import SimulatorRuntime, Speed
from osac.store.engine import Engines, create_engines
from tests.support.schema import migrate_with_simulator_async

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
async def engines(db_url: str) -> AsyncIterator[Engines]:
    await migrate_with_simulator_async(db_url)
    engines = create_engines(db_url)
    try:
        yield engines
    finally:
        await engines.dispose()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def runtime(engines: Engines, clock: FakeClock) -> SimulatorRuntime:
    return SimulatorRuntime(engines.writer, clock, Speed.of("instant"), reader=engines.reader)


@pytest.fixture
def fabric(runtime: SimulatorRuntime) -> SimulatedFabric:
    return SimulatedFabric("sim-fabric", {}, runtime)


def subnet(subnet_id: str, vn_id: str, cidr: str = "10.0.1.0/24", vip_prefix: int = 28) -> SubnetSpec:
    """The networking.md §5.2 layout: gateway first + 1, workload range up to the VIP block."""
    network = ipaddress.ip_network(cidr)
    vip_block = list(network.subnets(new_prefix=vip_prefix))[-1]
    return SubnetSpec(
        subnet_id=subnet_id,
        vn_id=vn_id,
        cidr=cidr,
        gateway=str(network[1]),
        dhcp_range=(str(network[2]), str(vip_block[0] - 1)),
        vip_range=(str(vip_block[0]), str(vip_block[-2])),
    )


def tcp(port: int, cidr: str = "0.0.0.0/0", port_to: int | None = None) -> SecurityRuleSpec:
    return SecurityRuleSpec("tcp", port, port_to or port, ipv4_cidr=cidr)


def everything(cidr: str = "0.0.0.0/0") -> SecurityRuleSpec:
    return SecurityRuleSpec("all", 0, 0, ipv4_cidr=cidr)


def attachment(
    host: str,
    interface: str,
    subnet_id: str,
    address: str,
    sgs: tuple[str, ...] = (),
    mac: str | None = None,
    target_kind: str = "compute_instance",
) -> NetworkAttachmentSpec:
    mac = mac or "02:00:" + ":".join(f"{b:02x}" for b in ipaddress.ip_address(address).packed)
    return NetworkAttachmentSpec(host, interface, mac, subnet_id, address, sgs, target_kind)


async def network(fabric: SimulatedFabric, vn_id: str, cidr: str = "10.0.0.0/16") -> None:
    await fabric.create_virtual_network(vn_id, [cidr])
