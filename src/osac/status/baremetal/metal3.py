"""A typed reading of the BareMetalHost dict a bare-metal provider returns (simulator.md §3.3).

As for KubeVirt, every shape check happens here once; a dict without the documented shape yields
None, which the derivation treats as an unreadable observation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from osac.status.conditions import readers

#: ``status.provisioning.state`` of a deployed host.
PROVISIONED_STATE = "provisioned"
#: ``status.operationalStatus`` of a healthy host; ``error`` marks a failed one.
OPERATIONAL_OK = "OK"
OPERATIONAL_ERROR = "error"


@dataclass(frozen=True)
class HostReading:
    name: str
    online: bool
    provisioning_state: str
    powered_on: bool
    operational_status: str
    error_type: str
    error_message: str

    @property
    def has_error(self) -> bool:
        return bool(self.error_type) or self.operational_status == OPERATIONAL_ERROR

    @property
    def is_healthy(self) -> bool:
        return self.operational_status == OPERATIONAL_OK and not self.error_type

    @property
    def is_provisioned(self) -> bool:
        return self.provisioning_state == PROVISIONED_STATE


def read_host(value: Any) -> HostReading | None:
    """The host as a typed value, or None when malformed."""
    try:
        obj = readers.document(value)
        metadata = readers.section(obj.get("metadata"))
        spec = readers.section(obj.get("spec"))
        status = readers.section(obj.get("status"))
        provisioning = readers.section(status.get("provisioning"))
        hardware = readers.section(status.get("hardware"))
        for nic in readers.entries(hardware.get("nics")):
            readers.document(nic)
        return HostReading(
            name=readers.text(metadata.get("name")),
            online=readers.flag(spec.get("online")),
            provisioning_state=readers.text(provisioning.get("state")),
            powered_on=readers.flag(status.get("poweredOn")),
            operational_status=readers.text(status.get("operationalStatus")),
            error_type=readers.text(status.get("errorType")),
            error_message=readers.text(status.get("errorMessage")),
        )
    except readers.Malformed:
        return None
