"""Console sign-in at a trusted OpenID Connect issuer (authorization code + PKCE) over plain HTTP:
a fake issuer (``fake_oidc.py``) on a local port, the real console app of a server on SQLite and on
PostgreSQL, one shared fake clock. A cookie-keeping client that does not follow redirects plays the
browser, so every hop (console → issuer → console) is checked."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest

from osac.clock import FakeClock
from osac.console.oidc import code_challenge
from osac.console.sessions import COOKIE as SESSION_COOKIE
from tests.console.conftest import ConsoleServer, database_url, said
from tests.console.fake_oidc import FakeIssuer, Realm, User
from tests.support.onboarding import INSTANT

CLOCK = FakeClock(datetime(2026, 3, 4, 10, 0, tzinfo=UTC))
MAIN, PARTNERS, BROKEN, OFFLINE = 0, 2, 3, 4  # their places in auth.issuers (1 is an issuer without console sign-in)
AGAIN = "start again from the sign-in page"
OFFLINE_TOKEN_ENDPOINT = "http://127.0.0.1:9/token"  # the discard port: nothing listens


@pytest.fixture(scope="module")
def idp() -> Iterator[FakeIssuer]:
    issuer = FakeIssuer(CLOCK, [Realm("osac", "osac-console"), Realm("machines", "unused"),
                                Realm("partners", "osac-partners", client_secret="s3cr/t:1"),
                                Realm("broken", "osac-console"), Realm("offline", "osac-console")])
    issuer.start()
    try:
        yield issuer
    finally:
        issuer.stop()


def auth_config(idp: FakeIssuer) -> dict[str, object]:
    def entry(realm: str, **extra: object) -> dict[str, object]:
        return {"issuer": idp.issuer(realm), "jwks_url": f"{idp.issuer(realm)}/certs", **extra}

    partners = idp.issuer("partners")
    return {"issuers": [
        entry("osac", console={"client_id": "osac-console", "title": "Fake SSO", "scopes": ["openid", "profile"]}),
        entry("machines"),
        entry("partners", console={"client_id": "osac-partners", "title": "Partner SSO", "client_secret": "s3cr/t:1",
                                   "authorization_endpoint": f"{partners}/authorize",
                                   "token_endpoint": f"{partners}/token"}),
        entry("broken", console={"client_id": "osac-console", "title": "Misconfigured SSO"}),
        entry("offline", console={"client_id": "osac-console", "title": "Offline SSO",
                                  "authorization_endpoint": f"{idp.issuer('offline')}/authorize",
                                  "token_endpoint": OFFLINE_TOKEN_ENDPOINT}),
    ]}


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
           idp: FakeIssuer) -> Iterator[ConsoleServer]:
    data_dir = tmp_path_factory.mktemp("console-oidc")
    for url in database_url(request.param, data_dir):
        running = ConsoleServer(data_dir, url, live=False, clock=CLOCK,
                                config={**INSTANT, "auth": auth_config(idp)})
        running.start()
        try:
            yield running
        finally:
            running.stop()


@pytest.fixture()
def fake(idp: FakeIssuer) -> Iterator[FakeIssuer]:
    idp.reset()
    yield idp
    idp.reset()


def start(browser: httpx.Client, number: int = MAIN, next_path: str = "/") -> str:
    """The console's redirect to the issuer's authorization endpoint."""
    response = browser.get(f"/console/oidc/{number}/start", params={"next": next_path})
    assert response.status_code == 303, said(response)
    return response.headers["location"]


def authorize(browser: httpx.Client, location: str) -> str:
    """The issuer auto-approves: its redirect back to the console's callback."""
    response = browser.get(location)
    assert response.status_code == 302, response.text
    return response.headers["location"]


def sign_in(browser: httpx.Client, number: int = MAIN, next_path: str = "/") -> httpx.Response:
    return browser.get(authorize(browser, start(browser, number, next_path)))


def has_session(browser: httpx.Client) -> bool:
    return browser.get("/").status_code == 200


def query(url: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(url).query).items()}


