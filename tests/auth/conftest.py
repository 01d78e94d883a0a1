"""Fixtures for the auth tests: a fake clock, a development issuer in a temporary data directory,
and a JWKS endpoint standing in for an identity provider."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from osac.auth import DevIssuer
from osac.clock import FakeClock

from .idp import T0, JwksServer


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(T0)


@pytest.fixture
def dev_issuer(tmp_path: Path, clock: FakeClock) -> DevIssuer:
    return DevIssuer(tmp_path / "data", clock)


@pytest.fixture
def jwks_server() -> Iterator[JwksServer]:
    with JwksServer() as server:
        yield server
