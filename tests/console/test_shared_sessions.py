"""Console sign-ins live in the database: two API processes on one PostgreSQL serve the same
browser whichever of them each request reaches (a code issued by one is redeemed at the other,
once; a session opened at one is signed out at the other), and a restarted server keeps its
sessions, on both databases."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import create_engine, text

from osac.auth.subject import Role
from osac.console.sessions import COOKIE
from osac.store.engine import sqlite_url, sync_url
from tests.console.conftest import ConsoleServer, code_url, csrf_of, database_url, said, sign_in_dev


@pytest.fixture
def postgresql(tmp_path: Path) -> Iterator[str]:
    for url in database_url("postgresql", tmp_path):
        assert url is not None
        yield url


def _on(server: ConsoleServer, url: str) -> str:
    """``url`` as a load balancer in front of both processes would hand it to ``server``."""
    return server.url + "/" + url.split("/", 3)[3]


def test_two_processes_serve_one_browser(tmp_path: Path, postgresql: str) -> None:
    # the same data directory: the same development issuer, as processes of one deployment share theirs
    first, second = (ConsoleServer(tmp_path, postgresql, live=False) for _ in range(2))
    first.start()
    second.start()
    try:
        url = code_url(first, first.token(Role.TENANT_ADMIN, ("acme",), user="alice"))
        with httpx.Client(timeout=30, follow_redirects=False) as browser:
            assert browser.get(_on(second, url)).status_code == 303  # redeemed at the other process
            for server in (first, second):
                page = browser.get(server.url + "/")
                assert page.status_code == 200 and "alice · tenant-admin · tenants: acme" in said(page)
            again = browser.get(_on(first, url))
            assert again.status_code == 401 and "unknown, used or expired" in said(again)

            session_id = browser.cookies[COOKIE]
            csrf = csrf_of(browser.get(second.url + "/").text)  # the session's CSRF token, read at the other
            out = browser.post(first.url + "/console/sign-out", data={"csrf": csrf},
                               headers={"origin": first.url})
            assert out.status_code == 303
        with httpx.Client(timeout=30, follow_redirects=False, cookies={COOKIE: session_id}) as replay:
            assert replay.get(second.url + "/").status_code == 303  # signed out everywhere
    finally:
        second.stop()
        first.stop()


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_a_restart_keeps_the_sessions_and_the_database_keeps_no_session_id(tmp_path: Path, engine: str) -> None:
    for url in database_url(engine, tmp_path):
        server = ConsoleServer(tmp_path, url, live=False)
        server.start()
        try:
            with server.browser_client() as browser:
                assert sign_in_dev(browser, "provider-admin", "", "root").status_code == 303
                session_id = browser.cookies[COOKIE]
        finally:
            server.stop()
        engine_ = create_engine(sync_url(url or sqlite_url(tmp_path)))
        with engine_.connect() as conn:
            stored = conn.execute(text("SELECT key_hash, CAST(data AS TEXT) FROM console_sign_ins "
                                       "WHERE kind = 'session'")).all()
        engine_.dispose()
        assert [row[0] for row in stored] == [hashlib.sha256(session_id.encode()).hexdigest()]
        assert session_id not in str(stored)

        again = ConsoleServer(tmp_path, url, live=False)
        again.start()
        try:
            with httpx.Client(base_url=again.url, timeout=30, follow_redirects=False,
                              cookies={COOKIE: session_id}) as browser:
                page = browser.get("/")
                assert page.status_code == 200 and "root · provider-admin" in said(page)
        finally:
            again.stop()
