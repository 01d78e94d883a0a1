"""All kind services of one process, wired to one store."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from osac.model import registry
from osac.services.core.behaviour import Behaviour
from osac.services.core.generic import KindService
from osac.store.objects import Store

CredentialSource = Callable[[str, str, str], Awaitable[str]]


class HostInventory(Protocol):
    """The provider's bare-metal inventory, as the service layer asks it (by HostType name)."""

    async def host_names(self, host_type: str) -> list[str]:
        """The hosts of ``host_type`` in the whole inventory, free or not, by name."""
        ...

    def configured_by(self, host_type: str) -> list[str]:
        """The provider configuration's entries that need ``host_type`` to exist."""
        ...


class CredentialUnavailable(Exception):
    """Raised by a ``CredentialSource`` whose provider cannot answer now; ``message`` says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Services:
    """Kind services by kind name; the service layer's single entry point.

    ``config`` is the process configuration document (``--config`` file: ``network_managers``,
    ``simulator``, ...); services read only what their rules need from it. ``behaviours`` maps
    every kind to its behaviour class (``osac.services.kinds.BEHAVIOURS``); a kind missing from
    it is an error here, not a silent default."""

    def __init__(
        self,
        store: Store,
        behaviours: Mapping[str, type[Behaviour]],
        config: Mapping[str, Any] | None = None,
    ) -> None:
        self.store = store
        self.config: Mapping[str, Any] = config or {}
        names = {kind.name for kind in registry.KINDS}
        missing, unknown = sorted(names - behaviours.keys()), sorted(behaviours.keys() - names)
        if missing or unknown:
            raise LookupError(f"behaviours do not match the kind registry: no behaviour for {missing}, unknown kinds {unknown}")
        self._by_kind = {
            kind.name: KindService(kind, behaviours[kind.name](kind), self) for kind in registry.KINDS
        }
        #: ``(kind name, object id, "kubeconfig" | "password") -> value``: credentials served from
        #: the workload's provider; set by the process that has providers.
        self.credential_source: CredentialSource | None = None
        #: The provider's bare-metal inventory, for warnings about node sets it can never fill
        #: and for refusing the delete of a host type it holds; set by the process that has
        #: providers.
        self.host_inventory: HostInventory | None = None

    def __getitem__(self, kind_name: str) -> KindService:
        return self._by_kind[kind_name]

    def all(self) -> list[KindService]:
        return list(self._by_kind.values())
