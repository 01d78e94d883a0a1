"""The simulated host inventory (compute.md §4): hosts from the configuration with their HostType's
interfaces, seeded unique MACs, ports cabled onto parking / provisioning, adding and removing."""

from __future__ import annotations

import re

import pytest

from osac.clock import FakeClock
from osac.providers.baremetal import HostOwner
from osac.providers.interfaces import TransientProviderError
from osac.providers.registry import ManagerConfigurationError, load_managers
from osac.providers.simulator.baremetal.inventory import InventoryError
from osac.providers.simulator.baremetal.provider import SimulatedBareMetal
from osac.providers.simulator.baremetal.store import HostInUse, NewHost, UnknownHost
from osac.providers.simulator.compute.provider import SimulatedKubeVirt
from osac.providers.simulator.fabric.provider import SimulatedFabric
from osac.providers.simulator.runtime.context import SimulatorRuntime, Speed
from osac.providers.simulator.runtime.settings import parse_compute_settings
from osac.store.engine import Engines
from tests.providers.compute_support import BM_STANDARD, HOST_TYPES, inventory
from tests.providers.conftest import START, attachment, network, subnet

MAC = r"^02(:[0-9a-f]{2}){5}$"


@pytest.fixture
def baremetal(runtime: SimulatorRuntime) -> SimulatedBareMetal:
    return SimulatedBareMetal(runtime, inventory(("bm-std", "bm-standard", 12), ("bm-big", "bm-standard", 2)))


async def test_loading_creates_the_configured_hosts_with_their_host_types_interfaces(
    baremetal: SimulatedBareMetal,
) -> None:
    added = await baremetal.load_inventory(HOST_TYPES)
    assert added == [f"bm-std-{n:03d}" for n in range(1, 13)] + ["bm-big-001", "bm-big-002"]

    hosts = await baremetal.list_hosts("bm-standard")
    assert [h.name for h in hosts] == sorted(added)
    first = next(h for h in hosts if h.name == "bm-std-001")
    assert [(i.name, i.role) for i in first.interfaces] == BM_STANDARD
    assert all(re.match(MAC, i.mac) for i in first.interfaces)
    assert [i.switch for i in first.interfaces] == [
        "sim-lifecycle-switch", "sim-fabric-switch", "sim-fabric-switch", "sim-storage-switch"]
    assert first.interface("ens1f0") is not None and first.interface("ens1f0").port == "bm-std-001/ens1f0"
    assert (first.bmc, first.power, first.provisioning_state, first.operational_status, first.owner) == (
        "redfish+sim://bm-std-001", "off", "available", "OK", None)
    assert await baremetal.list_hosts("vm-standard") == []


async def test_macs_are_unique_and_come_from_the_seed(
    baremetal: SimulatedBareMetal, runtime: SimulatorRuntime, engines: Engines
) -> None:
    await baremetal.load_inventory(HOST_TYPES)
    macs = [i.mac for h in await baremetal.list_hosts() for i in h.interfaces]
    assert len(macs) == 14 * 4 == len(set(macs))

    # the same seed cables the same MACs, another seed other ones (computed, not stored)
    same = SimulatedBareMetal(SimulatorRuntime(engines.writer, runtime.clock, Speed.of("instant"), seed=42))
    other = SimulatedBareMetal(SimulatorRuntime(engines.writer, runtime.clock, Speed.of("instant"), seed=43))
    same_hosts = same._new_hosts(baremetal.settings.inventory[0], 1, BM_STANDARD)
    other_hosts = other._new_hosts(baremetal.settings.inventory[0], 1, BM_STANDARD)
    stored = {h.name: [i.mac for i in h.interfaces] for h in await baremetal.list_hosts()}
    assert {h.name: [i.mac for i in h.interfaces] for h in same_hosts} == {
        name: value for name, value in stored.items() if name.startswith("bm-std")}
    assert all(a.interfaces[0].mac != b.interfaces[0].mac for a, b in zip(same_hosts, other_hosts, strict=True))


async def test_a_mac_already_cabled_is_refused(baremetal: SimulatedBareMetal) -> None:
    await baremetal.load_inventory(HOST_TYPES)
    taken = (await baremetal.list_hosts())[0].interfaces[1]
    twin = NewHost("bm-twin-001", "bm-standard", "redfish+sim://bm-twin-001", (taken,))
    with pytest.raises(InventoryError, match=f"MAC {taken.mac} of port .* is already used by port"):
        await baremetal.store.add([twin])
    assert [h.name for h in await baremetal.list_hosts() if h.name.startswith("bm-twin")] == []


async def test_loading_twice_keeps_the_hosts_as_they_are(baremetal: SimulatedBareMetal) -> None:
    await baremetal.load_inventory(HOST_TYPES)
    assigned = await baremetal.assign_free_host("bm-standard", "BareMetalInstance", "bmi-1")
    assert assigned is not None
    assert await baremetal.load_inventory(HOST_TYPES) == []
    again = {h.name: h for h in await baremetal.list_hosts()}
    assert again[assigned.name].owner == HostOwner("BareMetalInstance", "bmi-1")
    assert len(again) == 14


async def test_ports_are_cabled_onto_parking_and_provisioning(
    baremetal: SimulatedBareMetal, runtime: SimulatorRuntime
) -> None:
    await baremetal.load_inventory(HOST_TYPES)
    ports = {p.key: p.segment_id for p in (await runtime.fabric_store.snapshot()).ports}
    assert len(ports) == 14 * 4
    assert ports["bm-std-001/eno1"] == "provisioning"
    assert {ports[f"bm-std-001/{name}"] for name in ("ens1f0", "ens1f1", "ens2f0")} == {"parking"}
    assert all(segment == ("provisioning" if key.endswith("/eno1") else "parking") for key, segment in ports.items())