def test_the_sign_in_page_offers_each_configured_issuer(served: ConsoleServer) -> None:
    with served.browser_client() as browser:
        page = browser.get("/console/sign-in", params={"next": "/clusters"})
        assert page.status_code == 200
        offers = re.findall(r'href="(/console/oidc/\d+/start\?next=[^"]*)">Sign in with ([^<]+)<', page.text)
        assert offers == [("/console/oidc/0/start?next=/clusters", "Fake SSO"),
                          ("/console/oidc/2/start?next=/clusters", "Partner SSO"),
                          ("/console/oidc/3/start?next=/clusters", "Misconfigured SSO"),
                          ("/console/oidc/4/start?next=/clusters", "Offline SSO")]
        unknown = browser.get("/console/oidc/1/start")
        assert unknown.status_code == 404
        assert "no sign-in is configured for issuer number 1 (auth.issuers[1].console)" in said(unknown)
        assert browser.get("/console/oidc/first/start").status_code == 404


def test_sign_in_lands_on_the_next_page_as_the_issuers_user(served: ConsoleServer, fake: FakeIssuer) -> None:
    realm = fake.realms["osac"]
    realm.user = User("4f1c-sub", "alice", ("acme",), ("tenant-admin",))
    with served.browser_client() as browser:
        location = start(browser, MAIN, "/clusters?state=READY")
        pre_session = browser.cookies.jar
        cookie = next(c for c in pre_session if c.name == "osac_console_oidc")
        assert cookie.path == "/console/oidc" and cookie.has_nonstandard_attr("HttpOnly")
        assert cookie.get_nonstandard_attr("SameSite", "").lower() == "lax"
        assert location.startswith(f"{fake.issuer('osac')}/authorize?")  # from the discovery document
        asked = query(location)
        assert asked["response_type"] == "code" and asked["client_id"] == "osac-console"
        assert asked["redirect_uri"] == f"{served.url}/console/oidc/callback"
        assert asked["scope"] == "openid profile" and asked["code_challenge_method"] == "S256"
        assert len(asked["code_challenge"]) == 43 and asked["state"] and asked["nonce"]

        landing = browser.get(authorize(browser, location))
        assert landing.status_code == 200, said(landing)
        assert '<meta http-equiv="refresh" content="0; url=/clusters?state=READY">' in landing.text
        session_cookie = landing.headers["set-cookie"]
        assert f"{SESSION_COOKIE}=" in session_cookie and "HttpOnly" in session_cookie
        assert "SameSite=strict" in session_cookie
        page = browser.get("/clusters", params={"state": "READY"})
        assert page.status_code == 200
        assert "alice · tenant-admin · tenants: acme" in said(page)

    exchange = realm.token_requests[-1]  # the verifier whose challenge the authorization carried
    assert code_challenge(exchange["code_verifier"]) == asked["code_challenge"]
    assert exchange["client_id"] == "osac-console" and exchange["authorization"] == ""
    with served.api(realm.issued_access_tokens[-1]) as api:  # the session's token is one the API accepts
        assert api.get("/api/fulfillment/v1/clusters").status_code == 200


def test_a_confidential_client_with_configured_endpoints(served: ConsoleServer, fake: FakeIssuer) -> None:
    realm = fake.realms["partners"]
    realm.user = User("root-sub", "root", (), ("cloud-provider-admin",))
    with served.browser_client() as browser:
        landing = sign_in(browser, PARTNERS)
        assert landing.status_code == 200, said(landing)
        page = browser.get("/")
        assert "root · provider-admin · tenants: -" in said(page) and "/admin/stalled" in page.text
    exchange = realm.token_requests[-1]
    assert exchange["authorization"].startswith("Basic ") and "client_id" not in exchange


def test_access_denied_at_the_issuer_opens_no_session(served: ConsoleServer, fake: FakeIssuer) -> None:
    fake.realms["osac"].deny = True
    with served.browser_client() as browser:
        refused = sign_in(browser)
        assert refused.status_code == 401
        assert (f"Fake SSO did not sign you in: access_denied (The user denied the request); {AGAIN}"
                in said(refused))
        assert SESSION_COOKIE not in refused.headers.get("set-cookie", "")
        assert not has_session(browser)
    assert fake.realms["osac"].token_requests == []


