"""Which objects of a reconciler's kind wait for which objects of other kinds, so that a change of
an awaited object queues its waiters at once (the reconciler's ``dependents``, docs/controllers.md)
and their periodic look is only a safety net.

The index is built from the reconciler's own passes in this process (after a restart or a lease
takeover, from the initial resync): each pass says what the object waits for now, which replaces
what it said before, and an object that waits for nothing more is forgotten. A pass that names
what it waits for before reading it cannot miss a change: one committed after the read is
routed after the registration.
"""

from __future__ import annotations

from collections.abc import Iterable

#: (kind name, object id) of an awaited object.
Awaited = tuple[str, str]


class Waiters:
    """The waits of one reconciler's objects, and their reverse (awaited object -> waiters)."""

    def __init__(self) -> None:
        self._awaited: dict[str, tuple[Awaited, ...]] = {}
        self._waiters: dict[Awaited, set[str]] = {}

    def wait(self, waiter_id: str, awaited: Iterable[Awaited]) -> bool:
        """``waiter_id`` waits for ``awaited`` (entries without an id are skipped) and nothing else.

        Reports whether it names an object the waiter did not wait for before: a change of that
        object committed before this call was not routed to the waiter."""
        keys = tuple(dict.fromkeys(key for key in awaited if key[1]))
        before = self._awaited.get(waiter_id, ())
        if keys == before:
            return False
        self.forget(waiter_id)
        if keys:
            self._awaited[waiter_id] = keys
            for key in keys:
                self._waiters.setdefault(key, set()).add(waiter_id)
        return not set(keys) <= set(before)

    def forget(self, waiter_id: str) -> None:
        """``waiter_id`` waits for nothing (any more)."""
        for key in self._awaited.pop(waiter_id, ()):
            waiters = self._waiters.get(key)
            if waiters is not None:
                waiters.discard(waiter_id)
                if not waiters:
                    del self._waiters[key]

    def dependents(self, kind: str, object_id: str) -> tuple[str, ...]:
        """The waiters of the object that changed: its change is theirs to act on."""
        return tuple(self._waiters.get((kind, object_id), ()))

    def awaited_by(self, waiter_id: str) -> tuple[Awaited, ...]:
        """What ``waiter_id`` waits for (nothing once forgotten)."""
        return self._awaited.get(waiter_id, ())
