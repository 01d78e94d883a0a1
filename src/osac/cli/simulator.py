"""The ``osac simulator`` commands' work: fault records, observations, reachability, the clock,
the host inventory.

All calls go to the private API (``osac.private.v1.SimulatorFaults`` and ``...Simulator``,
simulator.md §7), which only provider admins may use and which exists only while a simulator
provider is configured. Nothing here prints; the commands in ``main`` do.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from google.protobuf.message import Message

from osac.api.private.v1.simulator_fault_type_pb2 import SimulatorFault
from osac.api.private.v1.simulator_faults_service_pb2 import (
    SimulatorFaultsCreateRequest,
    SimulatorFaultsCreateResponse,
    SimulatorFaultsDeleteResponse,
    SimulatorFaultsListResponse,
)
from osac.api.private.v1.simulator_service_pb2 import (
    SimulatorAddHostsResponse,
    SimulatorAdvanceClockRequest,
    SimulatorAdvanceClockResponse,
    SimulatorCheckReachabilityResponse,
    SimulatorGetObservationResponse,
    SimulatorHost,
    SimulatorListHostsResponse,
    SimulatorRemoveHostResponse,
    SimulatorSetSpeedResponse,
)
from osac.cli.connection.channel import Connection
from osac.cli.connection.client import PAGE_SIZE, KindClient, Listing
from osac.cli.connection.shape import as_kind, id_of
from osac.cli.errors import ApiError, CliError
from osac.cli.output.render import EMPTY, to_dict
from osac.model import registry

FAULTS = "SimulatorFaults"
SIMULATOR = "Simulator"
PROTOCOLS = ("tcp", "udp", "icmp", "all")
FAULT_HEADERS = ("ID", "FAULT", "TARGET KIND", "TARGET", "PARAMS", "REMAINING", "EXPIRES")
HOST_HEADERS = ("NAME", "TYPE", "POWER", "PROVISIONING", "STATUS", "OWNER", "BMC")
ADMINS_ONLY = "the simulator API is for provider admins"

_INT = re.compile(r"^[+-]?\d+$")
_FLOAT = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$")

M = TypeVar("M", bound=Message)


# -- parameters -----------------------------------------------------------------------------------


def parse_value(text: str) -> Any:
    """``true``/``false`` as booleans, ``3`` as an int, ``1.5`` as a float, anything else as text.

    >>> [parse_value(t) for t in ("true", "3", "0.5", "create_subnet")]
    [True, 3, 0.5, 'create_subnet']
    """
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if _INT.match(text.strip()):
        return int(text)
    if _FLOAT.match(text.strip()):
        return float(text)
    return text


def parse_params(texts: Sequence[str]) -> dict[str, Any]:
    """``key=value`` options as a dict (values per ``parse_value``).

    :raises CliError: an option without ``=`` or with an empty key, or a key given twice.
    """
    params: dict[str, Any] = {}
    for text in texts:
        key, sep, value = text.partition("=")
        key = key.strip()
        if not sep or not key:
            raise CliError(f"--param '{text}': expected KEY=VALUE (e.g. operation=create_subnet)")
        if key in params:
            raise CliError(f"--param {key} is given twice")
        params[key] = parse_value(value)
    return params


def plain(value: Any) -> Any:
    """A ``google.protobuf.Struct`` value as the service wrote it: whole numbers as ints (a Struct
    carries only doubles), mapping keys sorted (a Struct keeps no order).

    >>> plain({"b": 3.0, "a": [0.5, True]})
    {'a': [0.5, True], 'b': 3}
    """
    if isinstance(value, dict):
        return {key: plain(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def fault_dict(fault: SimulatorFault) -> dict[str, Any]:
    """A fault record in proto JSON, its params as written."""
    data = to_dict(fault)
    if "params" in data:
        data["params"] = plain(data["params"])
    return data


def param_text(value: Any) -> str:
    """A parameter value as written on the command line (``true``, ``3``, ``0.5``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# -- faults ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NewFault:
    fault: str
    target_kind: str = ""
    target_id: str = ""
    params: dict[str, Any] | None = None
    times: int | None = None
    expires_in: timedelta | None = None


def create_fault(connection: Connection, new: NewFault, *, now: datetime | None = None) -> SimulatorFault:
    """Record a fault; the stored record (with its id).

    :raises CliError: ``--times`` conflicts with a ``times`` parameter.
    :raises ApiError: the server rejects the fault (INVALID_ARGUMENT naming the field).
    """
    params = dict(new.params or {})
    if new.times is not None:
        if "times" in params and params["times"] != new.times:
            raise CliError("give the count once: --times N or --param times=N")
        params["times"] = new.times
    request = as_kind(connection.request(FAULTS, "Create"), SimulatorFaultsCreateRequest)
    fault = request.object
    fault.fault = new.fault
    fault.target_kind = new.target_kind
    fault.target_id = _target_id(connection, new.target_kind, new.target_id)
    if params:
        fault.params.update(params)
    if new.expires_in is not None:
        fault.expires_at.FromDatetime((now or datetime.now(UTC)) + new.expires_in)
    return call(connection, FAULTS, "Create", request, SimulatorFaultsCreateResponse).object


#: Target kinds that are API objects: ``--target`` takes a name or an id, as other commands do.
OBJECT_TARGETS = ("cluster", "compute_instance", "subnet")


def _target_id(connection: Connection, target_kind: str, target: str) -> str:
    """The id of the object ``target`` names (``*`` and hosts are passed on as given).

    :raises ApiError: NOT_FOUND, no such object (a fault aimed at nothing would do nothing).
    """
    if target_kind not in OBJECT_TARGETS or not target or target == "*":
        return target
    return id_of(KindClient(connection, registry.get(target_kind)).find(target))


def list_faults(connection: Connection) -> Listing[SimulatorFault]:
    """Every recorded fault, oldest first."""
    items: list[SimulatorFault] = []
    total = 0
    revision = 0
    while True:
        request = connection.request(FAULTS, "List", offset=len(items), limit=PAGE_SIZE)
        page = call(connection, FAULTS, "List", request, SimulatorFaultsListResponse)
        if not items:
            revision = page.revision
        total = page.total
        items.extend(page.items)
        if not page.items or len(items) >= total:
            return Listing(items=items, total=total, revision=revision)


def delete_fault(connection: Connection, fault_id: str) -> None:
    request = connection.request(FAULTS, "Delete", id=fault_id)
    call(connection, FAULTS, "Delete", request, SimulatorFaultsDeleteResponse)


def fault_row(fault: SimulatorFault) -> list[str]:
    """The cells of ``osac simulator fault list``: ID FAULT TARGET KIND TARGET PARAMS REMAINING EXPIRES."""
    params = fault_dict(fault).get("params", {})
    expires = fault.expires_at.ToJsonString() if fault.HasField("expires_at") else EMPTY
    remaining = fault.remaining
    return [
        fault.id,
        fault.fault,
        fault.target_kind or EMPTY,
        fault.target_id or EMPTY,
        ",".join(f"{k}={param_text(v)}" for k, v in sorted(params.items())) or EMPTY,
        str(remaining) if remaining else EMPTY,
        expires,
    ]


# -- the Simulator service ------------------------------------------------------------------------


def observe(connection: Connection, kind: str, key: str) -> dict[str, Any]:
    """The raw observation of ``kind`` ``key`` (``fabric`` + a VN id: the VN's fabric tables)."""
    request = connection.request(SIMULATOR, "GetObservation", kind=kind, key=key)
    response = call(connection, SIMULATOR, "GetObservation", request, SimulatorGetObservationResponse)
    return plain(to_dict(response).get("observation", {}))


@dataclass(frozen=True)
class Reachability:
    allowed: bool
    reason: str
    translated_source: str
    translated_destination: str

    def lines(self) -> list[str]:
        return [
            f"{'ALLOWED' if self.allowed else 'DENIED'} ({self.reason or EMPTY})",
            f"Translated source:       {self.translated_source or EMPTY}",
            f"Translated destination:  {self.translated_destination or EMPTY}",
        ]


def check_reachability(connection: Connection, src: str, dst: str, protocol: str, port: int) -> Reachability:
    """Whether a packet from ``src`` reaches ``dst`` on the simulated fabric.

    :raises CliError: an unknown protocol.
    """
    word = protocol.strip().lower()
    if word not in PROTOCOLS:
        raise CliError(f"--protocol '{protocol}': expected one of {', '.join(PROTOCOLS)}")
    request = connection.request(
        SIMULATOR, "CheckReachability", src=src, dst=dst, protocol=f"PROTOCOL_{word.upper()}", port=port
    )
    answer = call(connection, SIMULATOR, "CheckReachability", request, SimulatorCheckReachabilityResponse)
    return Reachability(
        allowed=answer.allowed,
        reason=answer.reason,
        translated_source=answer.translated_source,
        translated_destination=answer.translated_destination,
    )


def set_speed(connection: Connection, speed: str) -> str:
    """Change the speed factor; the speed now in effect."""
    request = connection.request(SIMULATOR, "SetSpeed", speed=speed)
    return call(connection, SIMULATOR, "SetSpeed", request, SimulatorSetSpeedResponse).speed


def advance_clock(connection: Connection, duration: timedelta) -> str:
    """Advance the fake clock; its time afterwards (RFC 3339).

    :raises ApiError: FAILED_PRECONDITION when the simulator runs on the system clock.
    """
    request = as_kind(connection.request(SIMULATOR, "AdvanceClock"), SimulatorAdvanceClockRequest)
    request.duration.FromTimedelta(duration)
    answer = call(connection, SIMULATOR, "AdvanceClock", request, SimulatorAdvanceClockResponse)
    return answer.now.ToJsonString()


def list_hosts(connection: Connection, host_type: str = "") -> list[SimulatorHost]:
    """The simulated host inventory (FAILED_PRECONDITION without one)."""
    request = connection.request(SIMULATOR, "ListHosts", host_type=host_type)
    return list(call(connection, SIMULATOR, "ListHosts", request, SimulatorListHostsResponse).hosts)


def add_hosts(connection: Connection, prefix: str, host_type: str, count: int) -> list[SimulatorHost]:
    """Add ``count`` hosts ``<prefix>-<nnn>`` of a bare-metal host type; the hosts added.

    :raises ApiError: INVALID_ARGUMENT for an unknown or virtual host type or a bad prefix.
    """
    request = connection.request(SIMULATOR, "AddHosts", prefix=prefix, host_type=host_type, count=count)
    return list(call(connection, SIMULATOR, "AddHosts", request, SimulatorAddHostsResponse).hosts)


def remove_host(connection: Connection, name: str) -> None:
    """Remove a free host.

    :raises ApiError: NOT_FOUND, or FAILED_PRECONDITION naming the owner of an assigned host.
    """
    request = connection.request(SIMULATOR, "RemoveHost", name=name)
    call(connection, SIMULATOR, "RemoveHost", request, SimulatorRemoveHostResponse)


def host_row(host: SimulatorHost) -> list[str]:
    owner = f"{host.owner.kind}/{host.owner.id}" if host.HasField("owner") else EMPTY
    return [
        host.name,
        host.host_type or EMPTY,
        host.power or EMPTY,
        host.provisioning_state or EMPTY,
        host.operational_status or EMPTY,
        owner,
        host.bmc or EMPTY,
    ]


def call(connection: Connection, service: str, method: str, request: Message, answer: type[M]) -> M:
    """A call to the simulator API, its response as ``answer`` (the method's response class),
    explaining what its refusals mean."""
    try:
        return as_kind(connection.call(service, method, request), answer)
    except ApiError as error:
        if error.code == "PERMISSION_DENIED":
            raise ApiError(error.code, f"{error.message} ({ADMINS_ONLY})") from None
        if error.code == "UNIMPLEMENTED":
            raise ApiError(error.code, f"{error.message} (is a simulator provider configured?)") from None
        raise
