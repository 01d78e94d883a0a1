"""Who is calling and through which API."""

from __future__ import annotations

from dataclasses import dataclass

from osac.auth.subject import Subject


@dataclass(frozen=True)
class Caller:
    """A request's caller: the subject, whether it came through the private API, and dry run."""

    subject: Subject
    private: bool
    dry_run: bool = False

    @classmethod
    def system(cls) -> Caller:
        """The service's own components: private API, provider-admin rights."""
        return cls(Subject.system(), private=True)

    @property
    def user(self) -> str:
        return self.subject.user
