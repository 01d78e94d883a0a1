"""What the reconciler tells the cluster derivation besides the HyperShift dicts (§6)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Literal, get_args

#: A terminal failure belongs to provisioning (drives FAILED) or to teardown (DELETE_FAILED).
FailurePhase = Literal["provision", "teardown"]


@dataclass(frozen=True)
class NodeSetSpec:
    """One entry of ``spec.node_sets``: the tenant's request for a node set."""

    host_type: str
    size: int
    fabric_interface: str = ""


@dataclass(frozen=True)
class TerminalFailure:
    """A ``TerminalProviderError`` the reconciler recorded; it stays until the spec changes (or,
    for teardown, until Delete is called again), which is what makes FAILED level-triggered."""

    phase: FailurePhase
    reason: str
    message: str = ""
    at: datetime | None = None

    def __post_init__(self) -> None:
        # A misspelt phase would silently never produce FAILED or DELETE_FAILED.
        if self.phase not in get_args(FailurePhase):
            raise ValueError(f"terminal failure phase {self.phase!r}; use one of {', '.join(get_args(FailurePhase))}")

    def describe(self) -> str:
        if self.reason and self.message:
            return f"{self.reason}: {self.message}"
        return self.reason or self.message


@dataclass(frozen=True)
class ClusterContext:
    """The cluster's own facts for one derivation.

    ``observation_readable=False`` means the provider could not answer (hub unreachable, timeout,
    auth error), which is different from an answer that the HostedCluster does not exist.
    ``cleanup_pending`` names OSAC-side leftovers (external IPs, host claims, ports) that still
    hold the finalizer; ``reserved_vips`` are the (API, ingress) addresses reserved at create."""

    node_sets: Mapping[str, NodeSetSpec] = field(default_factory=lambda: MappingProxyType({}))
    observation_readable: bool = True
    observation_error: str = ""
    deletion_requested: bool = False
    terminal_failure: TerminalFailure | None = None
    cleanup_pending: tuple[str, ...] = ()
    reserved_vips: tuple[str, str] | None = None

    def failure_in(self, phase: FailurePhase) -> TerminalFailure | None:
        failure = self.terminal_failure
        return failure if failure is not None and failure.phase == phase else None
