"""What the networking pages show, computed from networking messages."""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf.message import Message

from osac.console.labels import SUBNET_STATES, Label, state_label


@dataclass(frozen=True)
class SubnetRow:
    id: str
    name: str
    tenant: str
    version: int
    virtual_network: str
    cidr: str
    gateway: str
    vip_range: str
    available: str
    state: Label
    message: str


def subnet_row(subnet: Message, networks: dict[str, str]) -> SubnetRow:
    meta = subnet.metadata  # type: ignore[attr-defined]
    spec = subnet.spec  # type: ignore[attr-defined]
    status = subnet.status  # type: ignore[attr-defined]
    cidrs = [c for c in (spec.ipv4_cidr, spec.ipv6_cidr) if c]
    return SubnetRow(
        id=subnet.id,  # type: ignore[attr-defined]
        name=meta.name,
        tenant=meta.tenant,
        version=meta.version,
        virtual_network=networks.get(spec.virtual_network, spec.virtual_network) or "-",
        cidr=", ".join(cidrs) or "-",
        gateway=status.gateway or "-",
        vip_range=status.vip_range or "-",
        available=str(status.available_addresses) if status.state else "-",
        state=state_label(SUBNET_STATES, status.state),
        message=status.message,
    )