@pytest.mark.parametrize(
    ("types", "message"),
    [
        ({}, r"simulator.inventory.hosts\[0\] \(bm-std\): host type 'bm-standard' does not exist"),
        ({"bm-standard": [("nic-0", "fabric")]},
         r"simulator.inventory.hosts\[0\] \(bm-std\): host type 'bm-standard' has no 'lifecycle' interface"),
    ],
)
async def test_an_entry_naming_an_unusable_host_type_stops_loading(
    runtime: SimulatorRuntime, types: dict[str, list[tuple[str, str]]], message: str
) -> None:
    baremetal = SimulatedBareMetal(runtime, inventory(("bm-std", "bm-standard", 2)))
    with pytest.raises(InventoryError, match=message):
        await baremetal.load_inventory(types)
    assert await baremetal.list_hosts() == []


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"inventory": {"hosts": [{"prefix": "BM", "host_type": "t", "count": 1}]}}, r"hosts\[0\].prefix: 'BM'"),
        ({"inventory": {"hosts": [{"prefix": "bm", "host_type": "t", "count": -1}]}}, r"hosts\[0\].count"),
        ({"inventory": {"hosts": [{"prefix": "bm", "count": 1}]}}, r"hosts\[0\].host_type: required"),
        ({"inventory": {"hosts": [{"prefix": "bm", "host_type": "t", "count": 1},
                                  {"prefix": "bm", "host_type": "u", "count": 1}]}}, r"hosts\[1\].prefix: 'bm' is used"),
        ({"inventory": {"hosts": [{"prefix": "bm", "host_type": "t", "count": 1, "size": 3}]}}, "unknown key"),
        ({"inventory": {"racks": []}}, "simulator.inventory: unknown key"),
        ({"jitter": 1.5}, "simulator.jitter"),
    ],
)
def test_bad_inventory_settings_name_the_key(section: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_compute_settings(section)


async def test_adding_continues_the_numbering_and_removing_takes_free_hosts_only(
    baremetal: SimulatedBareMetal, runtime: SimulatorRuntime, fabric: SimulatedFabric
) -> None:
    await baremetal.load_inventory(HOST_TYPES)
    added = await baremetal.add_hosts("bm-std", "bm-standard", 2, BM_STANDARD)
    assert [h.name for h in added] == ["bm-std-013", "bm-std-014"]
    assert [i.name for i in added[0].interfaces] == [name for name, _ in BM_STANDARD]
    fresh = await baremetal.add_hosts("bm-new", "bm-standard", 1, BM_STANDARD)
    assert [h.name for h in fresh] == ["bm-new-001"]
    with pytest.raises(InventoryError, match="host type 'bm-h100' does not exist"):
        await baremetal.add_hosts("bm-gpu", "bm-h100", 1, None)

    await baremetal.remove_host("bm-std-014")
    assert "bm-std-014" not in {h.name for h in await baremetal.list_hosts()}
    assert not any(p.host_name == "bm-std-014" for p in (await runtime.fabric_store.snapshot()).ports)
    with pytest.raises(UnknownHost):
        await baremetal.remove_host("bm-std-014")

    owned = await baremetal.assign_free_host("bm-standard", "BareMetalInstance", "bmi-7")
    assert owned is not None and owned.name == "bm-big-001"
    with pytest.raises(HostInUse, match="assigned to BareMetalInstance bmi-7"):
        await baremetal.remove_host(owned.name)

    await network(fabric, "vn")
    await fabric.create_subnet(subnet("s", "vn"))
    port = next(h for h in await baremetal.list_hosts() if h.name == "bm-big-002").interfaces[1]
    await fabric.create_network_attachment(
        attachment("bm-big-002", port.name, "s", "10.0.1.9", mac=port.mac, target_kind="baremetal_instance"))
    with pytest.raises(TransientProviderError, match="bm-big-002/ens1f0 on subnet s"):
        await baremetal.remove_host("bm-big-002")


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"providers": {"baremetal": "metal3"}}, "providers.baremetal: 'metal3' is not supported; use 'simulator'"),
        ({"providers": {"compute": "kubevirt", "baremetal": "simulator"}}, "providers.compute: 'kubevirt'"),
        ({"providers": {"baremetal": "simulator"},
          "simulator": {"inventory": {"hosts": [{"prefix": "bm", "host_type": "t", "count": "12"}]}}},
         r"simulator.inventory.hosts\[0\].count"),
    ],
)
def test_the_registry_checks_the_provider_settings(engines: Engines, config: dict[str, object], message: str) -> None:
    with pytest.raises(ManagerConfigurationError, match=message):
        load_managers(config, clock=FakeClock(START), engine=engines.writer)


def test_the_registry_exposes_the_simulated_providers(engines: Engines) -> None:
    registry = load_managers({"providers": {"compute": "simulator", "baremetal": "simulator"}},
                             clock=FakeClock(START), engine=engines.writer)
    assert isinstance(registry.compute_provider, SimulatedKubeVirt)
    assert isinstance(registry.baremetal_provider, SimulatedBareMetal)
    assert registry.baremetal_provider.runtime is registry.simulator
    assert load_managers({}, clock=FakeClock(START)).baremetal_provider is None