def test_a_replayed_state_is_refused(served: ConsoleServer, fake: FakeIssuer) -> None:
    with served.browser_client() as browser:
        callback = authorize(browser, start(browser))
        binding = browser.cookies["osac_console_oidc"]
        assert browser.get(callback).status_code == 200
    with served.browser_client() as replay:
        replay.cookies.set("osac_console_oidc", binding, path="/console/oidc")
        refused = replay.get(callback)
        assert refused.status_code == 400
        assert "this sign-in is unknown, already used or expired (a sign-in is valid once, for 10 minutes)" in said(
            refused)
        assert not has_session(replay)
    assert len(fake.realms["osac"].token_requests) == 1  # the replay never reached the issuer


def test_a_sign_in_expires_after_ten_minutes(served: ConsoleServer, fake: FakeIssuer) -> None:
    with served.browser_client() as browser:
        callback = authorize(browser, start(browser))
        CLOCK.advance(timedelta(minutes=10))
        refused = browser.get(callback)
        assert refused.status_code == 400 and "unknown, already used or expired" in said(refused)
        assert not has_session(browser)


def test_a_callback_in_another_browser_is_refused(served: ConsoleServer, fake: FakeIssuer) -> None:
    with served.browser_client() as attacker:  # login CSRF: the attacker's own sign-in, finished by the victim
        callback = authorize(attacker, start(attacker))
    with served.browser_client() as victim:
        refused = victim.get(callback)
        assert refused.status_code == 400
        assert f"this sign-in was started in another browser (its sign-in cookie is missing or different); {AGAIN}" \
            in said(refused)
        assert not has_session(victim)


def test_a_code_of_another_sign_in_fails_the_pkce_check(served: ConsoleServer, fake: FakeIssuer) -> None:
    with served.browser_client() as browser:
        first = authorize(browser, start(browser))
        second = authorize(browser, start(browser))
        injected = f"{served.url}/console/oidc/callback?" + urlencode(
            {"code": query(first)["code"], "state": query(second)["state"]})  # exchanged with the second's verifier
        refused = browser.get(injected)
        assert refused.status_code == 401
        assert (f"the token endpoint of '{fake.issuer('osac')}' refused the authorization code: invalid_grant "
                f"(PKCE verification failed: code_verifier does not match the code_challenge); {AGAIN}"
                in said(refused))
        assert not has_session(browser)


@pytest.mark.parametrize("next_path", ["https://evil.example/", "//evil.example/x", "/\\evil.example",
                                       "/\t/evil.example", "clusters"],
                         ids=["absolute", "scheme-relative", "backslash", "tab", "relative"])
def test_a_next_page_elsewhere_is_refused(served: ConsoleServer, fake: FakeIssuer, next_path: str) -> None:
    with served.browser_client() as browser:
        refused = browser.get(f"/console/oidc/{MAIN}/start", params={"next": next_path})
        assert refused.status_code == 400
        assert f"next: '{next_path}' is not a page of this console (only paths such as /clusters are accepted)" \
            in said(refused)
        assert "location" not in refused.headers and not has_session(browser)
    assert fake.realms["osac"].authorize_requests == []


def rogue(fake: FakeIssuer) -> str:
    return fake.issuer("rogue")


