"""What the bare-metal reconciler remembers about an instance between passes.

Everything that decides the instance's course is persisted in its status (the gate record, the
host, the handled restart trigger). This memory only saves work and paces retries: which ports
this process has already bound (so a pass does not repeat a 10 s fabric call), when a retry is
due (so the extra pass that every status write causes does not retry early), and the counters of
the retry budgets that have no field in the status. Losing it (a restart, a lease taken over)
costs at most one repeated idempotent call and a fresh budget for the step in progress.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from osac.controllers.runtime.retry import Attempts
from osac.providers.baremetal import HostRecord


@dataclass(frozen=True)
class PortBinding:
    """How one host port should sit on the fabric: its subnet, reserved address and SGs."""

    subnet: str
    address: str
    security_groups: tuple[str, ...]


@dataclass
class InstanceMemory:
    #: The assigned host as the inventory described it (interfaces and MACs).
    host: HostRecord | None = None
    #: Ports bound by this process: interface -> the binding the fabric confirmed.
    attached: dict[str, PortBinding] = field(default_factory=dict)
    #: First ``create_network_attachment`` call of an interface not yet active (attach metric).
    attach_started: dict[str, datetime] = field(default_factory=dict)
    #: Action -> the earliest time it may be tried again after a failure.
    retry_at: dict[str, datetime] = field(default_factory=dict)
    #: Consecutive failures per action that has no count in the status: the power cycle being
    #: requested (``reboot``, three fail it), applying the run strategy (``set-power``), re-binding
    #: the ports after an Update (``configuration``) and each teardown step (``teardown:...``, the
    #: cleanup retry limit).
    failures: Attempts[str] = field(default_factory=Attempts)
    #: Hash of the mutable spec last applied in full (security groups and run strategy).
    applied_spec_hash: str = ""
    #: (spec hash, message) of a terminal error applying that spec; retried only for a new spec.
    configuration_failure: tuple[str, str] | None = None
    #: Gate 4 completed in this process and the first RUNNING has not been seen yet.
    awaiting_first_run: bool = False

    def is_due(self, action: str, now: datetime) -> bool:
        due = self.retry_at.get(action)
        return due is None or now >= due

    def wait_until(self, action: str, due: datetime) -> None:
        self.retry_at[action] = due

    def succeeded(self, action: str) -> None:
        """``action`` succeeded (or was given up): no wait, and the next failure is the first."""
        self.retry_at.pop(action, None)
        self.failures.succeeded(action)
