"""Power of a provisioned bare-metal instance: the run strategy and ``restart_trigger``
(compute.md §3.3).

Once every gate is complete, each pass compares before acting:

- ``spec.restart_trigger`` above ``status.restart_trigger`` on a RUNNING host (or on one FAILED by
  its last power cycle: a new request is how the tenant retries) calls ``reboot_host`` and hands
  the start to the derivation, which reports the cycle and copies the trigger when it ends. Power
  errors are retried (1 s doubling); the third one fails the cycle.
- otherwise, unless a cycle runs, the host's desired power (``spec.online``) is brought to the
  run strategy: ``set_power(on)`` for ALWAYS, ``set_power(off)`` for HALTED. A host that a failed
  cycle left off with ``online`` still true is not powered on behind the tenant's back: the
  instance stays FAILED until a new restart request.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from osac.clock import Clock
from osac.controllers.baremetal.memory import InstanceMemory
from osac.controllers.runtime.retry import RetryPolicy
from osac.providers.baremetal import BareMetalProvider
from osac.providers.interfaces import ProviderError, TerminalProviderError
from osac.status.baremetal.derivation import BareMetalInstanceStatusView, BareMetalRestart, needs_power_cycle
from osac.status.baremetal.metal3 import HostReading
from osac.status.baremetal.restart import is_power_cycle_running
from osac.status.baremetal.views import (
    FAILED,
    POWER_ERRORS_BEFORE_FAILURE,
    RESTART_FAILED,
    RUN_STRATEGY_HALTED,
)
from osac.status.workloads.shared import is_true

#: Waits after a failed power call; a power cycle fails at its third failed call.
POWER_RETRY = RetryPolicy(timedelta(seconds=1), timedelta(seconds=60))
POWER_CYCLE_RETRY = RetryPolicy(timedelta(seconds=1), timedelta(seconds=60), limit=POWER_ERRORS_BEFORE_FAILURE)
REBOOT = "reboot"
SET_POWER = "set-power"
#: Provisioning states in which the provider refuses power changes.
BUSY_STATES = ("provisioning", "deprovisioning")


@dataclass(frozen=True)
class PowerOutcome:
    #: The power cycle started (or given up) in this pass, for the derivation.
    restart: BareMetalRestart = field(default_factory=BareMetalRestart)
    #: When to try a failed power call again.
    requeue_after: timedelta | None = None
    #: Whether a power call was made (the host should be observed again).
    acted: bool = False


class PowerControl:
    def __init__(self, provider: BareMetalProvider, clock: Clock) -> None:
        self.provider = provider
        self.clock = clock

    async def converge(
        self,
        host_name: str,
        spec_trigger: int,
        run_strategy: int,
        previous: BareMetalInstanceStatusView,
        host: HostReading,
        memory: InstanceMemory,
    ) -> PowerOutcome:
        if needs_cycle(spec_trigger, previous):
            return await self._cycle(host_name, memory)
        memory.failures.succeeded(REBOOT)
        if is_power_cycle_running(previous):
            return PowerOutcome()
        wants_power = run_strategy != RUN_STRATEGY_HALTED
        if host.online == wants_power or host.provisioning_state in BUSY_STATES:
            memory.succeeded(SET_POWER)
            return PowerOutcome()
        now = self.clock.now()
        if not memory.is_due(SET_POWER, now):
            return PowerOutcome(requeue_after=memory.retry_at[SET_POWER] - now)
        try:
            await self.provider.set_power(host_name, wants_power)
        except ProviderError:
            delay = POWER_RETRY.delay(memory.failures.failed(SET_POWER))
            memory.wait_until(SET_POWER, now + delay)
            return PowerOutcome(requeue_after=delay)
        memory.succeeded(SET_POWER)
        return PowerOutcome(acted=True)

    async def _cycle(self, host_name: str, memory: InstanceMemory) -> PowerOutcome:
        now = self.clock.now()
        if not memory.is_due(REBOOT, now):
            return PowerOutcome(requeue_after=memory.retry_at[REBOOT] - now)
        try:
            await self.provider.reboot_host(host_name)
        except ProviderError as error:
            attempts = memory.failures.failed(REBOOT)
            if isinstance(error, TerminalProviderError) or POWER_CYCLE_RETRY.is_exhausted(attempts):
                memory.succeeded(REBOOT)
                message = f"power cycle failed after {attempts} attempt(s): {error.message}"
                return PowerOutcome(BareMetalRestart(started_at=now, error=message))
            delay = POWER_CYCLE_RETRY.delay(attempts)
            memory.wait_until(REBOOT, now + delay)
            return PowerOutcome(requeue_after=delay)
        memory.succeeded(REBOOT)
        return PowerOutcome(BareMetalRestart(started_at=now), acted=True)


def needs_cycle(spec_trigger: int, status: BareMetalInstanceStatusView) -> bool:
    """A new restart request on a RUNNING host, or on a host FAILED by its last power cycle."""
    if needs_power_cycle(spec_trigger, status):
        return True
    return (
        spec_trigger > status.restart_trigger
        and status.state == FAILED
        and is_true(status.conditions, RESTART_FAILED)
        and status.provisioning_steps.are_complete
        and not is_power_cycle_running(status)
    )
