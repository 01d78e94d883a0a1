"""Fault records (simulator.md §5): the catalogue, validation, storage, and the fabric's faults.

A fault is a persisted record ``{id, target_kind, target_id | "*", fault, params, remaining,
expires_at}``. It takes effect from the next provider step or call and stops when deleted (or
expired). ``remaining`` counts an "N times" fault down (``params.times``); 0 means not counted,
so a counted fault is deleted in the same transaction that uses its last application (a record
with ``remaining`` 0 would otherwise mean "until deleted").

Fabric faults (target kind ``fabric``) name the provider method in ``params.operation``
(``create_subnet``, ..., ``query_dhcp_lease``, and the k8s manager's ``create_subnet_overlay`` /
``delete_subnet_overlay``; ``*`` = every operation). ``target_id`` is ``*`` or one object id the
call names (a VN, subnet, SG, EIP, attachment or gateway id; for a network attachment also
``<host>/<interface>``); the optional ``params.manager`` limits the fault to one manager name.
``dhcp_fail`` targets a ``subnet`` (id) or a ``host_interface`` (``<host>/<interface>``).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import Select, bindparam, delete, literal, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from osac.clock import Clock
from osac.model.ids import new_id
from osac.providers.interfaces import (
    FabricManager,
    K8sNetworkManager,
    TerminalProviderError,
    TransientProviderError,
)
from osac.providers.simulator.runtime.schema import sim_faults
from osac.providers.simulator.runtime.step_timing import stable_fraction
from osac.providers.simulator.runtime.times import from_db, to_db
from osac.store import direct

ANY = "*"
#: The records aimed at one object or at every object of its kind, built once (store/statements.py).
_AIMED_AT = (select(sim_faults)
             .where(sim_faults.c.target_kind == bindparam("target_kind"),
                    sim_faults.c.target_id.in_([bindparam("target_id"), bindparam("any")]))
             .order_by(sim_faults.c.created_at, sim_faults.c.id))


@cache
def _active(faults: tuple[str, ...], target_kinds: tuple[str, ...]) -> Select[Any]:
    """The unexpired records (at ``now``) of ``faults`` aimed at ``target_kinds``, oldest first:
    built once per pair (the callers name them in code)."""
    return (select(sim_faults)
            .where(sim_faults.c.fault.in_([literal(fault) for fault in faults]),
                   sim_faults.c.target_kind.in_([literal(kind) for kind in target_kinds]),
                   or_(sim_faults.c.expires_at.is_(None), sim_faults.c.expires_at > bindparam("now")))
            .order_by(sim_faults.c.created_at, sim_faults.c.id))


def _operations(manager: type) -> tuple[str, ...]:
    """The methods of a manager Protocol that act on the fabric: every coroutine but ``describe``."""
    return tuple(name for name, value in vars(manager).items()
                 if inspect.iscoroutinefunction(value) and name != "describe")


#: Methods of the fabric manager a fabric fault can name (``FabricManager``'s, in its order).
FABRIC_OPERATIONS = _operations(FabricManager)
#: Methods of the k8s network manager a fabric fault can name.
K8S_OPERATIONS = _operations(K8sNetworkManager)
OPERATIONS = FABRIC_OPERATIONS + K8S_OPERATIONS

TARGET_KINDS = ("cluster", "compute_instance", "host", "fabric", "subnet", "host_interface")

DEFAULT_FAILURE_REASON = "SimulatedFailure"


class InvalidFault(ValueError):
    """A fault record the catalogue rejects; ``field`` is the path of the offending field
    (``fault``, ``target_kind``, ``params.operation``, ``expires_at``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


# -- the catalogue --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    """One parameter of a fault: ``kind`` is ``str``, ``int`` (≥ 1), ``bool``, ``seconds`` (a
    positive number), ``fraction`` (a number above 0, at most 1) or ``choice`` (one of
    ``choices``)."""

    name: str
    kind: str = "str"
    required: bool = False
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class FaultKind:
    name: str
    targets: tuple[str, ...]
    params: tuple[Param, ...] = ()
    effect: str = ""

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


_WORKLOADS = ("cluster", "compute_instance", "host")
#: The stage tokens of cluster-status.md §7 a ``stall`` can hold (``clusters.faults.STAGE_EXITS``).
STALL_STAGES = ("PreparingInfrastructure", "ControlPlaneStarting", "WorkersJoining", "Scaling",
                "DestroyingCloudResources", "DestroyingControlPlane")
_OPERATION = Param("operation", "choice", required=True, choices=(ANY, *OPERATIONS))

FAULTS: Mapping[str, FaultKind] = {
    kind.name: kind
    for kind in (
        FaultKind("stall", ("cluster",), (Param("stage", "choice", required=True, choices=STALL_STAGES),),
                  "progression freezes just before the step that leaves the stage"),
        FaultKind("node_pool_failure", ("cluster",),
                  (Param("node_set", required=True), Param("count", "int", required=True),
                   Param("mode", "choice", choices=("join", "unhealthy"))),
                  "count machines never join or turn unhealthy"),
        FaultKind("hc_degraded", ("cluster",), (Param("message"),), "HostedCluster Degraded True"),
        FaultKind("signal_override", ("cluster",),
                  (Param("condition", required=True),
                   Param("status", "choice", required=True, choices=("True", "False", "Unknown", "absent"))),
                  "pins one HostedCluster condition"),
        FaultKind("conditions_absent", ("cluster",), (), "HostedCluster returned with no conditions"),
        FaultKind("vanish", ("cluster",), (), "HostedCluster disappears out of band"),
        FaultKind("unreadable", _WORKLOADS, (), "observe_* returns readable=False"),
        FaultKind("provision_fail", _WORKLOADS,
                  (Param("reason"), Param("terminal", "bool"), Param("times", "int")),
                  "apply / provision raises the error"),
        FaultKind("teardown_fail", _WORKLOADS, (Param("stage"), Param("terminal", "bool")),
                  "teardown halts; later delete / deprovision calls raise the error"),
        FaultKind("fabric_fail", ("fabric",),
                  (_OPERATION, Param("times", "int"), Param("terminal", "bool"), Param("reason"),
                   Param("manager"), Param("rate", "fraction")),
                  "the next `times` calls of the operation fail (all of them without `times`; "
                  "with `rate`, each call fails with that probability)"),
        FaultKind("fabric_latency", ("fabric",),
                  (_OPERATION, Param("seconds", "seconds", required=True), Param("manager")),
                  "adds latency (seconds of the clock, not scaled by the speed)"),
        FaultKind("dhcp_fail", ("subnet", "host_interface"), (), "no lease is ever granted"),
        FaultKind("vm_status", ("compute_instance",), (Param("printable_status", required=True),),
                  "forces the VM status"),
        FaultKind("restart_fail", ("compute_instance", "host"), (),
                  "after a restart the VM stays Stopped / the host stays down"),
        FaultKind("power_fail", ("host",), (Param("times", "int"),), "power operations fail"),
        FaultKind("host_broken", ("host",), (), "operationalStatus error"),
    )
}


@dataclass(frozen=True)
class FaultRecord:
    id: str
    target_kind: str
    target_id: str
    fault: str
    params: Mapping[str, Any]
    remaining: int
    expires_at: datetime | None
    created_at: datetime

    def is_expired(self, now: datetime) -> bool:
        return self.expires_at is not None and self.expires_at <= now


@dataclass(frozen=True)
class NewFault:
    """A validated fault, ready to store."""

    fault: str
    target_kind: str
    target_id: str
    params: Mapping[str, Any] = field(default_factory=dict)
    remaining: int = 0
    expires_at: datetime | None = None


def validate_fault(
    fault: str,
    target_kind: str = "",
    target_id: str = "",
    params: Mapping[str, Any] | None = None,
    expires_at: datetime | None = None,
    *,
    now: datetime,
) -> NewFault:
    """Check a fault against the catalogue and fill its defaults.

    An empty ``target_kind`` defaults to the fault's only target kind, an empty ``target_id`` to
    ``*``; ``remaining`` starts at ``params.times`` (0 = not counted). Integral numbers in
    ``params`` (a Struct carries only doubles) are stored as integers.

    :raises InvalidFault: unknown fault, wrong target kind, unknown / missing / ill-typed
        parameter, or an expiry that is not in the future.
    """
    kind = FAULTS.get(fault)
    if kind is None:
        if not fault:
            raise InvalidFault("fault", f"required; one of {', '.join(FAULTS)}")
        raise InvalidFault("fault", f"'{fault}' is not a simulator fault; expected one of {', '.join(FAULTS)}")
    if not target_kind:
        if len(kind.targets) != 1:
            raise InvalidFault("target_kind", f"required for fault '{fault}'; one of {', '.join(kind.targets)}")
        target_kind = kind.targets[0]
    if target_kind not in kind.targets:
        raise InvalidFault(
            "target_kind",
            f"fault '{fault}' targets {' or '.join(kind.targets)}, not '{target_kind}'",
        )
    checked = _check_params(kind, dict(params or {}))
    if expires_at is not None and to_db(expires_at) <= to_db(now):
        raise InvalidFault("expires_at", "must be in the future")
    times = checked.get("times")
    return NewFault(
        fault=fault,
        target_kind=target_kind,
        target_id=target_id or ANY,
        params=checked,
        remaining=int(times) if times is not None else 0,
        expires_at=None if expires_at is None else to_db(expires_at),
    )


def _check_params(kind: FaultKind, params: dict[str, Any]) -> dict[str, Any]:
    checked: dict[str, Any] = {}
    for name, value in params.items():
        spec = kind.param(name)
        if spec is None:
            expected = ", ".join(p.name for p in kind.params) or "none"
            raise InvalidFault(f"params.{name}", f"unknown parameter of fault '{kind.name}'; expected {expected}")
        checked[name] = _check_value(kind, spec, value)
    for spec in kind.params:
        if spec.required and spec.name not in checked:
            raise InvalidFault(f"params.{spec.name}", f"required for fault '{kind.name}'")
    return checked


def _check_value(kind: FaultKind, spec: Param, value: Any) -> Any:
    path = f"params.{spec.name}"
    if spec.kind == "bool":
        if not isinstance(value, bool):
            raise InvalidFault(path, f"must be true or false, got {value!r}")
        return value
    if spec.kind == "int":
        if isinstance(value, bool) or not isinstance(value, int | float) or not float(value).is_integer():
            raise InvalidFault(path, f"must be a whole number, got {value!r}")
        if value < 1:
            raise InvalidFault(path, f"must be at least 1, got {int(value)}")
        return int(value)
    if spec.kind == "seconds":
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
            raise InvalidFault(path, f"must be a positive number of seconds, got {value!r}")
        return float(value)
    if spec.kind == "fraction":
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
            raise InvalidFault(path, f"must be a number above 0 and at most 1 (0.02 for 2 %), got {value!r}")
        return float(value)
    if not isinstance(value, str) or not value:
        raise InvalidFault(path, f"must be a non-empty string, got {value!r}")
    if spec.kind == "choice" and value not in spec.choices:
        raise InvalidFault(path, f"'{value}' is not one of {', '.join(spec.choices)}")
    return value


# -- storage --------------------------------------------------------------------------------------


class FaultStore:
    """The ``sim_faults`` table. Give it the writer engine."""

    def __init__(self, engine: AsyncEngine, clock: Clock, *, reader: AsyncEngine | None = None) -> None:
        self._engine = engine
        self._reader = reader or engine
        #: Calls matched so far per fault with a ``rate`` (this process).
        self._draws: dict[str, int] = {}
        self._clock = clock

    async def create(self, new: NewFault) -> FaultRecord:
        record = FaultRecord(
            id=new_id(),
            target_kind=new.target_kind,
            target_id=new.target_id,
            fault=new.fault,
            params=dict(new.params),
            remaining=new.remaining,
            expires_at=new.expires_at,
            created_at=to_db(self._clock.now()),
        )
        async with self._engine.begin() as conn:
            await conn.execute(
                sim_faults.insert().values(
                    id=record.id,
                    target_kind=record.target_kind,
                    target_id=record.target_id,
                    fault=record.fault,
                    params=dict(record.params),
                    remaining=record.remaining,
                    expires_at=record.expires_at,
                    created_at=record.created_at,
                )
            )
        return record

    async def all(self) -> list[FaultRecord]:
        """Every record (expired ones too), oldest first."""
        query = select(sim_faults).order_by(sim_faults.c.created_at, sim_faults.c.id)
        async with self._reader.connect() as conn:
            return [_record(row) for row in await conn.execute(query)]

    async def aimed_at(self, target_kind: str, target_id: str,
                       conn: AsyncConnection | None = None) -> list[FaultRecord]:
        """The records (expired ones too) aimed at one object, or at every object of its kind
        (``*``), oldest first: one object's look at its faults does not read everyone's.
        ``conn``: a read transaction of the caller's to run in (the simulator's own tables)."""
        params = {"target_kind": target_kind, "target_id": target_id, "any": ANY}
        if conn is not None:
            return [_record(row) for row in await direct.execute(conn, _AIMED_AT, params, named=True)]
        async with self._reader.connect() as own:
            return [_record(row) for row in await direct.execute(own, _AIMED_AT, params, named=True)]

    async def get(self, fault_id: str) -> FaultRecord | None:
        async with self._reader.connect() as conn:
            row = (await conn.execute(select(sim_faults).where(sim_faults.c.id == fault_id))).first()
        return None if row is None else _record(row)

    async def delete(self, fault_id: str) -> bool:
        """Clear a fault; whether it existed."""
        async with self._engine.begin() as conn:
            result = await conn.execute(delete(sim_faults).where(sim_faults.c.id == fault_id))
        return bool(result.rowcount)

    async def active(self, faults: Collection[str], target_kinds: Collection[str]) -> list[FaultRecord]:
        """Unexpired records of these faults and target kinds, oldest first."""
        query = _active(tuple(faults), tuple(target_kinds))
        async with self._reader.connect() as conn:
            rows = await direct.execute(conn, query, {"now": to_db(self._clock.now())}, named=True)
            return [_record(row) for row in rows]

    async def consume(self, fault_id: str) -> bool:
        """Use one application of a counted fault; the last one deletes the record.

        Whether an application was left: False when a concurrent call used the last one (the
        conditional UPDATE matches no row), so two callers never share one application."""
        async with self._engine.begin() as conn:
            result = await conn.execute(
                update(sim_faults)
                .where(sim_faults.c.id == fault_id, sim_faults.c.remaining > 0)
                .values(remaining=sim_faults.c.remaining - 1)
            )
            if not result.rowcount:
                return False
            await conn.execute(delete(sim_faults).where(sim_faults.c.id == fault_id, sim_faults.c.remaining == 0))
        return True

    # -- fabric faults ----------------------------------------------------------------------------

    async def fabric(self) -> list[FaultRecord]:
        """The unexpired fabric faults (``fabric_latency``, ``fabric_fail``), oldest first: one
        read serves both checks of a call (``latency``, ``raise_if_failing``)."""
        return await self.active(("fabric_latency", "fabric_fail"), ("fabric",))

    @staticmethod
    def latency(records: Sequence[FaultRecord], manager: str, operation: str, object_ids: Sequence[str]) -> float:
        """Seconds of injected latency for one call (the sum of the matching faults)."""
        return sum(
            float(r.params.get("seconds", 0)) for r in records
            if r.fault == "fabric_latency" and _matches_call(r, manager, operation, object_ids)
        )

    async def raise_if_failing(
        self, records: Sequence[FaultRecord], manager: str, operation: str, object_ids: Sequence[str]
    ) -> None:
        """Raise the error of the oldest ``fabric_fail`` fault of ``records`` matching this call,
        if any.

        :raises TerminalProviderError: the fault has ``terminal: true``.
        :raises TransientProviderError: otherwise.
        """
        for record in records:
            if record.fault != "fabric_fail" or not _matches_call(record, manager, operation, object_ids):
                continue
            if "rate" in record.params and not self._draw(record) < float(record.params["rate"]):
                continue
            if record.remaining > 0 and not await self.consume(record.id):
                continue
            reason = str(record.params.get("reason") or DEFAULT_FAILURE_REASON)
            about = f" of {object_ids[0]}" if object_ids else ""
            message = f"simulated failure of {operation}{about} (fault {record.id})"
            if record.params.get("terminal"):
                raise TerminalProviderError(reason, message)
            raise TransientProviderError(reason, message)

    def _draw(self, record: FaultRecord) -> float:
        """The next number in ``[0, 1)`` of the record's own sequence: the same fault sees the
        same sequence of failures and successes for the same sequence of calls."""
        calls = self._draws[record.id] = self._draws.get(record.id, 0) + 1
        return stable_fraction(0, "fabric_fail", record.id, calls)

    async def is_dhcp_blocked(self, subnet_id: str, port: str | None) -> bool:
        """Whether a ``dhcp_fail`` fault covers the subnet or the port ``<host>/<interface>``."""
        for record in await self.active(("dhcp_fail",), ("subnet", "host_interface")):
            if record.target_id == ANY:
                return True
            if record.target_kind == "subnet" and record.target_id == subnet_id:
                return True
            if record.target_kind == "host_interface" and port is not None and record.target_id == port:
                return True
        return False


def _matches_call(record: FaultRecord, manager: str, operation: str, object_ids: Sequence[str]) -> bool:
    if record.params.get("operation") not in (ANY, operation):
        return False
    if record.params.get("manager") not in (None, manager):
        return False
    return record.target_id == ANY or record.target_id in object_ids


def _record(row: Any) -> FaultRecord:
    return FaultRecord(
        id=row.id,
        target_kind=row.target_kind,
        target_id=row.target_id,
        fault=row.fault,
        params=dict(row.params or {}),
        remaining=row.remaining,
        expires_at=None if row.expires_at is None else from_db(row.expires_at),
        created_at=from_db(row.created_at),
    )
