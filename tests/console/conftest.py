"""Console tests: one live server per module (reconcilers and the simulator at instant speed) on
SQLite or PostgreSQL, in a background thread, driven over HTTP and in Debian's chromium."""

from __future__ import annotations

import asyncio
import html
import os
import re
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from playwright.sync_api import Browser, sync_playwright

from osac.auth.subject import Role
from osac.clock import Clock, SystemClock
from osac.server.app import Application
from osac.server.settings import Settings
from tests.conftest import PG_ADMIN_DSN, PG_AVAILABLE
from tests.support.onboarding import INSTANT

START_TIMEOUT = 60
CHROMIUM = "/usr/bin/chromium"
PUBLIC = "/api/fulfillment/v1"
PRIVATE = "/api/private/v1"


class ConsoleServer:
    """An ``Application`` on its own event loop in a daemon thread."""

    def __init__(self, data_dir: Path, db_url: str | None, *, live: bool, config: dict[str, Any] | None = None,
                 clock: Clock | None = None) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="osac-console-server", daemon=True)
        self.application = Application(Settings(
            data_dir=data_dir, db_url=db_url, grpc_address="127.0.0.1:0", http_address="127.0.0.1:0",
            run_controllers=live, config=config or INSTANT, clock=clock or SystemClock(),
        ))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.application.http_port}"

    @property
    def grpc_address(self) -> str:
        return f"127.0.0.1:{self.application.grpc_port}"

    def start(self) -> None:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self.application.start(), self.loop).result(START_TIMEOUT)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.application.stop(), self.loop).result(START_TIMEOUT)
        asyncio.run_coroutine_threadsafe(_cancel_the_rest(), self.loop).result(START_TIMEOUT)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(START_TIMEOUT)
        self.loop.close()

    def token(self, role: Role, tenants: tuple[str, ...] = (), user: str = "user") -> str:
        issuer = self.application.dev_issuer
        assert issuer is not None
        return issuer.mint(user, list(tenants), role)

    def api(self, token: str) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers={"authorization": f"Bearer {token}"}, timeout=30)

    def browser_client(self) -> httpx.Client:
        """A cookie-keeping client that does not follow redirects (a browser without JavaScript)."""
        return httpx.Client(base_url=self.url, timeout=30, follow_redirects=False)


async def _cancel_the_rest() -> None:
    """End what outlived the server (a browser's event stream still open) and its generators, so
    nothing is left for the garbage collector of a closed loop."""
    current = asyncio.current_task()
    rest = [task for task in asyncio.all_tasks() if task is not current]
    for task in rest:
        task.cancel()
    await asyncio.gather(*rest, return_exceptions=True)
    await asyncio.get_running_loop().shutdown_asyncgens()


def database_url(engine: str, tmp: Path) -> Iterator[str | None]:
    """SQLite in the data dir (None), or a fresh PostgreSQL database dropped afterwards."""
    if engine == "sqlite":
        yield None
        return
    if not PG_AVAILABLE:
        if os.environ.get("CI"):
            raise RuntimeError(f"PostgreSQL is required in CI; none answers at {PG_ADMIN_DSN}")
        pytest.skip("PostgreSQL not available")
    name = f"osac_console_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_ADMIN_DSN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN_DSN.rsplit("/", 1)[0]
    try:
        yield f"{base}/{name}"
    finally:
        with psycopg.connect(PG_ADMIN_DSN, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def sign_in_dev(client: httpx.Client, role: str, tenant: str, user: str) -> httpx.Response:
    """The development sign-in page as a browser submits it; the redirect response."""
    form_page = client.get("/console/dev-sign-in")
    assert form_page.status_code == 200, form_page.text
    csrf = re.search(r'name="csrf" value="([^"]+)"', form_page.text)
    assert csrf is not None
    return client.post("/console/dev-sign-in", data={"csrf": csrf.group(1), "role": role, "tenant": tenant,
                                                     "user": user, "next": "/"})


#: Where ``osac console`` trades the CLI's token for a one-time sign-in code.
CODES = "/console/sign-in/codes"


def said(response: httpx.Response) -> str:
    """The page's text as a reader sees it (HTML entities decoded)."""
    return html.unescape(response.text)


def code_url(server: ConsoleServer, token: str) -> str:
    """A one-time sign-in URL for ``token``, as ``osac console`` gets it."""
    response = httpx.post(server.url + CODES, headers={"authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.text
    return str(response.json()["url"])


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found is not None, "no CSRF token on the page"
    return found.group(1)


def chromium_available() -> bool:
    return Path(CHROMIUM).exists()


#: The mark of a module driving chromium: skipped locally without it, failing in CI.
NEEDS_CHROMIUM = pytest.mark.skipif(not chromium_available() and not os.environ.get("CI"),
                                    reason=f"no chromium at {CHROMIUM} (apt-get install -y chromium)")


@pytest.fixture(scope="module")
def chromium() -> Iterator[Browser]:
    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def browser(chromium: Browser) -> Iterator[Browser]:
    """The module's chromium; every context a test opened is closed after it (their event
    streams with them)."""
    yield chromium
    for context in chromium.contexts:
        context.close()
