"""The values of the compute-instance derivation (compute.md §2): its inputs besides the KubeVirt
dicts, its output and the enum numbers and reason tokens it speaks.

Numbers come from the generated enums so they cannot drift from the proto; views use the proto
JSON field names so converting to and from the stored status needs no mapping table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from osac.api.private.v1 import compute_instance_type_pb2 as pb
from osac.status.conditions.views import ConditionView, LifecycleEventView
from osac.status.workloads.shared import TenantReadiness

# -- ComputeInstanceState ----------------------------------------------------------------------
STARTING: int = pb.COMPUTE_INSTANCE_STATE_STARTING
RUNNING: int = pb.COMPUTE_INSTANCE_STATE_RUNNING
FAILED: int = pb.COMPUTE_INSTANCE_STATE_FAILED
DELETING: int = pb.COMPUTE_INSTANCE_STATE_DELETING
STOPPING: int = pb.COMPUTE_INSTANCE_STATE_STOPPING
STOPPED: int = pb.COMPUTE_INSTANCE_STATE_STOPPED
PAUSED: int = pb.COMPUTE_INSTANCE_STATE_PAUSED
DELETE_FAILED: int = pb.COMPUTE_INSTANCE_STATE_DELETE_FAILED

# -- ComputeInstanceConditionType, in the order a derived status lists them -------------------
CONFIGURATION_APPLIED: int = pb.COMPUTE_INSTANCE_CONDITION_TYPE_CONFIGURATION_APPLIED
READY: int = pb.COMPUTE_INSTANCE_CONDITION_TYPE_READY
RESTART_IN_PROGRESS: int = pb.COMPUTE_INSTANCE_CONDITION_TYPE_RESTART_IN_PROGRESS
RESTART_FAILED: int = pb.COMPUTE_INSTANCE_CONDITION_TYPE_RESTART_FAILED
PROVISIONED: int = pb.COMPUTE_INSTANCE_CONDITION_TYPE_PROVISIONED
RESTART_REQUIRED: int = pb.COMPUTE_INSTANCE_CONDITION_TYPE_RESTART_REQUIRED

# -- reasons of §2.2 / §2.3 that only compute instances use ---------------------------------------
WAITING_FOR_VM = "WaitingForVM"
WAITING_FOR_VM_MESSAGE = "VirtualMachine not yet created, waiting for provisioning"
PROVISIONING_STORAGE = "ProvisioningStorage"
RECONCILIATION_FAILED = "ReconciliationFailed"
VIRTUAL_MACHINE_NOT_FOUND = "VirtualMachineNotFound"
#: READY reason when the VM reports no printable status at all.
PRINTABLE_STATUS_UNKNOWN = "Unknown"

#: ``spec.run_strategy`` values; an empty spec value means ALWAYS.
RUN_STRATEGY_ALWAYS = "Always"
RUN_STRATEGY_HALTED = "Halted"

#: compute.md §2.5 step 4.
DEFAULT_RESTART_TIMEOUT = timedelta(minutes=10)


@dataclass(frozen=True)
class ComputeNetworkAttachmentStatusView:
    subnet: str
    ip_address: str
    primary: bool


@dataclass(frozen=True)
class ComputeInstanceStatusView:
    """``ComputeInstanceStatus`` minus ``hub`` (set once by the service, never derived).

    ``state`` and condition types are plain integers so numbers written by a newer version
    survive a read-modify-write."""

    state: int = 0
    conditions: tuple[ConditionView, ...] = ()
    internal_ip_address: str = ""
    last_restarted_at: datetime | None = None
    external_ip_address: str = ""
    state_transition_time: datetime | None = None
    compute_network_attachment_statuses: tuple[ComputeNetworkAttachmentStatusView, ...] = ()


@dataclass(frozen=True)
class ComputeAttachment:
    """One ``spec.compute_network_attachments`` entry with the address reserved for it at Create;
    the i-th entry is the VM interface ``nic-<i>``."""

    subnet: str
    primary: bool
    address: str


@dataclass(frozen=True)
class ProviderFailure:
    """A terminal provider error the reconciler recorded (simulator.md §2)."""

    reason: str
    message: str


@dataclass(frozen=True)
class ComputeRestart:
    """What the reconciler knows about restarts in this reconcile.

    ``requested_at`` is ``spec.restart_requested_at``. ``started_at`` is set only in the
    reconcile that called ``restart_virtual_machine`` (the restart's start, compute.md §2.5
    step 2); later reconciles find it in ``status.last_restarted_at``. ``error`` is the text of
    a terminal error from that call, or of a failure the reconciler gave up on while the restart
    runs."""

    requested_at: datetime | None = None
    started_at: datetime | None = None
    error: str = ""


@dataclass(frozen=True)
class ComputeContext:
    """Everything besides the KubeVirt dicts that the derivation needs, read by the reconciler.

    ``readable`` False means the provider could not be read (distinct from "VM not found").
    ``applied_spec_hash`` is the hash of the last spec the provider accepted (empty: no apply yet).
    ``external_ip_address`` is written by the networking side: None keeps the previous value."""

    tenant: TenantReadiness
    readable: bool = True
    deletion_requested: bool = False
    spec_hash: str = ""
    applied_spec_hash: str = ""
    run_strategy: str = RUN_STRATEGY_ALWAYS
    terminal_failure: ProviderFailure | None = None
    restart: ComputeRestart = field(default_factory=ComputeRestart)
    restart_timeout: timedelta = DEFAULT_RESTART_TIMEOUT
    boot_disk_gib: int = 0
    additional_disks: int = 0
    attachments: tuple[ComputeAttachment, ...] = ()
    cleanup_leftovers: tuple[str, ...] = ()
    cleanup_gave_up: bool = False
    external_ip_address: str | None = None


@dataclass(frozen=True)
class ComputeDerivation:
    """The new status, the lifecycle events to write in the same transaction (already guarded
    by a diff with the previous status) and when time alone can change the result."""

    status: ComputeInstanceStatusView
    events: tuple[LifecycleEventView, ...] = ()
    requeue_after: timedelta | None = None