@pytest.mark.parametrize(
    ("knob", "value", "message"),
    [
        pytest.param("access_token_issuer", rogue,
                     lambda f: f"the access token of '{f.issuer('osac')}' is refused by the API: token issuer "
                               f"'{f.issuer('rogue')}' is not trusted", id="access-token-of-an-untrusted-issuer"),
        pytest.param("access_token_issuer", lambda f: f.issuer("partners"),
                     lambda f: f"the access token was issued by '{f.issuer('partners')}', not by "
                               f"'{f.issuer('osac')}' where this sign-in took place", id="access-token-of-another"),
        pytest.param("id_token_issuer", rogue,
                     lambda f: f"the ID token of '{f.issuer('osac')}' is refused: ID token issuer "
                               f"'{f.issuer('rogue')}' is not '{f.issuer('osac')}'", id="id-token-of-another-issuer"),
        pytest.param("id_token_nonce", lambda f: "replayed-nonce",
                     lambda f: "ID token nonce does not match the one this sign-in sent", id="wrong-nonce"),
        pytest.param("id_token_audience", lambda f: "another-app",
                     lambda f: "ID token audience ['another-app'] does not include this console's client id "
                               "'osac-console'", id="id-token-for-another-client"),
        pytest.param("access_token_sub", lambda f: "someone-else",
                     lambda f: "the access token's subject 'someone-else' is not the ID token's 'u-1'",
                     id="tokens-of-two-users"),
    ],
)
def test_tokens_the_verifier_refuses_open_no_session(served: ConsoleServer, fake: FakeIssuer, knob: str,
                                                     value: object, message: object) -> None:
    assert callable(value) and callable(message)
    setattr(fake.realms["osac"], knob, value(fake))
    with served.browser_client() as browser:
        refused = sign_in(browser)
        assert refused.status_code == 401
        assert message(fake) in said(refused)
        assert SESSION_COOKIE not in refused.headers.get("set-cookie", "")
        assert not has_session(browser)


def test_an_unreachable_token_endpoint_is_named(served: ConsoleServer, fake: FakeIssuer) -> None:
    with served.browser_client() as browser:
        refused = sign_in(browser, OFFLINE)
        assert refused.status_code == 503
        assert (f"cannot reach the token endpoint {OFFLINE_TOKEN_ENDPOINT} of '{fake.issuer('offline')}' "
                "(ConnectError" in said(refused)) and "try again later" in said(refused)
        assert not has_session(browser)


def test_an_unusable_discovery_document_is_named(served: ConsoleServer, fake: FakeIssuer) -> None:
    broken = fake.realms["broken"]
    broken.discovery_issuer = "https://elsewhere.example"
    url = f"{fake.issuer('broken')}/.well-known/openid-configuration"
    with served.browser_client() as browser:
        refused = browser.get(f"/console/oidc/{BROKEN}/start")
        assert refused.status_code == 503
        assert (f"cannot use the OpenID configuration of '{fake.issuer('broken')}' at {url}: it names the issuer "
                "'https://elsewhere.example'; try again later" in said(refused))
        broken.discovery_status = 503
        refused = browser.get(f"/console/oidc/{BROKEN}/start")
        assert refused.status_code == 503 and f"at {url}: HTTP 503; try again later" in said(refused)
    assert broken.authorize_requests == []


def test_the_fake_issuer_checks_the_verifier_as_rfc_7636_says(fake: FakeIssuer) -> None:
    """The issuer the tests trust refuses a verifier that does not hash to the challenge."""
    realm, base = fake.realms["osac"], fake.issuer("osac")
    verifier = "v" * 43
    with httpx.Client(follow_redirects=False) as client:
        def code() -> str:
            back = client.get(f"{base}/authorize", params={
                "response_type": "code", "client_id": realm.client_id, "redirect_uri": "http://x/cb",
                "scope": "openid", "state": "s", "nonce": "n", "code_challenge": code_challenge(verifier),
                "code_challenge_method": "S256"})
            return query(back.headers["location"])["code"]

        def exchange(code_value: str, code_verifier: str) -> httpx.Response:
            return client.post(f"{base}/token", data={"grant_type": "authorization_code", "code": code_value,
                                                      "redirect_uri": "http://x/cb", "client_id": realm.client_id,
                                                      "code_verifier": code_verifier})

        assert exchange(code(), "w" * 43).json()["error"] == "invalid_grant"
        assert exchange(code(), "short").json()["error_description"] == "code_verifier missing or malformed"
        granted = exchange(code(), verifier)
        assert granted.status_code == 200 and granted.json()["token_type"] == "Bearer"
