"""All kind services of one process, wired to one store."""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from osac.model import registry
from osac.model.kinds import Kind
from osac.services.behaviour import Behaviour
from osac.services.generic import KindService
from osac.store.objects import Store


def behaviour_for(kind: Kind) -> Behaviour:
    """The kind's behaviour from ``osac.services.<kind>`` (its ``BEHAVIOUR`` class), else the
    default one."""
    module_name = f"osac.services.{kind.name}"
    if importlib.util.find_spec(module_name) is None:
        return Behaviour(kind)
    module = importlib.import_module(module_name)
    cls: type[Behaviour] = module.BEHAVIOUR
    return cls(kind)


CredentialSource = Callable[[str, str, str], Awaitable[str]]


class Services:
    """Kind services by kind name; the service layer's single entry point.

    ``config`` is the process configuration document (``--config`` file: ``network_managers``,
    ``simulator``, ...); services read only what their rules need from it."""

    def __init__(self, store: Store, config: Mapping[str, Any] | None = None) -> None:
        self.store = store
        self.config: Mapping[str, Any] = config or {}
        self._by_kind = {kind.name: KindService(kind, behaviour_for(kind), self) for kind in registry.KINDS}
        #: ``(kind name, object id, "kubeconfig" | "password") -> value``: credentials served from
        #: the workload's provider; set by the process that has providers.
        self.credential_source: CredentialSource | None = None

    def __getitem__(self, kind_name: str) -> KindService:
        return self._by_kind[kind_name]

    def all(self) -> list[KindService]:
        return list(self._by_kind.values())
