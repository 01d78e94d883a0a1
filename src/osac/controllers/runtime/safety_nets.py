"""The periodic looks that back up change notices (docs/controllers.md "Safety nets").

An object waiting for another one (a networking object for its parent, an instance for its
tenant, an attachment or its auto-provisioned children, a tenant for its default networking) is
queued by that object's change the moment it happens; the look every ``wait`` (or
``tenant_recheck``, ``attachment_recheck``) only catches a change nobody announced, and a VM's
pass every ``compute_resync`` a provider notice that was lost. A deployment sets them under
``controllers.safety_nets`` (seconds); tests that prove the changes do the work set them to an
hour.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta

#: The longest a safety net may be (a day): beyond it a lost change is as good as never seen.
LONGEST = timedelta(days=1)


@dataclass(frozen=True)
class SafetyNets:
    #: How often an object waiting for another one looks again.
    wait: timedelta = timedelta(seconds=30)
    #: The longest a compute instance goes without a pass (a lost provider notice's staleness).
    compute_resync: timedelta = timedelta(seconds=30)
    #: How often a tenant that is not READY looks at its default networking again.
    tenant_recheck: timedelta = timedelta(seconds=30)
    #: How often a READY external IP attachment looks at its target again (a change of the
    #: target, its address or its deletion, queues the attachment at once).
    attachment_recheck: timedelta = timedelta(minutes=5)

    @classmethod
    def from_section(cls, section: object) -> SafetyNets:
        """The ``controllers.safety_nets`` section (None: unset): ``<name>`` in seconds, for each
        field of the class.

        :raises ValueError: not a mapping, an unknown name, or not a number of seconds above 0
            and at most a day.
        """
        section = section or {}
        if not isinstance(section, Mapping):
            raise ValueError(f"controllers.safety_nets: {section!r} is not a mapping (e.g. {{wait: 30}})")
        names = cls.__dataclass_fields__.keys()
        unknown = sorted(set(section) - set(names))
        if unknown:
            raise ValueError(f"controllers.safety_nets.{unknown[0]}: not a safety net; use one of {', '.join(names)}")
        values: dict[str, timedelta] = {}
        for name, value in section.items():
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= LONGEST.total_seconds():
                raise ValueError(f"controllers.safety_nets.{name}: {value!r} is not a number of seconds above 0 "
                                 f"and at most {int(LONGEST.total_seconds())}")
            values[name] = timedelta(seconds=value)
        return cls(**values)
