"""The values of the bare-metal derivation (compute.md §3): its inputs besides the host dict, the
gate record and the leases, its output, and the enum numbers and reason tokens it speaks."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from osac.api.private.v1 import bare_metal_instance_type_pb2 as pb
from osac.status.baremetal.gates import ProvisioningSteps
from osac.status.conditions.views import ConditionView, LifecycleEventView
from osac.status.workloads.shared import TenantReadiness

# -- BareMetalInstanceState -----------------------------------------------------------------------
PROVISIONING: int = pb.BARE_METAL_INSTANCE_STATE_PROVISIONING
RUNNING: int = pb.BARE_METAL_INSTANCE_STATE_RUNNING
FAILED: int = pb.BARE_METAL_INSTANCE_STATE_FAILED
DELETING: int = pb.BARE_METAL_INSTANCE_STATE_DELETING
STARTING: int = pb.BARE_METAL_INSTANCE_STATE_STARTING
STOPPING: int = pb.BARE_METAL_INSTANCE_STATE_STOPPING
STOPPED: int = pb.BARE_METAL_INSTANCE_STATE_STOPPED
DELETE_FAILED: int = pb.BARE_METAL_INSTANCE_STATE_DELETE_FAILED

# -- BareMetalInstanceConditionType, in the order a derived status lists them --------------------
PROVISIONED: int = pb.BARE_METAL_INSTANCE_CONDITION_TYPE_PROVISIONED
CONFIGURATION_APPLIED: int = pb.BARE_METAL_INSTANCE_CONDITION_TYPE_CONFIGURATION_APPLIED
READY: int = pb.BARE_METAL_INSTANCE_CONDITION_TYPE_READY
RESTART_IN_PROGRESS: int = pb.BARE_METAL_INSTANCE_CONDITION_TYPE_RESTART_IN_PROGRESS
RESTART_FAILED: int = pb.BARE_METAL_INSTANCE_CONDITION_TYPE_RESTART_FAILED
RESTART_REQUIRED: int = pb.BARE_METAL_INSTANCE_CONDITION_TYPE_RESTART_REQUIRED

# -- BareMetalInstanceRunStrategy (UNSPECIFIED and unknown numbers mean ALWAYS) --------------------
RUN_STRATEGY_ALWAYS: int = pb.BARE_METAL_INSTANCE_RUN_STRATEGY_ALWAYS
RUN_STRATEGY_HALTED: int = pb.BARE_METAL_INSTANCE_RUN_STRATEGY_HALTED

# -- READY reasons (compute.md §3.1) ------------------------------------------------------------
READY_PROVISIONING = "Provisioning"
READY_POWERED_OFF = "PoweredOff"
READY_HOST_ERROR = "HostError"
READY_UNREADABLE = "Unreadable"

# -- event reasons of §3.5 that only bare metal uses ---------------------------------------------
EVENT_HOST_ASSIGNED = "HostAssigned"
EVENT_NETWORKING_CONFIGURED = "NetworkingConfigured"
EVENT_NETWORKING_CONFIGURATION_FAILED = "NetworkingConfigurationFailed"
EVENT_PROVISIONING_COMPLETE = "ProvisioningComplete"
EVENT_IP_ADDRESS_DISCOVERED = "IPAddressDiscovered"
EVENT_PROVISIONING_FAILED = "ProvisioningFailed"

#: compute.md §3.3: a power cycle fails when the host is not READY again within this time, or
#: after this many power errors (the reconciler counts them and passes the last as the error).
DEFAULT_RESTART_TIMEOUT = timedelta(minutes=15)
POWER_ERRORS_BEFORE_FAILURE = 3


@dataclass(frozen=True)
class BareMetalNetworkAttachmentStatusView:
    interface: str
    subnet: str
    ip_address: str
    primary: bool


@dataclass(frozen=True)
class BareMetalInstanceStatusView:
    """``BareMetalInstanceStatus`` minus ``hub`` (set once by the service, never derived).

    ``host`` and ``provisioning_steps`` are private fields: the public conversion drops them."""

    state: int = 0
    conditions: tuple[ConditionView, ...] = ()
    restart_trigger: int = 0
    network_attachment_statuses: tuple[BareMetalNetworkAttachmentStatusView, ...] = ()
    state_transition_time: datetime | None = None
    host: str = ""
    provisioning_steps: ProvisioningSteps = field(default_factory=ProvisioningSteps)


@dataclass(frozen=True)
class BareMetalAttachment:
    """One ``spec.network_attachments`` entry with its interface (stored at Create) and the address
    reserved for it."""

    interface: str
    subnet: str
    primary: bool
    address: str


@dataclass(frozen=True)
class BareMetalRestart:
    """``started_at`` is set only in the reconcile that called ``reboot_host``; ``error`` is the
    last power error once the reconciler gave up (three power errors, compute.md §3.3)."""

    started_at: datetime | None = None
    error: str = ""


@dataclass(frozen=True)
class BareMetalContext:
    """Everything besides the host dict, the gate record and the leases that the derivation needs.

    ``restart_trigger`` is ``spec.restart_trigger``; ``host_name`` the host assigned by gate 1
    (empty keeps the previous one); ``configuration_error`` a terminal error re-applying the
    mutable spec; ``restart_required_reason`` the provider's reason when a change needs a reboot."""

    tenant: TenantReadiness
    readable: bool = True
    deletion_requested: bool = False
    run_strategy: int = RUN_STRATEGY_ALWAYS
    restart_trigger: int = 0
    restart: BareMetalRestart = field(default_factory=BareMetalRestart)
    restart_timeout: timedelta = DEFAULT_RESTART_TIMEOUT
    spec_hash: str = ""
    applied_spec_hash: str = ""
    configuration_error: str = ""
    restart_required_reason: str = ""
    restart_required_message: str = ""
    host_name: str = ""
    attachments: tuple[BareMetalAttachment, ...] = ()
    cleanup_leftovers: tuple[str, ...] = ()
    cleanup_gave_up: bool = False


@dataclass(frozen=True)
class BareMetalDerivation:
    """The new status, the guarded lifecycle events, and when time alone can change the result."""

    status: BareMetalInstanceStatusView
    events: tuple[LifecycleEventView, ...] = ()
    requeue_after: timedelta | None = None
