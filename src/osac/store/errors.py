"""Store errors. Each maps to one API status code in the service layer.

StoreError
 +-- Conflict            (ABORTED: the stored version is not the one the write was based on)
 +-- AlreadyExists       (ALREADY_EXISTS: a unique constraint refused the write)
 +-- RevisionExpired     (OUT_OF_RANGE: a watch resumes from a revision retention removed)
 +-- WriteContention     (ABORTED: the database broke a deadlock or a serialization conflict)
 +-- DatabaseUnavailable (UNAVAILABLE)
"""

from __future__ import annotations


class StoreError(Exception):
    """Base of the store's errors; ``str()`` is a message fit for the API caller."""


class Conflict(StoreError):
    def __init__(self, kind: str, label: str, stored: int, given: int) -> None:
        super().__init__(f"version conflict on {kind} {label}: stored version {stored}, request carries {given}")
        self.stored = stored
        self.given = given


class AlreadyExists(StoreError):
    pass


class RevisionExpired(StoreError):
    def __init__(self, revision: int, oldest: int) -> None:
        super().__init__(
            f"revision {revision} is no longer retained (oldest is {oldest}); "
            "re-list and resume from the list revision"
        )
        self.revision = revision
        self.oldest = oldest


class WriteContention(StoreError):
    """PostgreSQL rolled the transaction back to break a deadlock (40P01) or a serialization
    conflict (40001) with a concurrent one: nothing was written, and the same work succeeds when
    done again from a fresh read."""


class DatabaseUnavailable(StoreError):
    """The database cannot be reached or refuses connections now (down, restarting, out of
    connection slots, the pool exhausted): nothing was written; the same request succeeds once it
    is back."""
