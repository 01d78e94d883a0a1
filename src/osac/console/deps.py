"""What the console needs from the process: handed in by the server, never looked up."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from osac.auth.dev_issuer import DevIssuer
from osac.auth.issuers import TrustedIssuer
from osac.auth.subject import Subject
from osac.clock import Clock
from osac.console.sessions import SignInStore
from osac.services.core.catalog import Services
from osac.services.streams.events import EventsService
from osac.services.streams.lifecycle_events import LifecycleEventsService

#: Checks ``authorization: Bearer <token>`` as the API does. :raises osac.auth.errors.AuthError:
Verify = Callable[[str | None], Awaitable[Subject]]

#: ``(token, *, issuer, client_id, nonce)``: the claims of a verified ID token
#: (``TokenVerifier.verify_id_token``). :raises osac.auth.errors.AuthError:
VerifyIdToken = Callable[..., Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class ConsoleDeps:
    services: Services
    events: EventsService
    lifecycle_events: LifecycleEventsService
    verify: Verify
    clock: Clock
    #: Sessions, sign-in codes and pending OIDC sign-ins, shared by the API processes.
    sign_ins: SignInStore
    #: The development issuer; None outside development mode (no development sign-in page).
    dev_issuer: DevIssuer | None = None
    #: The trusted issuers, in configuration order; those with ``console`` settings are offered
    #: on the sign-in page.
    issuers: Sequence[TrustedIssuer] = ()
    verify_id_token: VerifyIdToken | None = None
