"""Deleting a ComputeInstance (compute.md §2.6; networking.md §10.1, §10.2).

Steps, in order; each pass does what it can and reports what is left:

1. the auto-provisioned external access (``auto_cleanup``): attachments, then ExternalIPs, each
   archived by its own reconciler; the instance follows them (``awaited``), so each one's change
   (its archive) queues it;
2. ``delete_virtual_machine``, repeated until VM, VMI and DataVolumes are all gone;
3. ``delete_network_attachment`` for the port of every NIC.

The reconciler's status write then drops the auto-cleanup finalizer once step 1 is done and, once
step 3 is, releases the attachment addresses and drops the controller finalizer in the same
transaction, which archives the instance.

Retries: a provider error in step 2 or 3 counts an attempt of that step and is retried after the
networking backoff (1 s doubling, cap 60 s). A terminal error, the ``cleanup_retry_limit``-th
attempt of a step, or an auto-provisioned child in DELETE_FAILED (its own reconciler spent its
budget) gives up: the derivation turns the instance DELETE_FAILED and the ``DeleteFailed`` event
names the leftovers. A DELETE_FAILED instance is left alone until Delete again or Signal moves it
back to DELETING (``services/workloads/teardown.py``); the attempts were forgotten when it gave up,
so the budget is fresh.
"""

from __future__ import annotations

from dataclasses import dataclass

from osac.api.private.v1.compute_instance_type_pb2 import ComputeInstance
from osac.controllers.compute import spec as compute_spec
from osac.controllers.networking import topology
from osac.controllers.networking.provisioning import NetworkingContext
from osac.controllers.runtime.manager import TransientError
from osac.controllers.runtime.objects import CONTROLLER_FINALIZER
from osac.controllers.runtime.retry import Attempts
from osac.controllers.runtime.waiters import Awaited
from osac.controllers.workloads.auto_cleanup import clean_auto_provisioned
from osac.providers.compute import ComputeProvider, VirtualMachineObservation
from osac.providers.interfaces import ProviderError, TerminalProviderError
from osac.services.core.catalog import Services
from osac.status.compute.views import DELETE_FAILED

VIRTUAL_MACHINE_STEP = "virtual_machine"
PORTS_STEP = "ports"


@dataclass(frozen=True)
class TeardownStep:
    """What one pass of teardown achieved.

    ``observation`` is the VM as seen after this pass's calls (None when none was made).
    ``leftovers`` names what is still there: for the ``DeleteFailed`` event once ``has_given_up``.
    ``awaited``: the auto-provisioned children (kind name, id) still there, whose changes queue
    the instance.
    ``is_waiting``: the VM is going away by itself; the reconciler looks again soon.
    ``retry``: a provider error within the budget; raised after the status write."""

    observation: VirtualMachineObservation | None = None
    is_auto_cleaned: bool = False
    is_complete: bool = False
    has_given_up: bool = False
    is_waiting: bool = False
    awaited: tuple[Awaited, ...] = ()
    leftovers: tuple[str, ...] = ()
    retry: TransientError | None = None


def is_gone(observation: VirtualMachineObservation) -> bool:
    """Teardown is confirmed only by a readable observation without VM, VMI or DataVolume."""
    return (
        observation.readable
        and observation.virtual_machine is None
        and observation.virtual_machine_instance is None
        and not observation.data_volumes
    )


class ComputeTeardown:
    """The teardown steps of every instance of one reconciler, with their attempt counts."""

    def __init__(self, services: Services, provider: ComputeProvider, networking: NetworkingContext) -> None:
        self.services = services
        self.provider = provider
        self.networking = networking
        self._attempts: Attempts[tuple[str, str]] = Attempts()

    async def advance(self, instance: ComputeInstance) -> TeardownStep:
        """Do the next teardown work for a deleting instance."""
        instance_id = instance.id
        if instance.status.state == DELETE_FAILED:
            return TeardownStep(has_given_up=True)
        cleanup = await clean_auto_provisioned(self.services, instance_id)
        if cleanup.failed:
            return self._give_up(instance_id, cleanup.failed)
        if not cleanup.done:
            return TeardownStep(awaited=cleanup.children, leftovers=cleanup.pending)
        if CONTROLLER_FINALIZER not in instance.metadata.finalizers:
            return TeardownStep(is_auto_cleaned=True, is_complete=True)  # nothing was ever provisioned
        machine = f"VirtualMachine '{instance_id}'"
        try:
            await self.provider.delete_virtual_machine(instance_id)
        except ProviderError as error:
            return self._failed(instance_id, VIRTUAL_MACHINE_STEP, f"{machine} teardown failed", error)
        observation = await self.provider.observe_virtual_machine(instance_id)
        if not is_gone(observation):
            return TeardownStep(observation=observation, is_auto_cleaned=True, is_waiting=True, leftovers=(machine,))
        self._forget(instance_id, VIRTUAL_MACHINE_STEP)
        port = ""
        try:
            async with self.services.store.read() as tx:
                desired = await compute_spec.desired_machine(tx, instance)
                fabric = await topology.fabric_for_vn(tx, self.networking.managers, desired.virtual_network)
            for spec in desired.ports:
                port = f"port {spec.host_name}/{spec.interface}"
                await fabric.delete_network_attachment(spec.host_name, spec.interface)
        except ProviderError as error:
            return self._failed(instance_id, PORTS_STEP, f"{port or 'ports'} removal failed", error, observation)
        self.forget(instance_id)
        return TeardownStep(observation=observation, is_auto_cleaned=True, is_complete=True)

    def forget(self, instance_id: str) -> None:
        self._forget(instance_id, None)

    def _failed(
        self,
        instance_id: str,
        step: str,
        what: str,
        error: ProviderError,
        observation: VirtualMachineObservation | None = None,
    ) -> TeardownStep:
        attempt = self._attempts.failed((instance_id, step))
        leftover = f"{what}: {error.message}"
        retry = self.networking.cleanup_retry
        if isinstance(error, TerminalProviderError) or retry.is_exhausted(attempt):
            return self._give_up(instance_id, (leftover,), observation, is_auto_cleaned=True)
        return TeardownStep(
            observation=observation,
            is_auto_cleaned=True,
            leftovers=(leftover,),
            retry=TransientError(f"teardown retrying (attempt {attempt}): {leftover}",
                                 delay=retry.delay(attempt)),
        )

    def _give_up(
        self,
        instance_id: str,
        leftovers: tuple[str, ...],
        observation: VirtualMachineObservation | None = None,
        *,
        is_auto_cleaned: bool = False,
    ) -> TeardownStep:
        self.forget(instance_id)
        return TeardownStep(observation=observation, is_auto_cleaned=is_auto_cleaned, has_given_up=True,
                            leftovers=leftovers)

    def _forget(self, instance_id: str, step: str | None) -> None:
        self._attempts.forget(lambda key: key[0] == instance_id and (step is None or key[1] == step))
