"""Malformed input gets INVALID_ARGUMENT naming the field, and writes nothing."""

from __future__ import annotations

import pytest

from osac.auth.subject import Role


async def _setup(server):
    admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
    await admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": "acme"}})
    return server.rest(server.token(Role.TENANT_ADMIN, ("acme",), user="alice"))


async def _revision(client) -> str:
    return (await client.request("GET", "/api/fulfillment/v1/virtual_networks")).json()["revision"]


BAD_BODIES = [
    pytest.param(b"{not json", "request body is not valid JSON", id="bad-json"),
    pytest.param(b"[1, 2]", "request body must be a JSON object", id="not-object"),
    pytest.param(b'{"spec": {"ipv4_cidr": 5}}', "ipv4_cidr", id="wrong-type"),
    pytest.param(b'{"spec": {"cidr": "10.0.0.0/8"}}', "cidr", id="unknown-field"),
    pytest.param(b'{"metadata": {"name": "' + b"a" * 64 + b'"}, "spec": {"ipv4_cidr": "10.0.0.0/16"}}',
                 "metadata.name", id="name-too-long"),
    pytest.param(b'{"metadata": {"name": "Bad_Name"}, "spec": {"ipv4_cidr": "10.0.0.0/16"}}', "metadata.name", id="name-invalid"),
    pytest.param(b'{"metadata": {"labels": {"k": "' + b"v" * 64 + b'"}}, "spec": {"ipv4_cidr": "10.0.0.0/16"}}',
                 "metadata.labels['k']", id="label-value-too-long"),
    pytest.param(b'{"metadata": {"labels": {"' + b"k" * 64 + b'": "v"}}, "spec": {"ipv4_cidr": "10.0.0.0/16"}}',
                 "metadata.labels: key", id="label-key-too-long"),
    pytest.param(b'{"metadata": {"labels": {"osac.openshift.io/default": "true"}}, "spec": {"ipv4_cidr": "10.0.0.0/16"}}',
                 "system label", id="system-label"),
    pytest.param(b'{"id": "x", "spec": {"ipv4_cidr": "10.0.0.0/16"}}', "id: must be empty", id="id-given"),
]


@pytest.mark.parametrize("body, fragment", BAD_BODIES)
async def test_bad_create_is_rejected_and_writes_nothing(server, body: bytes, fragment: str) -> None:
    alice = await _setup(server)
    before = await _revision(alice)
    response = await alice.request("POST", "/api/fulfillment/v1/virtual_networks", content=body,
                                   headers={"content-type": "application/json"})
    assert response.status_code == 400, response.text
    assert response.json()["code"] == 3 and fragment in response.json()["message"]
    assert await _revision(alice) == before
    assert (await alice.request("GET", "/api/fulfillment/v1/virtual_networks")).json()["total"] == 0


@pytest.mark.parametrize("params, fragment", [
    ({"filter": "this.spec.nope == 1"}, "nope"),
    ({"filter": "this.metadata.name.matches('x')"}, "matches"),
    ({"filter": "this.metadata.name =="}, "filter"),
    ({"order": "name"}, "order"),
    ({"offset": "-1"}, "offset"),
    ({"limit": "ten"}, "limit"),
])
async def test_bad_list_parameters(server, params, fragment) -> None:
    alice = await _setup(server)
    response = await alice.request("GET", "/api/fulfillment/v1/virtual_networks", params=params)
    assert response.status_code == 400, response.text
    assert fragment in response.json()["message"]


async def test_private_field_cannot_be_filtered_publicly(server) -> None:
    alice = await _setup(server)
    response = await alice.request("GET", "/api/fulfillment/v1/virtual_networks", params={"filter": "this.status.hub == 'x'"})
    assert response.status_code == 400 and "hub" in response.json()["message"]


