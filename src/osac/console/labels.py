"""Status labels: the text a state shows and its PatternFly colour (console.md "Status labels").

Green Ready/Running, blue in progress, orange degraded or stalled, red failed, grey deleting or
unknown; the text is always shown, never the colour alone. An enum number this version does not
know shows as the number, grey.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Label:
    text: str
    color: str  # PatternFly label modifier: green, blue, orange, red, grey

    @property
    def css(self) -> str:
        return "" if self.color == "grey" else f"pf-m-{self.color}"


UNSET = Label("-", "grey")

CLUSTER_STATES: dict[int, Label] = {
    1: Label("Provisioning", "blue"),
    2: Label("Ready", "green"),
    3: Label("Failed", "red"),
    4: Label("Deleting", "grey"),
    5: Label("Delete failed", "red"),
}
#: The API's enum names of the cluster states, for the state filter.
CLUSTER_STATE_NAMES: dict[str, int] = {
    "PROGRESSING": 1, "READY": 2, "FAILED": 3, "DELETING": 4, "DELETE_FAILED": 5,
}

COMPUTE_STATES: dict[int, Label] = {
    1: Label("Starting", "blue"),
    2: Label("Running", "green"),
    3: Label("Failed", "red"),
    4: Label("Deleting", "grey"),
    5: Label("Stopping", "blue"),
    6: Label("Stopped", "grey"),
    7: Label("Paused", "orange"),
    8: Label("Delete failed", "red"),
}
COMPUTE_STATE_NAMES: dict[str, int] = {
    "STARTING": 1, "RUNNING": 2, "FAILED": 3, "DELETING": 4, "STOPPING": 5, "STOPPED": 6, "PAUSED": 7,
    "DELETE_FAILED": 8,
}

BARE_METAL_STATES: dict[int, Label] = {
    1: Label("Provisioning", "blue"),
    2: Label("Running", "green"),
    3: Label("Failed", "red"),
    4: Label("Deleting", "grey"),
    5: Label("Starting", "blue"),
    6: Label("Stopping", "blue"),
    7: Label("Stopped", "grey"),
    8: Label("Delete failed", "red"),
}
BARE_METAL_STATE_NAMES: dict[str, int] = {
    "PROVISIONING": 1, "RUNNING": 2, "FAILED": 3, "DELETING": 4, "STARTING": 5, "STOPPING": 6, "STOPPED": 7,
    "DELETE_FAILED": 8,
}

SUBNET_STATES: dict[int, Label] = {
    1: Label("Pending", "blue"),
    2: Label("Ready", "green"),
    3: Label("Failed", "red"),
    4: Label("Deleting", "grey"),
    5: Label("Delete failed", "red"),
}

#: Virtual networks, security groups and NAT gateways share the subnets' states.
NETWORK_STATES = SUBNET_STATES

#: An instance type's lifecycle (``spec.state``).
INSTANCE_TYPE_STATES: dict[int, Label] = {
    1: Label("Active", "green"),
    2: Label("Deprecated", "orange"),
    3: Label("Obsolete", "grey"),
}

NODE_SET_STATES: dict[int, Label] = {
    1: Label("PROVISIONING", "blue"),
    2: Label("READY", "green"),
    3: Label("SCALING", "blue"),
    4: Label("DEGRADED", "orange"),
}


def state_label(table: dict[int, Label], number: int) -> Label:
    if not number:
        return UNSET
    return table.get(number, Label(str(number), "grey"))


def stage_label(stage_cell: str) -> Label:
    """The colour of a STAGE cell: orange when stalled, grey when unknown or none, else blue."""
    if stage_cell == "-":
        return UNSET
    if stage_cell.startswith("Stalled"):
        return Label(stage_cell, "orange")
    if stage_cell == "StageUnknown":
        return Label(stage_cell, "grey")
    return Label(stage_cell, "blue")


def health_label(health_cell: str) -> Label:
    if health_cell == "Healthy":
        return Label(health_cell, "green")
    if health_cell in ("Unknown", "-"):
        return Label(health_cell, "grey")
    if health_cell in ("Provisioning", "Progressing", "Scaling", "Deleting"):
        return Label(health_cell, "blue")
    if health_cell == "Failed":
        return Label(health_cell, "red")
    return Label(health_cell, "orange")
