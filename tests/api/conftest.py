"""The generic API tests run against a catalogue whose networking prerequisites are READY.

No reconciler runs in these tests, so the bootstrap NetworkClass and pool would stay PENDING and
every VirtualNetwork and Tenant Create would fail its gate (networking.md §4). The class is made
READY *without* tenant defaults: these tests are about the generic API, and a Tenant Create here
keeps creating only the Tenant (default networking is tested in ``tests/networking``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from osac.auth.subject import Role
from tests.support.networking import prepare_catalogue
from tests.support.prepared import Prepare
from tests.support.server import ServerHandle, running_server


async def _catalogue_without_defaults(server: ServerHandle) -> None:
    async with server.rest(server.token(Role.PROVIDER_ADMIN, user="root")) as admin:
        await prepare_catalogue(admin, defaults=False)


@pytest.fixture
async def server(prepared: Prepare, tmp_path: Path) -> AsyncIterator[ServerHandle]:
    url, _ = await prepared("catalogue-without-defaults", _catalogue_without_defaults)
    async with running_server(tmp_path, url, controllers=False) as handle:
        yield handle
