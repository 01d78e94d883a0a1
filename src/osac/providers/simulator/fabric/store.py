"""The simulated fabric's repository: every read and write of the ``sim_fabric_*`` tables.

Each method is one short transaction that compares before it writes, so repeating a call changes
nothing, and raises the provider error the fabric contract prescribes:

- a changed immutable input: ``TerminalProviderError("ImmutableFieldChanged")``;
- invalid input (an address outside its subnet, an SG of another VN): ``TerminalProviderError``;
- something the call depends on does not exist yet (the VN of a subnet, the subnet of a port):
  ``TransientProviderError("...NotFound")``, since the service may still be creating it;
- deleting something still in use (a VN with segments, a subnet with ports):
  ``TransientProviderError("InUse")``; the service deletes dependents first.

Uniqueness is the tables' constraints. On PostgreSQL two concurrent first creates of one object
can both find nothing; the loser's INSERT violates the primary key and the whole transaction is
run again, now finding the winner's row.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import and_, bindparam, delete, insert, or_, select, update
from sqlalchemy.engine import Row
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from osac.clock import Clock
from osac.providers.interfaces import (
    Lease,
    NetworkAttachmentSpec,
    SecurityRuleSpec,
    SubnetSpec,
    TerminalProviderError,
    TransientProviderError,
)
from osac.providers.simulator.fabric import reachability as rx
from osac.providers.simulator.runtime.schema import (
    sim_fabric_dnat,
    sim_fabric_external_ips,
    sim_fabric_leases,
    sim_fabric_networks,
    sim_fabric_ports,
    sim_fabric_reservations,
    sim_fabric_security_groups,
    sim_fabric_segments,
    sim_fabric_snat,
)
from osac.providers.simulator.runtime.times import from_db, iso, to_db
from osac.store import direct

T = TypeVar("T")

PARKING = "parking"
PROVISIONING = "provisioning"
SPECIAL_SEGMENTS = (PARKING, PROVISIONING)
#: Port host names of virtual ports (VM NICs, virtual cluster nodes): removed on detach, where a
#: physical port goes back to its home segment.
VIRTUAL_HOST_PREFIXES = ("ci/", "node/")
#: How often a transaction is re-run after losing a race on a unique constraint.
INTEGRITY_RETRIES = 3
#: How many names an "in use" message lists.
NAMES_SHOWN = 5


#: The first statements of the busiest transactions, built once (``store/direct.py``): a
#: transaction's ``BEGIN`` goes with its first statement when the direct path runs it.
_SUBNET_SEGMENT = select(sim_fabric_segments).where(
    sim_fabric_segments.c.segment_id == bindparam("segment_id"), sim_fabric_segments.c.kind == "subnet")
_DNAT_FOR_UPDATE = select(sim_fabric_dnat).where(
    sim_fabric_dnat.c.attachment_id == bindparam("attachment_id")).with_for_update()
_EXTERNAL_IP_FOR_UPDATE = select(sim_fabric_external_ips).where(
    sim_fabric_external_ips.c.eip_id == bindparam("eip_id")).with_for_update()


def is_virtual_host(host_name: str) -> bool:
    return host_name.startswith(VIRTUAL_HOST_PREFIXES)


class FabricStore:
    """The fabric tables of one database. Give it the writer engine (and optionally a reader)."""

    def __init__(self, engine: AsyncEngine, clock: Clock, *, reader: AsyncEngine | None = None) -> None:
        self._engine = engine
        self._reader = reader or engine
        self._clock = clock
        self._has_special_segments = False

    # -- transactions ------------------------------------------------------------------------------

    async def _write(self, work: Callable[[AsyncConnection], Awaitable[T]]) -> T:
        for attempt in range(INTEGRITY_RETRIES + 1):
            try:
                async with self._engine.begin() as conn:
                    return await work(conn)
            except IntegrityError as error:
                if attempt == INTEGRITY_RETRIES:
                    raise TransientProviderError(
                        "Conflict", f"concurrent fabric changes collided; retry ({error.orig})"
                    ) from error
        raise AssertionError("unreachable")

    def _now(self) -> Any:
        return to_db(self._clock.now())

    async def _ensure_special_segments(self) -> None:
        """The parking and provisioning segments exist in every fabric (inserted once)."""
        if self._has_special_segments:
            return

        async def work(conn: AsyncConnection) -> None:
            present = set(
                (await conn.execute(
                    select(sim_fabric_segments.c.segment_id).where(
                        sim_fabric_segments.c.segment_id.in_(SPECIAL_SEGMENTS)
                    )
                )).scalars()
            )
            for name in SPECIAL_SEGMENTS:
                if name not in present:
                    await conn.execute(
                        insert(sim_fabric_segments).values(segment_id=name, kind=name, created_at=self._now())
                    )

        await self._write(work)
        self._has_special_segments = True

    # -- virtual networks --------------------------------------------------------------------------

    async def create_network(self, vn_id: str, cidrs: Sequence[str]) -> str:
        normalized = sorted(_cidr(c, "cidrs") for c in cidrs)
        backend_ref = f"sim-fabric/vn/{vn_id}"

        async def work(conn: AsyncConnection) -> str:
            row = (await conn.execute(
                select(sim_fabric_networks).where(sim_fabric_networks.c.vn_id == vn_id).with_for_update()
            )).first()
            if row is None:
                await conn.execute(insert(sim_fabric_networks).values(
                    vn_id=vn_id, cidrs=normalized, backend_ref=backend_ref, created_at=self._now()))
                return backend_ref
            _unchanged("virtual network", vn_id, "cidrs", sorted(row.cidrs), normalized)
            return str(row.backend_ref)

        return await self._write(work)

    async def delete_network(self, vn_id: str) -> None:
        async def work(conn: AsyncConnection) -> None:
            users = {
                "segment": await _ids(conn, sim_fabric_segments.c.segment_id, sim_fabric_segments.c.vn_id == vn_id),
                "security group": await _ids(
                    conn, sim_fabric_security_groups.c.sg_id, sim_fabric_security_groups.c.vn_id == vn_id),
                "NAT gateway": await _ids(conn, sim_fabric_snat.c.natgw_id, sim_fabric_snat.c.vn_id == vn_id),
            }
            # DNAT entries do not hold the VN (the service does not order attachments before VNs);
            # one left pointing into a deleted VN leads nowhere until its attachment removes it
            _not_in_use("virtual network", vn_id, users)
            await conn.execute(delete(sim_fabric_networks).where(sim_fabric_networks.c.vn_id == vn_id))

        await self._write(work)

    # -- subnets -----------------------------------------------------------------------------------

    async def create_segment(self, spec: SubnetSpec) -> None:
        values = _segment_values(spec)

        async def work(conn: AsyncConnection) -> None:
            row = (await conn.execute(
                select(sim_fabric_segments).where(sim_fabric_segments.c.segment_id == spec.subnet_id).with_for_update()
            )).first()
            if row is not None:
                if row.kind != "subnet":
                    raise TerminalProviderError(
                        "InvalidSpec", f"segment id '{spec.subnet_id}' is reserved for the {row.kind} segment")
                for name, value in values.items():
                    _unchanged("subnet", spec.subnet_id, name, getattr(row, name), value)
                return
            network = (await conn.execute(
                select(sim_fabric_networks).where(sim_fabric_networks.c.vn_id == spec.vn_id)
            )).first()
            if network is None:
                raise TransientProviderError(
                    "VirtualNetworkNotFound",
                    f"virtual network {spec.vn_id} of subnet {spec.subnet_id} does not exist on the fabric")
            _inside_network(spec.subnet_id, values["cidr"], network.cidrs)
            siblings = await conn.execute(
                select(sim_fabric_segments.c.segment_id, sim_fabric_segments.c.cidr).where(
                    sim_fabric_segments.c.vn_id == spec.vn_id)
            )
            for sibling in siblings:
                if sibling.cidr and ipaddress.ip_network(sibling.cidr).overlaps(ipaddress.ip_network(values["cidr"])):
                    raise TerminalProviderError(
                        "SegmentOverlap",
                        f"subnet {spec.subnet_id} ({values['cidr']}) overlaps subnet {sibling.segment_id} "
                        f"({sibling.cidr}) in virtual network {spec.vn_id}")
            await conn.execute(insert(sim_fabric_segments).values(
                segment_id=spec.subnet_id, kind="subnet", created_at=self._now(), **values))

        await self._write(work)

    async def delete_segment(self, subnet_id: str) -> None:
        if subnet_id in SPECIAL_SEGMENTS:
            raise TerminalProviderError("InvalidSpec", f"the {subnet_id} segment cannot be deleted")

        async def work(conn: AsyncConnection) -> None:
            ports = await _ids(
                conn,
                sim_fabric_ports.c.host_name + "/" + sim_fabric_ports.c.interface,
                sim_fabric_ports.c.segment_id == subnet_id,
            )
            _not_in_use("subnet", subnet_id, {"port": ports})
            await conn.execute(delete(sim_fabric_reservations).where(sim_fabric_reservations.c.subnet_id == subnet_id))
            await conn.execute(delete(sim_fabric_leases).where(sim_fabric_leases.c.subnet_id == subnet_id))
            await conn.execute(delete(sim_fabric_segments).where(sim_fabric_segments.c.segment_id == subnet_id))

        await self._write(work)

    # -- security groups ---------------------------------------------------------------------------

    async def apply_security_group(
        self, sg_id: str, vn_id: str, ingress: Sequence[SecurityRuleSpec], egress: Sequence[SecurityRuleSpec]
    ) -> None:
        rules_in = [_rule(r, f"ingress[{i}]") for i, r in enumerate(ingress)]
        rules_out = [_rule(r, f"egress[{i}]") for i, r in enumerate(egress)]

        async def work(conn: AsyncConnection) -> None:
            row = (await conn.execute(
                select(sim_fabric_security_groups).where(sim_fabric_security_groups.c.sg_id == sg_id).with_for_update()
            )).first()
            if row is not None:
                _unchanged("security group", sg_id, "vn_id", row.vn_id, vn_id)
                if list(row.ingress) != rules_in or list(row.egress) != rules_out:
                    await conn.execute(
                        update(sim_fabric_security_groups)
                        .where(sim_fabric_security_groups.c.sg_id == sg_id)
                        .values(ingress=rules_in, egress=rules_out, updated_at=self._now())
                    )
                return
            if not await _exists(conn, sim_fabric_networks.c.vn_id == vn_id):
                raise TransientProviderError(
                    "VirtualNetworkNotFound",
                    f"virtual network {vn_id} of security group {sg_id} does not exist on the fabric")
            await conn.execute(insert(sim_fabric_security_groups).values(
                sg_id=sg_id, vn_id=vn_id, ingress=rules_in, egress=rules_out, updated_at=self._now()))

        await self._write(work)

    async def delete_security_group(self, sg_id: str) -> None:
        async def work(conn: AsyncConnection) -> None:
            row = (await conn.execute(
                select(sim_fabric_security_groups.c.vn_id).where(sim_fabric_security_groups.c.sg_id == sg_id)
            )).first()
            if row is None:
                return
            bound = [
                f"{p.host_name}/{p.interface}"
                for p in await conn.execute(
                    select(sim_fabric_ports.c.host_name, sim_fabric_ports.c.interface,
                           sim_fabric_ports.c.security_group_ids).where(sim_fabric_ports.c.vn_id == row.vn_id)
                )
                if sg_id in (p.security_group_ids or [])
            ]
            _not_in_use("security group", sg_id, {"port": sorted(bound)})
            await conn.execute(delete(sim_fabric_security_groups).where(sim_fabric_security_groups.c.sg_id == sg_id))

        await self._write(work)

    # -- external addresses, DNAT, SNAT ------------------------------------------------------------

    async def allocate_external_ip(self, eip_id: str, pool_id: str, address: str) -> None:
        address = _ip(address, "address")

        async def work(conn: AsyncConnection) -> None:
            row = (await direct.execute(conn, _EXTERNAL_IP_FOR_UPDATE, {"eip_id": eip_id}, named=True)).first()
            if row is not None:
                _unchanged("external IP", eip_id, "pool_id", row.pool_id, pool_id)
                _unchanged("external IP", eip_id, "address", row.address, address)
                return
            holder = (await conn.execute(
                select(sim_fabric_external_ips.c.eip_id).where(sim_fabric_external_ips.c.address == address)
            )).scalar()
            if holder is not None:
                raise TerminalProviderError(
                    "AddressInUse", f"external address {address} is already announced for external IP {holder}")
            await conn.execute(insert(sim_fabric_external_ips).values(
                eip_id=eip_id, pool_id=pool_id, address=address, announced_at=self._now()))

        await self._write(work)

    async def release_external_ip(self, eip_id: str) -> None:
        async def work(conn: AsyncConnection) -> None:
            address = (await conn.execute(
                select(sim_fabric_external_ips.c.address).where(sim_fabric_external_ips.c.eip_id == eip_id)
            )).scalar()
            if address is None:
                return
            users = {
                "DNAT entry": await _ids(
                    conn, sim_fabric_dnat.c.attachment_id, sim_fabric_dnat.c.external_address == address),
                "NAT gateway": await _ids(
                    conn, sim_fabric_snat.c.natgw_id, sim_fabric_snat.c.external_address == address),
            }
            _not_in_use("external IP", eip_id, users)
            await conn.execute(delete(sim_fabric_external_ips).where(sim_fabric_external_ips.c.eip_id == eip_id))

        await self._write(work)

    async def create_dnat(self, attachment_id: str, external_address: str, vn_id: str, target_address: str) -> None:
        """DNAT ``external -> (vn, target)``. The target may change (re-programming an
        attachment whose target moved); the external address and VN may not."""
        external_address = _ip(external_address, "external_address")
        target_address = _ip(target_address, "target_address")

        async def work(conn: AsyncConnection) -> None:
            row = (await direct.execute(conn, _DNAT_FOR_UPDATE, {"attachment_id": attachment_id}, named=True)).first()
            if row is not None:
                _unchanged("external IP attachment", attachment_id, "external_address",
                           row.external_address, external_address)
                _unchanged("external IP attachment", attachment_id, "vn_id", row.vn_id, vn_id)
                if row.internal_address != target_address:
                    await conn.execute(
                        update(sim_fabric_dnat).where(sim_fabric_dnat.c.attachment_id == attachment_id)
                        .values(internal_address=target_address, updated_at=self._now()))
                return
            await _check_external(conn, external_address, f"external IP attachment {attachment_id}")
            if not await _exists(conn, sim_fabric_networks.c.vn_id == vn_id):
                raise TransientProviderError(
                    "VirtualNetworkNotFound",
                    f"virtual network {vn_id} of external IP attachment {attachment_id} does not exist on the fabric")
            other = (await conn.execute(
                select(sim_fabric_dnat.c.attachment_id).where(sim_fabric_dnat.c.external_address == external_address)
            )).scalar()
            if other is not None:
                raise TerminalProviderError(
                    "AddressInUse", f"external address {external_address} already has DNAT for attachment {other}")
            await _not_snat(conn, external_address)
            await conn.execute(insert(sim_fabric_dnat).values(
                attachment_id=attachment_id, external_address=external_address, vn_id=vn_id,
                internal_address=target_address, updated_at=self._now()))

        await self._write(work)

    async def delete_dnat(self, attachment_id: str) -> None:
        async def work(conn: AsyncConnection) -> None:
            await conn.execute(delete(sim_fabric_dnat).where(sim_fabric_dnat.c.attachment_id == attachment_id))

        await self._write(work)

    async def create_snat(self, natgw_id: str, vn_id: str, external_address: str) -> None:
        external_address = _ip(external_address, "external_address")

        async def work(conn: AsyncConnection) -> None:
            row = (await conn.execute(
                select(sim_fabric_snat).where(sim_fabric_snat.c.natgw_id == natgw_id).with_for_update()
            )).first()
            if row is not None:
                _unchanged("NAT gateway", natgw_id, "vn_id", row.vn_id, vn_id)
                _unchanged("NAT gateway", natgw_id, "external_address", row.external_address, external_address)
                return
            if not await _exists(conn, sim_fabric_networks.c.vn_id == vn_id):
                raise TransientProviderError(
                    "VirtualNetworkNotFound",
                    f"virtual network {vn_id} of NAT gateway {natgw_id} does not exist on the fabric")
            await _check_external(conn, external_address, f"NAT gateway {natgw_id}")
            other = (await conn.execute(
                select(sim_fabric_snat.c.natgw_id).where(sim_fabric_snat.c.vn_id == vn_id))).scalar()
            if other is not None:
                raise TerminalProviderError(
                    "AlreadyExists", f"virtual network {vn_id} already has SNAT through NAT gateway {other}")
            used = (await conn.execute(select(sim_fabric_dnat.c.attachment_id).where(
                sim_fabric_dnat.c.external_address == external_address))).scalar()
            if used is not None:
                raise TerminalProviderError(
                    "AddressInUse", f"external address {external_address} already has DNAT for attachment {used}")
            await conn.execute(insert(sim_fabric_snat).values(
                natgw_id=natgw_id, vn_id=vn_id, external_address=external_address, created_at=self._now()))

        await self._write(work)

    async def delete_snat(self, natgw_id: str) -> None:
        async def work(conn: AsyncConnection) -> None:
            await conn.execute(delete(sim_fabric_snat).where(sim_fabric_snat.c.natgw_id == natgw_id))

        await self._write(work)

    # -- ports -------------------------------------------------------------------------------------

    async def register_host_ports(self, host_name: str, ports: Sequence[tuple[str, str, str]]) -> None:
        """Cable a bare-metal host's ports ``(interface, role, mac)``: ``lifecycle`` ports start
        on the provisioning segment, all others on parking. Ports already known are left as
        they are (a host re-registered after a restart keeps its attachments)."""
        await self.register_hosts_ports({host_name: ports})

    async def register_hosts_ports(self, ports_by_host: Mapping[str, Sequence[tuple[str, str, str]]]) -> None:
        """``register_host_ports`` for many hosts in one transaction."""
        await self._ensure_special_segments()

        async def work(conn: AsyncConnection) -> None:
            known = {(row.host_name, row.interface) for row in await conn.execute(
                select(sim_fabric_ports.c.host_name, sim_fabric_ports.c.interface)
                .where(sim_fabric_ports.c.host_name.in_(list(ports_by_host))))}
            rows = [
                {"host_name": host_name, "interface": interface, "segment_id": home, "vn_id": None,
                 "home_segment": home, "mac": _mac(mac), "security_group_ids": [], "target_kind": None,
                 "updated_at": self._now()}
                for host_name, ports in ports_by_host.items()
                for interface, role, mac in ports
                if (host_name, interface) not in known
                for home in [PROVISIONING if role == "lifecycle" else PARKING]
            ]
            if rows:
                await conn.execute(insert(sim_fabric_ports), rows)

        await self._write(work)

    async def port_target_kind(self, host_name: str, interface: str) -> str | None:
        """The workload kind a port is attached for; None when not attached (or unknown)."""
        async with self._reader.connect() as conn:
            return (await conn.execute(
                select(sim_fabric_ports.c.target_kind).where(
                    sim_fabric_ports.c.host_name == host_name, sim_fabric_ports.c.interface == interface)
            )).scalar()

    async def attach_port(self, spec: NetworkAttachmentSpec) -> None:
        """Move the port onto the subnet segment with its SGs and DHCP reservation (upsert).

        A port lives in one segment: attaching it elsewhere re-homes it, dropping the old
        reservation and lease. Repeating the call with other SGs re-binds them."""
        await self._ensure_special_segments()
        port_key = f"{spec.host_name}/{spec.interface}"
        mac = _mac(spec.mac)
        address = _ip(spec.address, "address")
        groups = list(dict.fromkeys(spec.security_group_ids))

        async def work(conn: AsyncConnection) -> None:
            segment = (await direct.execute(conn, _SUBNET_SEGMENT, {"segment_id": spec.subnet_id}, named=True)).first()
            if segment is None:
                raise TransientProviderError(
                    "SubnetNotFound", f"subnet {spec.subnet_id} of port {port_key} does not exist on the fabric")
            if not _in_range(address, segment.dhcp_first, segment.dhcp_last):
                raise TerminalProviderError(
                    "AddressOutsideWorkloadRange",
                    f"address {address} of port {port_key} is outside the workload range "
                    f"{segment.dhcp_first}-{segment.dhcp_last} of subnet {spec.subnet_id}")
            await _check_groups(conn, groups, segment.vn_id, port_key)
            port = (await conn.execute(
                select(sim_fabric_ports).where(
                    sim_fabric_ports.c.host_name == spec.host_name, sim_fabric_ports.c.interface == spec.interface
                ).with_for_update()
            )).first()
            reservation = (await conn.execute(
                select(sim_fabric_reservations).where(
                    sim_fabric_reservations.c.host_name == spec.host_name,
                    sim_fabric_reservations.c.interface == spec.interface)
            )).first()
            same_reservation = reservation is not None and (
                reservation.subnet_id, reservation.mac, reservation.address) == (spec.subnet_id, mac, address)
            if not same_reservation:
                if reservation is not None:  # a lease is granted only from a reservation
                    await _drop_reservations(conn, spec.host_name, spec.interface)
                await _check_reservation_free(conn, spec.subnet_id, mac, address, port_key)
                await conn.execute(insert(sim_fabric_reservations).values(
                    subnet_id=spec.subnet_id, mac=mac, address=address,
                    host_name=spec.host_name, interface=spec.interface))
            values = {
                "segment_id": spec.subnet_id,
                "vn_id": segment.vn_id,
                "mac": mac,
                "security_group_ids": groups,
                "target_kind": spec.target_kind,
            }
            if port is None:
                home = None if is_virtual_host(spec.host_name) else PARKING
                await conn.execute(insert(sim_fabric_ports).values(
                    host_name=spec.host_name, interface=spec.interface, home_segment=home,
                    updated_at=self._now(), **values))
            elif any(getattr(port, name) != value for name, value in values.items()):
                await conn.execute(
                    update(sim_fabric_ports)
                    .where(sim_fabric_ports.c.host_name == spec.host_name,
                           sim_fabric_ports.c.interface == spec.interface)
                    .values(updated_at=self._now(), **values))

        await self._write(work)

    async def detach_port(self, host_name: str, interface: str) -> None:
        """Drop the reservation and lease; a physical port goes back to its home segment
        (parking), a virtual one is removed."""

        async def work(conn: AsyncConnection) -> None:
            port = (await conn.execute(
                select(sim_fabric_ports).where(
                    sim_fabric_ports.c.host_name == host_name, sim_fabric_ports.c.interface == interface
                ).with_for_update()
            )).first()
            await _drop_reservations(conn, host_name, interface)
            if port is None:
                return
            where = and_(sim_fabric_ports.c.host_name == host_name, sim_fabric_ports.c.interface == interface)
            if port.home_segment is None:
                await conn.execute(delete(sim_fabric_ports).where(where))
            elif port.segment_id != port.home_segment or port.security_group_ids or port.target_kind:
                await conn.execute(update(sim_fabric_ports).where(where).values(
                    segment_id=port.home_segment, vn_id=None, security_group_ids=[], target_kind=None,
                    updated_at=self._now()))

        await self._write(work)

    # -- DHCP --------------------------------------------------------------------------------------

    async def reserved_port(self, subnet_id: str, mac: str) -> str | None:
        """``<host>/<interface>`` of the port holding the reservation ``(subnet, mac)``."""
        async with self._reader.connect() as conn:
            row = (await conn.execute(
                select(sim_fabric_reservations.c.host_name, sim_fabric_reservations.c.interface).where(
                    sim_fabric_reservations.c.subnet_id == subnet_id, sim_fabric_reservations.c.mac == _mac(mac))
            )).first()
        return None if row is None else f"{row.host_name}/{row.interface}"

    async def lease(
        self, subnet_id: str, mac: str, not_before: datetime | None = None, *, grant: bool = True
    ) -> Lease | None:
        """The lease of ``(subnet, mac)``, granted now if due: only for a reservation whose port
        is on that segment with that MAC, and never for an address outside the workload range.

        ``not_before`` is when the port's host asked for it (a simulated bare-metal host, 15 s
        after its OS booted): the lease is then granted at that time, or when the port moved
        onto the segment if that was later, rather than at the query. ``grant=False`` only
        returns a lease granted before (the host is not asking now)."""
        mac = _mac(mac)

        async def work(conn: AsyncConnection) -> Lease | None:
            existing = (await conn.execute(
                select(sim_fabric_leases).where(sim_fabric_leases.c.subnet_id == subnet_id,
                                                sim_fabric_leases.c.mac == mac)
            )).first()
            if existing is not None:
                return _lease(existing)
            if not grant:
                return None
            reservation = (await conn.execute(
                select(sim_fabric_reservations).where(sim_fabric_reservations.c.subnet_id == subnet_id,
                                                      sim_fabric_reservations.c.mac == mac)
            )).first()
            if reservation is None:
                return None
            port = (await conn.execute(
                select(sim_fabric_ports).where(sim_fabric_ports.c.host_name == reservation.host_name,
                                               sim_fabric_ports.c.interface == reservation.interface)
            )).first()
            if port is None or port.segment_id != subnet_id or port.mac != mac:
                return None
            segment = (await conn.execute(
                select(sim_fabric_segments).where(sim_fabric_segments.c.segment_id == subnet_id))).first()
            if segment is None or not _in_range(reservation.address, segment.dhcp_first, segment.dhcp_last):
                return None
            if _in_range(reservation.address, segment.vip_first, segment.vip_last):
                return None
            granted_at = self._now() if not_before is None else max(to_db(not_before), from_db(port.updated_at))
            row = {
                "subnet_id": subnet_id, "mac": mac, "address": reservation.address,
                "host_name": reservation.host_name, "interface": reservation.interface, "granted_at": granted_at,
            }
            await conn.execute(insert(sim_fabric_leases).values(**row))
            return Lease(address=row["address"], mac=mac, interface=row["interface"], subnet_id=subnet_id,
                         granted_at=from_db(row["granted_at"]))

        return await self._write(work)

    async def host_addresses(self, host_name: str) -> dict[str, str]:
        """``interface -> reserved address`` of the host's ports that sit on the segment of their
        reservation with its MAC (what the host's DHCP client can lease)."""
        query = select(sim_fabric_reservations.c.interface, sim_fabric_reservations.c.address).select_from(
            sim_fabric_reservations.join(sim_fabric_ports, and_(
                sim_fabric_ports.c.host_name == sim_fabric_reservations.c.host_name,
                sim_fabric_ports.c.interface == sim_fabric_reservations.c.interface,
                sim_fabric_ports.c.segment_id == sim_fabric_reservations.c.subnet_id,
                sim_fabric_ports.c.mac == sim_fabric_reservations.c.mac,
            ))
        ).where(sim_fabric_reservations.c.host_name == host_name)
        async with self._reader.connect() as conn:
            return {row.interface: row.address for row in await conn.execute(query)}

    async def remove_host_ports(self, host_name: str) -> None:
        """Uncable a bare-metal host removed from the inventory: its ports leave the port map.

        :raises TransientProviderError: ``InUse`` when a port is still attached to a subnet."""

        async def work(conn: AsyncConnection) -> None:
            ports = (await conn.execute(
                select(sim_fabric_ports).where(sim_fabric_ports.c.host_name == host_name))).all()
            attached = sorted(f"{p.host_name}/{p.interface} on subnet {p.segment_id}"
                              for p in ports if p.segment_id != p.home_segment)
            if attached:
                raise TransientProviderError(
                    "InUse", f"host {host_name} still has attached port(s): {', '.join(attached)}")
            await conn.execute(delete(sim_fabric_ports).where(sim_fabric_ports.c.host_name == host_name))

        await self._write(work)

    # -- reads for reachability and observation ----------------------------------------------------

    async def snapshot(self) -> rx.FabricSnapshot:
        """The whole fabric as ``reachability`` needs it (one read transaction)."""
        async with self._reader.connect() as conn:
            segments = (await conn.execute(
                select(sim_fabric_segments).where(sim_fabric_segments.c.kind == "subnet"))).all()
            reservations = {
                (r.host_name, r.interface, r.subnet_id): r.address
                for r in await conn.execute(select(sim_fabric_reservations))
            }
            ports = (await conn.execute(select(sim_fabric_ports))).all()
            groups = (await conn.execute(select(sim_fabric_security_groups))).all()
            externals = (await conn.execute(select(sim_fabric_external_ips.c.address))).scalars().all()
            dnat = (await conn.execute(select(sim_fabric_dnat))).all()
            snat = (await conn.execute(select(sim_fabric_snat))).all()
        return rx.FabricSnapshot(
            segments=[
                rx.Segment(s.segment_id, s.vn_id, s.cidr, s.gateway or "", s.vip_first or "", s.vip_last or "")
                for s in segments
            ],
            ports=[
                rx.Port(p.host_name, p.interface, p.segment_id, p.vn_id, tuple(p.security_group_ids or ()),
                        reservations.get((p.host_name, p.interface, p.segment_id)))
                for p in ports
            ],
            security_groups=[
                rx.SecurityGroup(g.sg_id, g.vn_id, tuple(rx.Rule.of(r) for r in g.ingress),
                                 tuple(rx.Rule.of(r) for r in g.egress))
                for g in groups
            ],
            external_addresses=list(externals),
            dnat=[rx.Dnat(d.attachment_id, d.external_address, d.vn_id, d.internal_address) for d in dnat],
            snat=[rx.Snat(s.natgw_id, s.vn_id, s.external_address) for s in snat],
        )

    async def observation(self, vn_id: str) -> dict[str, Any]:
        """The VN's fabric tables as a JSON-compatible (``google.protobuf.Struct``) dict."""
        async with self._reader.connect() as conn:
            network = (await conn.execute(
                select(sim_fabric_networks).where(sim_fabric_networks.c.vn_id == vn_id))).first()
            segments = (await conn.execute(
                select(sim_fabric_segments).where(sim_fabric_segments.c.vn_id == vn_id)
                .order_by(sim_fabric_segments.c.segment_id))).all()
            segment_ids = [s.segment_id for s in segments]
            ports = (await conn.execute(
                select(sim_fabric_ports).where(sim_fabric_ports.c.vn_id == vn_id)
                .order_by(sim_fabric_ports.c.host_name, sim_fabric_ports.c.interface))).all()
            groups = (await conn.execute(
                select(sim_fabric_security_groups).where(sim_fabric_security_groups.c.vn_id == vn_id)
                .order_by(sim_fabric_security_groups.c.sg_id))).all()
            reservations = (await conn.execute(
                select(sim_fabric_reservations).where(sim_fabric_reservations.c.subnet_id.in_(segment_ids))
                .order_by(sim_fabric_reservations.c.subnet_id, sim_fabric_reservations.c.address))).all()
            leases = (await conn.execute(
                select(sim_fabric_leases).where(sim_fabric_leases.c.subnet_id.in_(segment_ids))
                .order_by(sim_fabric_leases.c.subnet_id, sim_fabric_leases.c.address))).all()
            dnat = (await conn.execute(
                select(sim_fabric_dnat).where(sim_fabric_dnat.c.vn_id == vn_id)
                .order_by(sim_fabric_dnat.c.attachment_id))).all()
            snat = (await conn.execute(
                select(sim_fabric_snat).where(sim_fabric_snat.c.vn_id == vn_id))).all()
            addresses = [d.external_address for d in dnat] + [s.external_address for s in snat]
            externals = (await conn.execute(
                select(sim_fabric_external_ips).where(sim_fabric_external_ips.c.address.in_(addresses))
                .order_by(sim_fabric_external_ips.c.address))).all()
        return {
            "readable": True,
            "error": "",
            "observed_at": iso(self._clock.now()),
            "virtual_network": None if network is None else {
                "vn_id": network.vn_id, "cidrs": list(network.cidrs), "backend_ref": network.backend_ref,
                "created_at": iso(network.created_at),
            },
            "segments": [
                {
                    "subnet_id": s.segment_id, "cidr": s.cidr, "ipv6_cidr": s.ipv6_cidr or "", "gateway": s.gateway,
                    "dhcp_range": [s.dhcp_first, s.dhcp_last], "vip_range": [s.vip_first, s.vip_last],
                }
                for s in segments
            ],
            "ports": [
                {
                    "host_name": p.host_name, "interface": p.interface, "segment": p.segment_id, "mac": p.mac or "",
                    "security_group_ids": list(p.security_group_ids or []), "target_kind": p.target_kind or "",
                }
                for p in ports
            ],
            "security_groups": [
                {"sg_id": g.sg_id, "ingress": list(g.ingress), "egress": list(g.egress)} for g in groups
            ],
            "reservations": [
                {"subnet_id": r.subnet_id, "mac": r.mac, "address": r.address, "host_name": r.host_name,
                 "interface": r.interface}
                for r in reservations
            ],
            "leases": [
                {"subnet_id": r.subnet_id, "mac": r.mac, "address": r.address, "host_name": r.host_name,
                 "interface": r.interface, "granted_at": iso(r.granted_at)}
                for r in leases
            ],
            "dnat": [
                {"attachment_id": d.attachment_id, "external_address": d.external_address,
                 "internal_address": d.internal_address}
                for d in dnat
            ],
            "snat": [{"natgw_id": s.natgw_id, "external_address": s.external_address} for s in snat],
            "external_ips": [
                {"eip_id": e.eip_id, "pool_id": e.pool_id, "address": e.address} for e in externals
            ],
        }


# -- helpers ----------------------------------------------------------------------------------------


def _unchanged(what: str, object_id: str, name: str, stored: Any, given: Any) -> None:
    if stored != given:
        raise TerminalProviderError(
            "ImmutableFieldChanged",
            f"{what} {object_id} exists with {name} {_show(stored)}; it cannot change to {_show(given)} "
            "(delete and recreate it)",
        )


def _show(value: Any) -> str:
    if isinstance(value, list | tuple):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return "''" if value in (None, "") else str(value)


def _not_in_use(what: str, object_id: str, users: Mapping[str, Sequence[str]]) -> None:
    parts = [
        f"{len(names)} {kind}(s) ({', '.join(names[:NAMES_SHOWN])}{', ...' if len(names) > NAMES_SHOWN else ''})"
        for kind, names in users.items() if names
    ]
    if parts:
        raise TransientProviderError("InUse", f"{what} {object_id} is still used by {'; '.join(parts)}")


async def _ids(conn: AsyncConnection, column: Any, condition: Any) -> list[str]:
    return sorted(str(v) for v in (await conn.execute(select(column).where(condition))).scalars())


async def _exists(conn: AsyncConnection, condition: Any) -> bool:
    return (await conn.execute(select(1).where(condition).limit(1))).first() is not None


async def _check_external(conn: AsyncConnection, address: str, user: str) -> None:
    if not await _exists(conn, sim_fabric_external_ips.c.address == address):
        raise TransientProviderError(
            "ExternalAddressNotAnnounced", f"external address {address} of {user} is not announced on the fabric")


async def _not_snat(conn: AsyncConnection, address: str) -> None:
    gateway = (await conn.execute(
        select(sim_fabric_snat.c.natgw_id).where(sim_fabric_snat.c.external_address == address))).scalar()
    if gateway is not None:
        raise TerminalProviderError(
            "AddressInUse", f"external address {address} is the SNAT address of NAT gateway {gateway}")


async def _check_groups(conn: AsyncConnection, groups: Sequence[str], vn_id: str, port_key: str) -> None:
    if not groups:
        return
    rows = {
        r.sg_id: r.vn_id
        for r in await conn.execute(
            select(sim_fabric_security_groups.c.sg_id, sim_fabric_security_groups.c.vn_id).where(
                sim_fabric_security_groups.c.sg_id.in_(list(groups)))
        )
    }
    missing = [g for g in groups if g not in rows]
    if missing:
        raise TransientProviderError(
            "SecurityGroupNotFound",
            f"security group(s) {', '.join(missing)} of port {port_key} do not exist on the fabric")
    foreign = [g for g in groups if rows[g] != vn_id]
    if foreign:
        raise TerminalProviderError(
            "SecurityGroupInOtherNetwork",
            f"security group(s) {', '.join(foreign)} of port {port_key} belong to another virtual network "
            f"than the port's subnet ({vn_id})")


async def _drop_reservations(conn: AsyncConnection, host_name: str, interface: str) -> None:
    """Remove the port's reservations and the leases granted from them."""
    owned = and_(sim_fabric_reservations.c.host_name == host_name, sim_fabric_reservations.c.interface == interface)
    await conn.execute(delete(sim_fabric_leases).where(
        sim_fabric_leases.c.host_name == host_name, sim_fabric_leases.c.interface == interface))
    await conn.execute(delete(sim_fabric_reservations).where(owned))


async def _check_reservation_free(conn: AsyncConnection, subnet_id: str, mac: str, address: str, port: str) -> None:
    holder = (await conn.execute(
        select(sim_fabric_reservations).where(
            sim_fabric_reservations.c.subnet_id == subnet_id,
            or_(sim_fabric_reservations.c.mac == mac, sim_fabric_reservations.c.address == address))
    )).first()
    if holder is None:
        return
    other = f"{holder.host_name}/{holder.interface}"
    if other == port:
        raise TransientProviderError(
            "PortBusy", f"port {port} was attached by a concurrent call meanwhile; attach it again")
    if holder.mac == mac:
        raise TerminalProviderError(
            "MacInUse", f"MAC {mac} of port {port} is already reserved in subnet {subnet_id} by port {other}")
    raise TerminalProviderError(
        "AddressInUse", f"address {address} of port {port} is already reserved in subnet {subnet_id} by port {other}")


def _segment_values(spec: SubnetSpec) -> dict[str, Any]:
    cidr = _cidr(spec.cidr, "cidr")
    network = ipaddress.ip_network(cidr)
    values: dict[str, Any] = {
        "vn_id": spec.vn_id,
        "cidr": cidr,
        "ipv6_cidr": _cidr(spec.ipv6_cidr, "ipv6_cidr") if spec.ipv6_cidr else None,
        "gateway": _ip(spec.gateway, "gateway"),
        "dhcp_first": _ip(spec.dhcp_range[0], "dhcp_range"),
        "dhcp_last": _ip(spec.dhcp_range[1], "dhcp_range"),
        "vip_first": _ip(spec.vip_range[0], "vip_range"),
        "vip_last": _ip(spec.vip_range[1], "vip_range"),
    }
    for name in ("gateway", "dhcp_first", "dhcp_last", "vip_first", "vip_last"):
        if ipaddress.ip_address(values[name]) not in network:
            raise TerminalProviderError(
                "InvalidSpec", f"{name} {values[name]} of subnet {spec.subnet_id} is outside its CIDR {cidr}")
    dhcp: tuple[Any, Any] = (ipaddress.ip_address(values["dhcp_first"]), ipaddress.ip_address(values["dhcp_last"]))
    vip: tuple[Any, Any] = (ipaddress.ip_address(values["vip_first"]), ipaddress.ip_address(values["vip_last"]))
    if dhcp[0] > dhcp[1] or vip[0] > vip[1]:
        raise TerminalProviderError("InvalidSpec", f"a range of subnet {spec.subnet_id} ends before it starts")
    if dhcp[0] <= vip[1] and vip[0] <= dhcp[1]:
        raise TerminalProviderError(
            "InvalidSpec", f"the DHCP range of subnet {spec.subnet_id} overlaps its VIP range")
    gateway: Any = ipaddress.ip_address(values["gateway"])
    if dhcp[0] <= gateway <= dhcp[1] or vip[0] <= gateway <= vip[1]:
        raise TerminalProviderError("InvalidSpec", f"the gateway of subnet {spec.subnet_id} lies in a range")
    return values


def _inside_network(subnet_id: str, cidr: str, vn_cidrs: Sequence[str]) -> None:
    network = ipaddress.ip_network(cidr)
    same_family = [ipaddress.ip_network(c) for c in vn_cidrs if ipaddress.ip_network(c).version == network.version]
    if same_family and not any(network.subnet_of(parent) for parent in same_family):  # type: ignore[arg-type]
        raise TerminalProviderError(
            "InvalidSpec",
            f"subnet {subnet_id} ({cidr}) is outside the CIDRs of its virtual network ({', '.join(vn_cidrs)})")


def _rule(rule: SecurityRuleSpec, path: str) -> dict[str, Any]:
    protocol = rule.protocol.lower()
    if protocol not in ("tcp", "udp", "icmp", "all"):
        raise TerminalProviderError("InvalidSpec", f"{path}: protocol '{rule.protocol}' is not tcp, udp, icmp or all")
    data = asdict(rule)
    data["protocol"] = protocol
    for name in ("ipv4_cidr", "ipv6_cidr"):
        if data[name]:
            data[name] = _cidr(data[name], f"{path}.{name}", strict=False)
    return data


def _cidr(text: str, name: str, *, strict: bool = True) -> str:
    try:
        return str(ipaddress.ip_network(text.strip(), strict=strict))
    except ValueError as error:
        raise TerminalProviderError("InvalidSpec", f"{name}: '{text}' is not a valid CIDR ({error})") from None


def _ip(text: str, name: str) -> str:
    try:
        return str(ipaddress.ip_address(text.strip()))
    except ValueError:
        raise TerminalProviderError("InvalidSpec", f"{name}: '{text}' is not a valid IP address") from None


def _mac(text: str) -> str:
    return text.strip().lower()


def _in_range(address: str, first: str | None, last: str | None) -> bool:
    if not first or not last:
        return False
    value = ipaddress.ip_address(address)
    low, high = ipaddress.ip_address(first), ipaddress.ip_address(last)
    if value.version != low.version or value.version != high.version:
        return False
    return int(low) <= int(value) <= int(high)  # one family: the order of the addresses


def _lease(row: Row[Any]) -> Lease:
    return Lease(address=row.address, mac=row.mac, interface=row.interface, subnet_id=row.subnet_id,
                 granted_at=from_db(row.granted_at))
