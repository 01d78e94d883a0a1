"""Faults aimed at one simulated workload object (simulator.md §5): the records of a fault kind
whose target is the object (its id or host name) or ``*``, and raising the provider error a
failing call fault prescribes.

A counted fault (``params.times``) is used up atomically by the call it fails
(``FaultStore.consume``), so two concurrent calls never share its last application.
"""

from __future__ import annotations

from collections.abc import Sequence

from osac.providers.interfaces import TerminalProviderError, TransientProviderError
from osac.providers.simulator.runtime.faults import ANY, DEFAULT_FAILURE_REASON, FaultRecord, FaultStore


async def active_for(store: FaultStore, fault: str, target_kind: str, key: str) -> list[FaultRecord]:
    """Unexpired records of ``fault`` aimed at this object (or at every object), oldest first."""
    return [r for r in await store.active((fault,), (target_kind,)) if r.target_id in (ANY, key)]


async def first_for(store: FaultStore, fault: str, target_kind: str, key: str) -> FaultRecord | None:
    found = await active_for(store, fault, target_kind, key)
    return found[0] if found else None


async def first_of_each(
    store: FaultStore, faults: Sequence[str], target_kind: str, key: str
) -> dict[str, FaultRecord]:
    """The oldest unexpired record of each of ``faults`` aimed at this object (or at every
    object), in one read: a call that checks several faults asks once."""
    found: dict[str, FaultRecord] = {}
    for record in await store.active(tuple(faults), (target_kind,)):
        if record.target_id in (ANY, key):
            found.setdefault(record.fault, record)
    return found


def provider_error(
    record: FaultRecord, what: str, *, default_reason: str = DEFAULT_FAILURE_REASON, terminal: bool | None = None
) -> TransientProviderError | TerminalProviderError:
    """The error of a failing call: terminal when the fault says ``terminal: true`` (or the
    caller decides with ``terminal``), transient otherwise."""
    reason = str(record.params.get("reason") or default_reason)
    message = f"simulated failure: {what} (fault {record.id})"
    is_terminal = bool(record.params.get("terminal")) if terminal is None else terminal
    return TerminalProviderError(reason, message) if is_terminal else TransientProviderError(reason, message)


async def raise_if_failing(
    store: FaultStore,
    fault: str,
    target_kind: str,
    key: str,
    what: str,
    *,
    default_reason: str = DEFAULT_FAILURE_REASON,
    terminal: bool | None = None,
) -> None:
    """Raise the error of the oldest matching ``fault`` that has an application left.

    :raises TerminalProviderError: the fault has ``terminal: true`` (or ``terminal`` is True).
    :raises TransientProviderError: otherwise.
    """
    for record in await active_for(store, fault, target_kind, key):
        if record.remaining > 0 and not await store.consume(record.id):
            continue
        raise provider_error(record, what, default_reason=default_reason, terminal=terminal)
