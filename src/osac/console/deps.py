"""What the console needs from the process: handed in by the server, never looked up."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from osac.auth.dev_issuer import DevIssuer
from osac.auth.subject import Subject
from osac.clock import Clock
from osac.services.core.catalog import Services
from osac.services.streams.events import EventsService
from osac.services.streams.lifecycle_events import LifecycleEventsService

#: Checks ``authorization: Bearer <token>`` as the API does. :raises osac.auth.errors.AuthError:
Verify = Callable[[str | None], Awaitable[Subject]]


@dataclass(frozen=True)
class ConsoleDeps:
    services: Services
    events: EventsService
    lifecycle_events: LifecycleEventsService
    verify: Verify
    clock: Clock
    #: The development issuer; None outside development mode (no development sign-in page).
    dev_issuer: DevIssuer | None = None
