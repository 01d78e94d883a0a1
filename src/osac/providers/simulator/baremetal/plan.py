"""How a simulated bare-metal host moves (simulator.md §3.3): pure planning, no I/O.

Table durations at speed 1 (``StepTiming`` jitters and scales them):

======================  ========================================================================
provision               ``available`` -> ``provisioning`` (powered on, deploying over the
                        ``lifecycle`` port) -> 150 s ``provisioned``, powered on, booted
power off               ``spec.online`` false at once, ``poweredOn`` false 10 s later
power on                ``spec.online`` true at once, powered on and booted 60 s later
reboot                  powered off 10 s later, on and booted 60 s after that (70 s)
deprovision             ``deprovisioning`` (disks wiped) -> 60 s ``available``, powered off
DHCP lease              15 s after the OS booted (a tick: the NICs' addresses appear)
======================  ========================================================================

Assignment to an owner is immediate and not part of the plan. Only a provisioned host boots an
OS, so only a provisioned host gets leases. The only teardown stage is ``deprovisioning``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from osac.providers.simulator.runtime.plan_steps import State, Step
from osac.providers.simulator.runtime.step_timing import StepTiming
from osac.providers.simulator.runtime.times import iso

KIND = "host"

PROVISION_SECONDS = 150.0
POWER_OFF_SECONDS = 10.0
POWER_ON_SECONDS = 60.0
DEPROVISION_SECONDS = 60.0
LEASE_SECONDS = 15.0

AVAILABLE = "available"
PROVISIONING = "provisioning"
PROVISIONED = "provisioned"
DEPROVISIONING = "deprovisioning"
BUSY_STATES = (PROVISIONING, DEPROVISIONING)


@dataclass(frozen=True)
class HostState:
    """``online`` is the desired power (``spec.online``), ``powered_on`` the actual one;
    ``booted_at`` is when the deployed OS finished booting and ``lease_at`` when its DHCP
    leases arrive (both None while it is not running)."""

    provisioning: str = AVAILABLE
    powered_on: bool = False
    online: bool = False
    booted_at: datetime | None = None
    lease_at: datetime | None = None

    @property
    def is_busy(self) -> bool:
        return self.provisioning in BUSY_STATES

    def to_json(self) -> dict[str, Any]:
        return {"provisioning": self.provisioning, "powered_on": self.powered_on, "online": self.online,
                "booted_at": iso(self.booted_at), "lease_at": iso(self.lease_at)}

    @classmethod
    def from_json(cls, data: State) -> HostState:
        return cls(provisioning=str(data["provisioning"]), powered_on=bool(data["powered_on"]),
                   online=bool(data["online"]), booted_at=_optional_time(data.get("booted_at")),
                   lease_at=_optional_time(data.get("lease_at")))


INITIAL = HostState()


def state_of(step: Step | None) -> HostState:
    return INITIAL if step is None or step.state is None else HostState.from_json(step.state)


@dataclass(frozen=True)
class HostPlanned:
    new: list[tuple[datetime, HostState | None]] = field(default_factory=list)
    keep: frozenset[int] = frozenset()
    changed: bool = True

    def steps(self) -> list[tuple[datetime, State | None]]:
        return [(at, None if state is None else state.to_json()) for at, state in self.new]

    def keeps(self, step: Step) -> bool:
        return step.seq in self.keep


@dataclass(frozen=True)
class HostPlanner:
    """Plans one call at ``now`` for host ``name``; ``command`` indexes the call (its jitter)."""

    now: datetime
    timing: StepTiming
    name: str
    command: int

    def duration(self, seconds: float, label: str) -> timedelta:
        return self.timing.duration(seconds, KIND, self.name, self.command, label)

    def _booted(self, at: datetime, state: HostState) -> list[tuple[datetime, HostState | None]]:
        """Powered on at ``at``; a provisioned host's OS is up then and leases follow."""
        if state.provisioning != PROVISIONED:
            return [(at, replace(state, powered_on=True, online=True, booted_at=None, lease_at=None))]
        lease_at = at + self.duration(LEASE_SECONDS, "lease")
        up = replace(state, powered_on=True, online=True, booted_at=at, lease_at=lease_at)
        return [(at, up), (lease_at, None)]

    def _off(self, state: HostState) -> HostState:
        return replace(state, powered_on=False, booted_at=None, lease_at=None)

    def provision(self, state: HostState) -> HostPlanned:
        deploying = HostState(provisioning=PROVISIONING, powered_on=True, online=True)
        done_at = self.now + self.duration(PROVISION_SECONDS, "provision")
        return HostPlanned(new=[(self.now, deploying), *self._booted(done_at, replace(deploying,
                                                                                      provisioning=PROVISIONED))])

    def deprovision(self, state: HostState, *, halt: bool) -> HostPlanned:
        if state.provisioning == AVAILABLE:
            return self.power(state, [], on=False)
        wiping = HostState(provisioning=DEPROVISIONING, powered_on=True, online=False)
        new: list[tuple[datetime, HostState | None]] = [(self.now, wiping)]
        if not halt:
            new += self.finish_deprovision().new
        return HostPlanned(new=new)

    def finish_deprovision(self) -> HostPlanned:
        done_at = self.now + self.duration(DEPROVISION_SECONDS, "deprovision")
        return HostPlanned(new=[(done_at, HostState(provisioning=AVAILABLE))])

    def power(self, state: HostState, pending: Sequence[Step], *, on: bool) -> HostPlanned:
        if on:
            if state.online and (state.powered_on or _powering_on(pending)):
                return HostPlanned(keep=frozenset(s.seq for s in pending), changed=False)
            off_at = _powered_off_at(pending)
            if state.powered_on and off_at is not None:
                # still shutting down: power on once it is off
                keep = frozenset(s.seq for s in pending if s.at <= off_at)
                base = self._off(replace(state, online=True))
                return HostPlanned(new=[(off_at, base), *self._booted(off_at + self.duration(
                    POWER_ON_SECONDS, "power-on"), base)], keep=keep)
            base = self._off(replace(state, online=True))
            on_at = self.now + self.duration(POWER_ON_SECONDS, "power-on")
            return HostPlanned(new=[(self.now, base), *self._booted(on_at, base)])
        if not state.online:
            return HostPlanned(keep=frozenset(s.seq for s in pending), changed=False)
        if not state.powered_on:
            return HostPlanned(new=[(self.now, replace(self._off(state), online=False))])
        off_at = self.now + self.duration(POWER_OFF_SECONDS, "power-off")
        return HostPlanned(new=[(self.now, replace(state, online=False)),
                                (off_at, replace(self._off(state), online=False))])

    def reboot(self, state: HostState, pending: Sequence[Step], *, fail: bool) -> HostPlanned:
        """Power-cycle; with ``fail`` the host goes down and stays down."""
        if not state.powered_on:
            if fail:
                return HostPlanned(new=[(self.now, replace(self._off(state), online=True))])
            if state.online and _powering_on(pending):
                return HostPlanned(keep=frozenset(s.seq for s in pending), changed=False)
            return self.power(replace(state, online=False), pending, on=True)
        off_at = self.now + self.duration(POWER_OFF_SECONDS, "reboot-off")
        down = replace(self._off(state), online=True)
        if fail:
            return HostPlanned(new=[(off_at, down)])
        on_at = off_at + self.duration(POWER_ON_SECONDS, "reboot-on")
        return HostPlanned(new=[(off_at, down), *self._booted(on_at, down)])


def is_halted(state: HostState, pending: Sequence[Step]) -> bool:
    """A deprovisioning that stopped before its end (a ``teardown_fail`` fault)."""
    return state.provisioning == DEPROVISIONING and not any(s.state is not None for s in pending)


def pending_state(pending: Sequence[Step]) -> HostState | None:
    """The state the host's pending steps end in (None when nothing is pending)."""
    last = next((s for s in reversed(pending) if s.state is not None), None)
    return None if last is None else state_of(last)


def _powering_on(pending: Sequence[Step]) -> bool:
    return any(s.state is not None and s.state.get("powered_on") for s in pending)


def _powered_off_at(pending: Sequence[Step]) -> datetime | None:
    return next((s.at for s in pending if s.state is not None and not s.state.get("powered_on")), None)


def _optional_time(value: Any) -> datetime | None:
    if value is None:
        return None
    return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