async def test_immutable_field_and_unknown_mask_path(server) -> None:
    alice = await _setup(server)
    vn = (await alice.request("POST", "/api/fulfillment/v1/virtual_networks", json={"spec": {"ipv4_cidr": "10.0.0.0/16"}})).json()
    before = await _revision(alice)
    changed = await alice.request("PATCH", f"/api/fulfillment/v1/virtual_networks/{vn['id']}", json={"spec": {"ipv4_cidr": "10.1.0.0/16"}})
    assert (changed.status_code, changed.json()["message"]) == (400, "spec.ipv4_cidr is immutable")
    unknown = await alice.request("PATCH", f"/api/fulfillment/v1/virtual_networks/{vn['id']}", params={"update_mask": "spec.nope"}, json={})
    assert (unknown.status_code, unknown.json()["message"]) == (400, "update_mask: unknown field path 'spec.nope'")
    renamed = await alice.request("PATCH", f"/api/fulfillment/v1/virtual_networks/{vn['id']}", json={"metadata": {"name": "other"}})
    assert (renamed.status_code, renamed.json()["message"]) == (400, "metadata.name is immutable")
    assert await _revision(alice) == before


async def test_noop_update_stores_nothing(server) -> None:
    alice = await _setup(server)
    vn = (await alice.request("POST", "/api/fulfillment/v1/virtual_networks", json={"metadata": {"labels": {"a": "b"}}, "spec": {"ipv4_cidr": "10.0.0.0/16"}})).json()
    before = await _revision(alice)
    same = await alice.request("PATCH", f"/api/fulfillment/v1/virtual_networks/{vn['id']}", json={"metadata": {"labels": {"a": "b"}}})
    assert same.status_code == 200 and same.json() == vn
    assert await _revision(alice) == before


async def test_lock_conflict_changes_nothing(server) -> None:
    alice = await _setup(server)
    vn = (await alice.request("POST", "/api/fulfillment/v1/virtual_networks", json={"spec": {"ipv4_cidr": "10.0.0.0/16"}})).json()
    ok = await alice.request("PATCH", f"/api/fulfillment/v1/virtual_networks/{vn['id']}", params={"lock": "true"}, json={"metadata": {"labels": {"a": "1"}, "version": 0}})
    assert ok.status_code == 200
    stale = await alice.request("PATCH", f"/api/fulfillment/v1/virtual_networks/{vn['id']}", params={"lock": "true"}, json={"metadata": {"labels": {"a": "2"}, "version": 0}})
    assert stale.status_code == 409
    assert stale.json()["message"] == f"version conflict on VirtualNetwork '{vn['id']}': stored version 1, request carries 0"
    stored = (await alice.request("GET", f"/api/fulfillment/v1/virtual_networks/{vn['id']}")).json()
    assert stored["metadata"]["labels"] == {"a": "1"} and stored["metadata"]["version"] == 1


async def test_dry_run_checks_everything_and_persists_nothing(server) -> None:
    alice = await _setup(server)
    before = await _revision(alice)
    response = await alice.request("POST", "/api/fulfillment/v1/virtual_networks", headers={"x-dry-run": "true"},
                                   json={"metadata": {"name": "dry"}, "spec": {"ipv4_cidr": "10.0.0.0/16"}})
    assert response.status_code == 200 and "id" not in response.json()
    assert response.json()["metadata"]["name"] == "dry"
    assert await _revision(alice) == before


async def test_duplicate_name_is_already_exists(server) -> None:
    alice = await _setup(server)
    body = {"metadata": {"name": "app"}, "spec": {"ipv4_cidr": "10.0.0.0/16"}}
    assert (await alice.request("POST", "/api/fulfillment/v1/virtual_networks", json=body)).status_code == 200
    again = await alice.request("POST", "/api/fulfillment/v1/virtual_networks", json=body)
    assert again.status_code == 409
    assert again.json()["message"] == "VirtualNetwork named 'app' already exists in tenant 'acme'"


async def test_missing_and_bad_tokens_are_unauthenticated(server) -> None:
    anonymous = server.rest(None)
    response = await anonymous.request("GET", "/api/fulfillment/v1/virtual_networks")
    assert response.status_code == 401 and response.json()["code"] == 16
    garbage = server.rest("not-a-jwt")
    assert (await garbage.request("GET", "/api/fulfillment/v1/virtual_networks")).status_code == 401
    capabilities = await anonymous.request("GET", "/api/fulfillment/v1/capabilities")
    assert capabilities.status_code == 200
    assert capabilities.json()["authn"]["trusted_token_issuers"] == ["urn:osac:dev-issuer"]
    jwks = await anonymous.request("GET", "/.well-known/jwks.json")
    assert jwks.status_code == 200 and jwks.json()["keys"][0]["kid"]
