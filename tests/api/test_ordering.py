"""List ``order`` (api.md §6, extended; docs/filters.md "List order"): every orderable field,
ascending and descending, paged by offset and limit into one total order with ties broken by
ascending id, the same over REST and gRPC on SQLite and PostgreSQL; bad orders refused."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from osac.auth.subject import Role
from osac.model import protos
from tests.support.networking import set_state
from tests.support.server import GrpcError, RestClient, ServerHandle

VN = "/api/fulfillment/v1/virtual_networks"
SERVICE = f"{protos.PUBLIC}.VirtualNetworks"
ACCEPTED = (
    "use comma-separated keys '<field> [asc|desc]' with a field among id, metadata.name, "
    "metadata.creation_timestamp or status.state, each at most once (at most 4 keys)"
)

#: (tenant, name, state): names repeat across tenants and states repeat, so both need the id
#: to break ties; one network has no name (it sorts as ""); names out of creation order, and
#: "a-b" / "ab" compare by code point ('-' before 'b').
NETWORKS = [
    ("acme", "web", "VIRTUAL_NETWORK_STATE_READY"),
    ("beta", "web", "VIRTUAL_NETWORK_STATE_FAILED"),
    ("acme", "ab", None),
    ("acme", "a-b", "VIRTUAL_NETWORK_STATE_READY"),
    ("beta", "db", "VIRTUAL_NETWORK_STATE_READY"),
    ("acme", "", "VIRTUAL_NETWORK_STATE_FAILED"),
    ("beta", "cache", None),
]

#: The Python sort key of each order field, over a gRPC object.
FIELD_KEYS: dict[str, Callable[[Any], Any]] = {
    "id": lambda obj: obj.id,
    "metadata.name": lambda obj: obj.metadata.name,
    "metadata.creation_timestamp": lambda obj: obj.metadata.creation_timestamp.ToNanoseconds(),
    "status.state": lambda obj: obj.status.state,
}


async def _networks(server: ServerHandle) -> None:
    admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
    for tenant in ("acme", "beta"):
        created = await admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": tenant}})
        assert created.status_code == 200, created.text
    for number, (tenant, name, state) in enumerate(NETWORKS):
        user = server.rest(server.token(Role.TENANT_ADMIN, (tenant,), user="alice"))
        body: dict[str, Any] = {"spec": {"ipv4_cidr": f"10.{number}.0.0/16"}}
        if name:
            body["metadata"] = {"name": name}
        created = await user.request("POST", VN, json=body)
        assert created.status_code == 200, created.text
        if state:
            await set_state(admin, "virtual_networks", created.json()["id"], state)


def _expected(objects: list[Any], keys: list[tuple[str, bool]]) -> list[str]:
    """The ids in the order of ``keys``, ties by ascending id (stable sorts, last key first)."""
    ordered = sorted(objects, key=lambda obj: obj.id)
    for field, descending in reversed(keys):
        ordered = sorted(ordered, key=FIELD_KEYS[field], reverse=descending)
    return [obj.id for obj in ordered]


async def _all_grpc(server: ServerHandle) -> list[Message]:
    async with server.grpc(server.token(Role.PROVIDER_ADMIN, user="root")) as client:
        page = await client.call(SERVICE, "List")
    assert page.total == len(NETWORKS)
    return list(page.items)


async def _paged_rest(rest: RestClient, order: str, size: int, params: dict[str, str] | None = None) -> list[str]:
    ids: list[str] = []
    total = None
    while total is None or len(ids) < total:
        response = await rest.request(
            "GET", VN, params={"order": order, "offset": str(len(ids)), "limit": str(size), **(params or {})}
        )
        assert response.status_code == 200, response.text
        page = response.json()
        assert page["size"] == len(page.get("items", [])) and page["size"] > 0, page
        total = page["total"]
        ids += [item["id"] for item in page["items"]]
    assert len(ids) == total
    return ids


ORDERS = [
    pytest.param("id", [("id", False)], id="id"),
    pytest.param("id DESC", [("id", True)], id="id-desc"),
    pytest.param("metadata.name", [("metadata.name", False)], id="name"),
    pytest.param("metadata.name desc", [("metadata.name", True)], id="name-desc"),
    pytest.param("metadata.creation_timestamp asc", [("metadata.creation_timestamp", False)], id="created"),
    pytest.param("metadata.creation_timestamp Desc", [("metadata.creation_timestamp", True)], id="created-desc"),
    pytest.param("status.state", [("status.state", False)], id="state"),
    pytest.param("status.state desc", [("status.state", True)], id="state-desc"),
    pytest.param(" status.state desc ,metadata.name ", [("status.state", True), ("metadata.name", False)],
                 id="state-desc-name"),
    pytest.param("metadata.name desc, status.state desc", [("metadata.name", True), ("status.state", True)],
                 id="name-desc-state-desc"),
]


@pytest.mark.parametrize(("order", "keys"), ORDERS)
async def test_rest_order_pages_into_one_total_order(server, order: str, keys: list[tuple[str, bool]]) -> None:
    await _networks(server)
    expected = _expected(await _all_grpc(server), keys)
    async with server.rest(server.token(Role.PROVIDER_ADMIN, user="root")) as rest:
        for size in (1, 2, 3):
            assert await _paged_rest(rest, order, size) == expected, size


@pytest.mark.parametrize(("order", "keys"), ORDERS)
async def test_grpc_order_pages_into_one_total_order(server, order: str, keys: list[tuple[str, bool]]) -> None:
    await _networks(server)
    objects = await _all_grpc(server)
    expected = _expected(objects, keys)
    async with server.grpc(server.token(Role.PROVIDER_ADMIN, user="root")) as client:
        ids: list[str] = []
        while len(ids) < len(objects):
            page = await client.call(SERVICE, "List", order=order, offset=len(ids), limit=2)
            assert page.total == len(objects) and page.size == len(page.items) > 0
            ids += [item.id for item in page.items]
    assert ids == expected


async def test_names_in_code_point_order_absent_first_and_ties_by_id(server) -> None:
    await _networks(server)
    objects = {obj.id: obj for obj in await _all_grpc(server)}
    async with server.rest(server.token(Role.PROVIDER_ADMIN, user="root")) as rest:
        ids = await _paged_rest(rest, "metadata.name", 100)
    names = [objects[i].metadata.name for i in ids]
    assert names == ["", "a-b", "ab", "cache", "db", "web", "web"]
    webs = [i for i in ids if objects[i].metadata.name == "web"]
    assert webs == sorted(webs)
    async with server.rest(server.token(Role.PROVIDER_ADMIN, user="root")) as rest:
        descending = await _paged_rest(rest, "metadata.name desc", 100)
    assert [objects[i].metadata.name for i in descending] == ["web", "web", "db", "cache", "ab", "a-b", ""]
    assert [i for i in descending if objects[i].metadata.name == "web"] == webs  # ties still ascending id


async def test_names_sort_in_code_point_order_whatever_the_column_collation(server, db_engine: str) -> None:
    """PostgreSQL compares text by the column's collation; one that ignores punctuation (ICU,
    alternate=shifted) would put 'ab' before 'a-c'. The order is code point order regardless."""
    if db_engine != "postgresql":
        pytest.skip("collations are PostgreSQL's")
    engine = create_async_engine(server.db_url)
    try:
        async with engine.begin() as conn:
            await conn.execute(text("CREATE COLLATION osac_punctuation_ignored (provider = icu, locale = 'en-u-ka-shifted')"))
            await conn.execute(text(
                "ALTER TABLE virtual_networks ALTER COLUMN name TYPE varchar(63) COLLATE osac_punctuation_ignored"
            ))
    finally:
        await engine.dispose()
    admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
    assert (await admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": "acme"}})).status_code == 200
    alice = server.rest(server.token(Role.TENANT_ADMIN, ("acme",), user="alice"))
    for number, name in enumerate(("abc", "ab", "a-c")):
        created = await alice.request("POST", VN, json={"metadata": {"name": name}, "spec": {"ipv4_cidr": f"10.{number}.0.0/16"}})
        assert created.status_code == 200, created.text
    page = (await alice.request("GET", VN, params={"order": "metadata.name"})).json()
    assert [item["metadata"]["name"] for item in page["items"]] == ["a-c", "ab", "abc"]


async def test_tenancy_and_filter_apply_before_the_order(server) -> None:
    await _networks(server)
    objects = {obj.id: obj for obj in await _all_grpc(server)}
    async with server.rest(server.token(Role.TENANT_ADMIN, ("acme",), user="alice")) as alice:
        ids = await _paged_rest(alice, "metadata.name desc", 2)
        assert [objects[i].metadata.name for i in ids] == ["web", "ab", "a-b", ""]
        ready = await _paged_rest(alice, "metadata.name", 1, {"filter": "this.status.state == VIRTUAL_NETWORK_STATE_READY"})
        assert [objects[i].metadata.name for i in ready] == ["a-b", "web"]


async def test_a_blank_order_keeps_creation_order(server) -> None:
    await _networks(server)
    created = [obj.id for obj in await _all_grpc(server)]
    assert created == sorted(created)
    async with server.rest(server.token(Role.PROVIDER_ADMIN, user="root")) as rest:
        assert await _paged_rest(rest, "", 3) == created
        assert await _paged_rest(rest, "   ", 3) == created


BAD_ORDERS = [
    pytest.param("name", f"order: unknown field 'name'; {ACCEPTED}", id="unknown-field"),
    pytest.param("spec.ipv4_cidr desc", f"order: unknown field 'spec.ipv4_cidr'; {ACCEPTED}", id="unorderable-field"),
    pytest.param("metadata.name down", "order: 'down' is not a direction of metadata.name; use asc or desc (default asc)",
                 id="bad-direction"),
    pytest.param("metadata.name asc desc",
                 f"order: 'metadata.name asc desc' has more than a field and a direction; {ACCEPTED}", id="extra-word"),
    pytest.param("metadata.name, id, metadata.name desc",
                 "order: metadata.name is given more than once; name each field once", id="repeated-field"),
    pytest.param("id,metadata.name,status.state,metadata.creation_timestamp,id",
                 f"order: at most 4 keys are accepted, got 5; {ACCEPTED}", id="too-many-keys"),
    pytest.param("metadata.name,", f"order: key 2 is empty; {ACCEPTED}", id="empty-key"),
    pytest.param("id " + " " * 300, "order: at most 256 characters are accepted, got 303", id="too-long"),
]


@pytest.mark.parametrize(("order", "message"), BAD_ORDERS)
async def test_bad_order_is_refused_naming_order(server, order: str, message: str) -> None:
    await _networks(server)
    async with server.rest(server.token(Role.PROVIDER_ADMIN, user="root")) as rest:
        response = await rest.request("GET", VN, params={"order": order})
    assert response.status_code == 400, response.text
    assert (response.json()["code"], response.json()["message"]) == (3, message)
    async with server.grpc(server.token(Role.PROVIDER_ADMIN, user="root")) as client:
        with pytest.raises(GrpcError) as refused:
            await client.call(SERVICE, "List", order=order)
    assert (refused.value.code, refused.value.message) == (grpc.StatusCode.INVALID_ARGUMENT, message)


async def test_lifecycle_events_still_refuse_an_order(server) -> None:
    async with server.rest(server.token(Role.PROVIDER_ADMIN, user="root")) as rest:
        response = await rest.request("GET", "/api/fulfillment/v1/lifecycle_events", params={"order": "id"})
    assert response.status_code == 400, response.text
    assert response.json()["message"] == "order: ordering is not supported for lifecycle events; they are listed oldest first"


async def test_state_order_of_a_kind_without_state_is_refused(server) -> None:
    async with server.rest(server.token(Role.PROVIDER_ADMIN, user="root")) as rest:
        response = await rest.request("GET", "/api/fulfillment/v1/host_types", params={"order": "status.state desc"})
        assert response.status_code == 400, response.text
        assert response.json()["message"] == (
            "order: HostType has no status.state; use comma-separated keys '<field> [asc|desc]' with a field "
            "among id, metadata.name or metadata.creation_timestamp, each at most once (at most 4 keys)"
        )
        by_name = await rest.request("GET", "/api/fulfillment/v1/host_types", params={"order": "metadata.name desc"})
        assert by_name.status_code == 200, by_name.text


async def test_openapi_states_the_order_grammar(server) -> None:
    document = (await server.rest(None).request("GET", "/openapi.json")).json()

    def order_parameter(path: str) -> dict[str, Any]:
        parameters = {p["name"]: p for p in document["paths"][path]["get"]["parameters"]}
        return dict(parameters["order"])

    networks = order_parameter(VN)
    assert networks["schema"] == {"type": "string", "maxLength": 256, "pattern": "^[^\\x00-\\x1f\\x7f]*$"}
    assert ACCEPTED in networks["description"] and "ties are broken by ascending id" in networks["description"]
    host_types = order_parameter("/api/fulfillment/v1/host_types")["description"]
    assert "among id, metadata.name or metadata.creation_timestamp," in host_types
    assert order_parameter("/api/fulfillment/v1/lifecycle_events")["description"].startswith("Not supported")
