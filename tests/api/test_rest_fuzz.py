"""Schemathesis against the REST gateway: every operation of the published ``/openapi.json``.

The real HTTP application runs in-process (``tests/support/asgi_server.py``) on a database with
a READY catalogue and the tenant ``acme``; the document is the one the application serves. Each
operation is called as a provider admin and as a tenant admin of ``acme`` with the cases of
schemathesis' examples and fuzzing phases (and its coverage phase in the larger run), and every
answer is checked: no server error, the status code, content type and body documented, input
the document forbids refused, input it allows never refused for a bound or a JSON type it
states. The budget is ``EXAMPLES`` fuzzed cases per operation with a fixed seed, so a run is
reproducible; ``OSAC_REST_FUZZ_EXAMPLES`` and ``OSAC_REST_FUZZ_COVERAGE`` raise it
(docs/testing.md). The cases the fuzzing found are pinned at the end of the module.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from schemathesis import engine
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import events
from schemathesis.python import asgi

from osac.auth.subject import Role
from tests.support.asgi_server import HeadOfStreams, LifespanServer
from tests.support.networking import prepare_catalogue
from tests.support.prepared import copy_sqlite
from tests.support.server import ServerHandle

EXAMPLES = int(os.environ.get("OSAC_REST_FUZZ_EXAMPLES", "1"))
SEED = int(os.environ.get("OSAC_REST_FUZZ_SEED", "20261202"))
#: The coverage phase (boundary values and every kind of invalid value of every parameter, some
#: hundred cases per operation) takes minutes: it runs in the larger run (docs/testing.md).
COVERAGE = os.environ.get("OSAC_REST_FUZZ_COVERAGE", "") == "1"
CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_schema_conformance",
    "negative_data_rejection",
    "documented_bounds_agree",
)
#: Every operation the document names (a run that tests fewer has lost some).
OPERATIONS = 197
#: The answers of the bounds and JSON checks the document states (limits.md): a request valid by
#: the document refused with one of them means the document and the server disagree.
DOCUMENTED_REFUSALS = re.compile(
    r"unknown field; the accepted fields are|: expected |is not one of [A-Z0-9_]+(, [A-Z0-9_]+)*$|are accepted, got|"
    r"control character|unpaired surrogate|is out of range; use an integer|is not an integer; use|"
    r"is not a boolean; use|^request body|^x-dry-run:"
)


@schemathesis.check
def documented_bounds_agree(ctx: Any, response: Any, case: Any) -> bool | None:
    """A request valid by the document is not refused for a bound or a JSON type the document
    states. (The built-in positive_data_acceptance also fails every refusal of the API's
    semantics - an unknown reference, a CIDR outside its network - which no schema states.)"""
    if case.meta is None or not case.meta.generation.mode.is_positive or response.status_code != 400:
        return None
    message = str(response.json().get("message", ""))
    if DOCUMENTED_REFUSALS.search(message):
        raise AssertionError(f"a request valid by the document was refused: {message[:300]}")
    return None


ROLES = {
    "provider-admin": (Role.PROVIDER_ADMIN, ()),
    "tenant-admin": (Role.TENANT_ADMIN, ("acme",)),
}


async def _catalogue_and_tenant(server: ServerHandle) -> None:
    async with server.rest(server.token(Role.PROVIDER_ADMIN, user="root")) as admin:
        await prepare_catalogue(admin, defaults=False)
        response = await admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": "acme"}})
        assert response.status_code == 200, response.text


@contextmanager
def _started(data_dir: Path, template: Path) -> Iterator[HeadOfStreams]:
    """A server on a copy of ``template``, started; every started one is stopped at the end (the
    engine may stop them too at the end of its run, and the next client starts them again)."""
    server = LifespanServer(data_dir, copy_sqlite(template, data_dir), setup=_catalogue_and_tenant)
    app = HeadOfStreams(server)
    try:
        with asgi.get_client(app) as client:  # runs the lifespan: the server starts
            assert client.get("/healthz").status_code == 200
        yield app
    finally:
        asgi.shutdown_lifespans()


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory, sqlite_migrated_template: Path) -> Iterator[HeadOfStreams]:
    """The server of the pinned cases, which no fuzzing touches."""
    with _started(tmp_path_factory.mktemp("rest-pinned"), sqlite_migrated_template) as app:
        yield app


@pytest.fixture
def fuzzed(tmp_path: Path, sqlite_migrated_template: Path) -> Iterator[HeadOfStreams]:
    """A server of one fuzzing run alone (the run deletes and changes what it finds)."""
    with _started(tmp_path, sqlite_migrated_template) as app:
        yield app


def _config(token: str) -> SchemathesisConfig:
    return SchemathesisConfig.from_dict({
        "seed": SEED,
        "workers": 1,
        "generation": {"max-examples": EXAMPLES, "deterministic": True, "database": "none"},
        "auth": {"openapi": {"bearer": {"bearer": token}}},
        "phases": {"stateful": {"enabled": False}, "coverage": {"enabled": COVERAGE}},
        # positive_data_acceptance is replaced by documented_bounds_agree (its docstring says why).
        "checks": {"positive_data_acceptance": {"enabled": False}, **{name: {"enabled": True} for name in CHECKS}},
    })


@dataclass
class Run:
    """What one engine run did: cases sent per operation, and every failed check and error."""

    cases: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)


def _fuzz(app: HeadOfStreams, token: str) -> Run:
    schema = schemathesis.openapi.from_asgi("/openapi.json", app, config=_config(token))
    run = Run()
    for event in engine.from_schema(schema).execute():
        if isinstance(event, events.ScenarioFinished):
            recorder = event.recorder
            run.cases[recorder.label] = run.cases.get(recorder.label, 0) + len(recorder.cases)
            for checks in recorder.checks.values():
                for check in checks:
                    if check.failure_info is not None:
                        failure = check.failure_info.failure
                        run.failures.append(
                            f"{recorder.label} [{event.phase.value}] {check.name}: {failure.title}\n"
                            f"  {_shortened(failure.message)}\n  {_shortened(check.failure_info.code_sample)}"
                        )
        elif isinstance(event, events.NonFatalError):
            run.failures.append(f"{event.label}: error {event.info.format()}")
        elif isinstance(event, events.FatalError):
            raise event.exception
    return run


def _shortened(text: str, length: int = 400) -> str:
    return text if len(text) <= length else f"{text[:length]}... ({len(text)} characters)"


@pytest.mark.parametrize("role", sorted(ROLES))
def test_every_rest_operation_conforms_to_the_openapi_document(fuzzed: HeadOfStreams, role: str) -> None:
    role_value, tenants = ROLES[role]
    token = fuzzed.app.handle.token(role_value, tenants, user="fuzz")
    run = _fuzz(fuzzed, token)
    assert len(run.cases) == OPERATIONS, sorted(run.cases)
    assert run.failures == [], "\n".join(sorted(set(run.failures)))
    print(f"{role}: {len(run.cases)} operations, {sum(run.cases.values())} cases")


# -- what the fuzzing found, pinned ------------------------------------------------------------


def _client(api: HeadOfStreams, role: str = "provider-admin") -> asgi.ASGIClient:
    role_value, tenants = ROLES[role]
    client = asgi.get_client(api)
    client.headers["authorization"] = f"Bearer {api.app.handle.token(role_value, tenants, user='fuzz')}"
    return client


@pytest.mark.parametrize("literal", ["0" * 16_384, "9" * 5000, "1" * 4301])
def test_a_filter_with_an_integer_literal_of_thousands_of_digits_is_refused_or_read(api: HeadOfStreams,
                                                                                    literal: str) -> None:
    with _client(api) as client:
        response = client.get("/api/fulfillment/v1/tenants", params={"filter": literal})
    assert response.status_code == 400
    message = response.json()["message"]
    if literal.strip("0"):
        assert message == f"filter: integer literal {literal[:40]}... ({len(literal)} characters) is out of the int64 range"
    else:
        assert message == "filter: the filter must be a boolean expression, got int 0"


@pytest.mark.parametrize("path", ["/api/fulfillment/v1/capabilities", "/api/events/v1/events",
                                  "/api/private/v1/simulator/get_clock"])
@pytest.mark.parametrize("method", ["TRACE", "QUERY"])
def test_a_method_not_served_is_405_with_allow(api: HeadOfStreams, path: str, method: str) -> None:
    with _client(api) as client:
        response = client.request(method, path)
    assert response.status_code == 405
    served = "POST" if path.endswith("get_clock") else "GET, HEAD"
    assert response.headers["allow"] == ", ".join(sorted([*served.split(", "), "OPTIONS"]))


def test_a_dry_run_header_that_is_not_a_boolean_is_refused_and_nothing_is_created(api: HeadOfStreams) -> None:
    with _client(api) as client:
        before = client.get("/api/private/v1/host_types").json()["total"]
        for value in ("{}", "yes", "1"):
            response = client.post("/api/private/v1/host_types", headers={"X-Dry-Run": value},
                                   json={"metadata": {"name": "dry"}})
            assert (response.status_code, response.json()["message"]) == (
                400, f"x-dry-run: '{value}' is not a boolean; use true or false")
        checked = client.post("/api/private/v1/host_types", headers={"X-Dry-Run": "TRUE"},
                              json={"metadata": {"name": "dry"}})
        assert checked.status_code == 200
        assert client.get("/api/private/v1/host_types").json()["total"] == before


def test_the_document_states_media_types_bodies_errors_and_formats(api: HeadOfStreams) -> None:
    with _client(api) as client:
        document = client.get("/openapi.json").json()
    paths, schemas = document["paths"], document["components"]["schemas"]
    kubeconfig = paths["/api/fulfillment/v1/clusters/{id}/kubeconfig"]["get"]["responses"]["200"]["content"]
    password = paths["/api/fulfillment/v1/clusters/{id}/password"]["get"]["responses"]["200"]["content"]
    assert (kubeconfig, password) == ({"application/yaml": {"schema": {"type": "string"}}},
                                      {"text/plain": {"schema": {"type": "string"}}})
    advance = paths["/api/private/v1/simulator/advance_clock"]["post"]["requestBody"]
    assert advance["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/osac.private.v1.SimulatorAdvanceClockRequest", "type": "object"}
    assert paths["/api/fulfillment/v1/tenants"]["post"]["requestBody"]["required"] is False
    for watch in ("/api/events/v1/events", "/api/private/v1/events/watch"):
        assert "default" in paths[watch]["get"]["responses"]
        parameters = {p["name"]: p["schema"] for p in paths[watch]["get"]["parameters"]}
        assert parameters["filter"]["pattern"] == "^[^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f]*$"
    patch = {p["name"]: p["schema"] for p in paths["/api/private/v1/external_ip_pools/{id}"]["patch"]["parameters"]}
    assert patch["update_mask"]["pattern"] == "^[^\\x00-\\x1f\\x7f]*$"
    spec = schemas["osac.public.v1.BareMetalInstanceSpec"]["properties"]
    assert spec["restart_trigger"]["oneOf"][0] == {"type": "string", "pattern": "^-?[0-9]{1,18}$"}
    assert spec["user_data"]["pattern"] == "^[^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f]*$"
    assert spec["host_type"]["pattern"] == "^[^\\x00-\\x1f\\x7f]*$"


def test_an_empty_create_body_is_the_empty_object_as_documented(api: HeadOfStreams) -> None:
    with _client(api) as client:
        empty = client.post("/api/private/v1/host_types", headers={"X-Dry-Run": "true"})
        braces = client.post("/api/private/v1/host_types", headers={"X-Dry-Run": "true"}, json={})
    assert (empty.status_code, braces.status_code) == (200, 200)
    answers = [empty.json(), braces.json()]
    for answer in answers:
        del answer["metadata"]["creation_timestamp"]
    assert answers[0] == answers[1] == {"metadata": {"creator": "fuzz", "tenant": "shared"}}



def test_a_null_field_is_documented_and_read_as_its_default_but_not_a_null_item(api: HeadOfStreams) -> None:
    with _client(api) as client:
        document = client.get("/openapi.json").json()
        host_type = document["components"]["schemas"]["osac.private.v1.HostType"]
        assert host_type["type"] == ["object", "null"]
        assert host_type["properties"]["interfaces"]["type"] == ["array", "null"]
        assert host_type["properties"]["interfaces"]["items"]["type"] == "object"
        assert host_type["properties"]["title"]["type"] == ["string", "null"]
        body = document["paths"]["/api/private/v1/host_types"]["post"]["requestBody"]["content"]["application/json"]
        assert body["schema"]["type"] == "object"

        created = client.post("/api/private/v1/host_types", json={
            "metadata": {"name": "nullable", "labels": {"a": "b"}}, "title": "T", "description": "D",
            "interfaces": [{"name": "eth0", "role": "fabric"}]})
        assert created.status_code == 200, created.text
        path = f"/api/private/v1/host_types/{created.json()['id']}"
        cleared = client.patch(path, params={"update_mask": "interfaces,description,metadata.labels"},
                               json={"metadata": {"labels": None}, "interfaces": None, "description": None,
                                     "title": None})
        assert cleared.status_code == 200, cleared.text
        answer = client.get(path).json()
        assert (answer["title"], "description" in answer, "interfaces" in answer) == ("T", False, False)
        assert "labels" not in answer["metadata"]

        refused = client.patch(path, json={"interfaces": [None]})
        assert refused.status_code == 400
        assert "null" in refused.json()["message"]
        assert client.post("/api/private/v1/host_types", data=b"null",
                           headers={"content-type": "application/json"}).json()["message"] == (
            "request body must be a JSON object")
        client.delete(path)
