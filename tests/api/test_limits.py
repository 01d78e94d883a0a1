"""Input bounds (docs/limits.md): every request out of bounds gets a precise 4xx naming the field,
over REST and gRPC alike, on both databases, and nothing is written."""

from __future__ import annotations

import json

import grpc
import pytest
from google.protobuf import json_format

from osac.auth.subject import Role
from osac.model import protos, registry
from osac.services.core import limits
from tests.support.server import GrpcError

VN = "/api/fulfillment/v1/virtual_networks"
VN_SERVICE = f"{protos.PUBLIC}.VirtualNetworks"
EVENTS = f"{protos.PUBLIC}.Events"
JSON = {"content-type": "application/json"}


async def _alice(server):
    admin = server.rest(server.token(Role.PROVIDER_ADMIN, user="root"))
    assert (await admin.request("POST", "/api/fulfillment/v1/tenants", json={"metadata": {"name": "acme"}})).status_code == 200
    return server.token(Role.TENANT_ADMIN, ("acme",), user="alice")


async def _state(client) -> tuple[int, str]:
    """(visible VirtualNetworks, newest revision): unchanged when nothing was written."""
    page = (await client.request("GET", VN)).json()
    return page["total"], page["revision"]


def _vn(**metadata) -> dict:
    return {"metadata": {"name": "net", **metadata}, "spec": {"ipv4_cidr": "10.0.0.0/16"}}


def _big_annotations(total: int) -> dict[str, str]:
    chunk = 60_000
    return {f"a{i}": "x" * min(chunk, total - i * chunk) for i in range((total + chunk - 1) // chunk)}


OUT_OF_BOUNDS = [
    pytest.param(_vn(annotations=_big_annotations(limits.MAX_ANNOTATIONS_BYTES + 1000)),
                 "metadata.annotations: keys and values total", id="annotations-over-256KiB"),
    pytest.param(_vn(labels={f"k{i}": "v" for i in range(limits.MAX_LABELS + 1)}),
                 "metadata.labels: at most 64 entries are accepted, got 65", id="65-labels"),
    pytest.param(_vn(project="p" * 10_000), "metadata.project: at most 253 characters are accepted, got 10000",
                 id="long-project"),
    pytest.param(_vn(annotations={"k\x00": "v"}), "metadata.annotations: key 'k\\x00': control character U+0000",
                 id="nul-annotation-key"),
    pytest.param(_vn(annotations={"k": "a\x00b"}), "metadata.annotations['k']: control character U+0000 at position 1",
                 id="nul-annotation-value"),
    pytest.param(_vn(project="p\x00"), "metadata.project: control character U+0000 at position 1; control characters are not accepted",
                 id="nul-project"),
    pytest.param({"metadata": {"name": "net"}, "spec": {"ipv4_cidr": "10.0.0.0/16", "network_class": "a\x00"}},
                 "spec.network_class: control character U+0000", id="nul-network-class"),
    pytest.param(_vn(annotations={"k": "line\x07"}), "metadata.annotations['k']: control character U+0007",
                 id="bell-in-annotation"),
    pytest.param({"metadata": {"name": "net"}, "spec": {"ipv4_cidr": "10.0.0.0/16", "ipv6_cidr": "r" * 1025}},
                 "spec.ipv6_cidr: at most 1024 characters are accepted, got 1025", id="long-string"),
]


@pytest.mark.parametrize("body, message", OUT_OF_BOUNDS)
async def test_out_of_bounds_create_is_refused_over_rest_and_grpc(server, body, message) -> None:
    token = await _alice(server)
    async with server.rest(token) as rest, server.grpc(token) as client:
        before = await _state(rest)
        response = await rest.request("POST", VN, json=body)
        assert response.status_code == 400, response.text
        assert response.json()["code"] == 3 and message in response.json()["message"]
        obj = json_format.ParseDict(body, registry.get("virtual_network").message_class(False)())
        with pytest.raises(GrpcError) as refused:
            await client.call(VN_SERVICE, "Create", object=obj)
        assert refused.value.code is grpc.StatusCode.INVALID_ARGUMENT and message in refused.value.message
        assert await _state(rest) == before


async def test_largest_accepted_values_are_stored(server) -> None:
    token = await _alice(server)
    async with server.rest(token) as rest:
        body = _vn(labels={f"k{i}": "v" for i in range(limits.MAX_LABELS)},
                   annotations={**_big_annotations(limits.MAX_ANNOTATIONS_BYTES - 10_000), "text": "a\tb\nc\r"},
                   project="p" * 253)
        body["metadata"]["labels"]["p" * 253 + "/" + "n" * 63] = "v" * 63
        del body["metadata"]["labels"]["k0"]
        created = await rest.request("POST", VN, json=body)
        assert created.status_code == 200, created.text
        assert created.json()["metadata"]["annotations"]["text"] == "a\tb\nc\r"
        assert (await _state(rest))[0] == 1


async def test_update_out_of_bounds_writes_nothing(server) -> None:
    token = await _alice(server)
    async with server.rest(token) as rest:
        vn = (await rest.request("POST", VN, json=_vn())).json()
        before = await _state(rest)
        response = await rest.request("PATCH", f"{VN}/{vn['id']}", json={"metadata": {"annotations": {"k": "\x00"}}})
        assert response.status_code == 400 and "metadata.annotations['k']: control character U+0000" in response.json()["message"]
        assert await _state(rest) == before


async def test_too_many_security_group_rules(server) -> None:
    token = await _alice(server)
    async with server.rest(token) as rest:
        before = await _state(rest)
        rules = [{"protocol": "PROTOCOL_TCP", "port_from": 80, "port_to": 80, "ipv4_cidr": "0.0.0.0/0"}] * 201
        response = await rest.request("POST", "/api/fulfillment/v1/security_groups",
                                      json={"spec": {"virtual_network": "x", "ingress": rules}})
        assert (response.status_code, response.json()["message"]) == (
            400, "spec.ingress: at most 200 elements are accepted, got 201")
        assert await _state(rest) == before


@pytest.mark.parametrize("path, params", [
    pytest.param(f"{VN}/a%00b", {}, id="nul-in-url-id"),
    pytest.param(VN, {"filter": 'this.metadata.name == "a\x00"'}, id="nul-in-filter-literal"),
])
async def test_nul_in_id_and_filter_is_refused(server, path, params) -> None:
    token = await _alice(server)
    async with server.rest(token) as rest, server.grpc(token) as client:
        response = await rest.request("GET", path, params=params)
        assert response.status_code == 400, response.text
        assert "control character U+0000" in response.json()["message"]
        with pytest.raises(GrpcError) as refused:
            if params:
                await client.call(VN_SERVICE, "List", filter=params["filter"])
            else:
                await client.call(VN_SERVICE, "Get", id="a\x00b")
        assert refused.value.code is grpc.StatusCode.INVALID_ARGUMENT
        assert "control character U+0000" in refused.value.message


# -- REST bodies ---------------------------------------------------------------------------------


@pytest.mark.parametrize("content, headers, status, message", [
    pytest.param(b'{"metadata": {"name": "a", "name": "b"}, "spec": {"ipv4_cidr": "10.0.0.0/16"}}', JSON, 400,
                 "request body: key 'name' appears more than once in one object", id="duplicate-key"),
    pytest.param(b"[" * 100_000 + b"]" * 100_000, JSON, 400,
                 "request body: JSON nests more than 64 arrays and objects deep", id="deep-nesting"),
    pytest.param(json.dumps(_vn()).encode(), {"content-type": "text/plain"}, 415,
                 "request body: content type 'text/plain' is not accepted; send application/json", id="text-plain"),
    pytest.param(json.dumps(_vn(annotations={"a": "x" * (1024 * 1024)})).encode(), JSON, 413,
                 "request body: larger than 1048576 bytes", id="over-1MiB"),
    pytest.param(b'{"metadata": {"name": "net"}, "spec": {"ipv4_cidr": 5}}', JSON, 400,
                 "spec.ipv4_cidr: expected a string, got a number", id="number-for-string"),
    pytest.param(b'{"metadata": {"name": "net"}, "spec": {"region": "r"}}', JSON, 400,
                 "spec.region: unknown field; the accepted fields are network_class, ipv4_cidr, ipv6_cidr",
                 id="unknown-field"),
])
async def test_bad_rest_bodies(server, content, headers, status, message) -> None:
    token = await _alice(server)
    async with server.rest(token) as rest:
        before = await _state(rest)
        response = await rest.request("POST", VN, content=content, headers=headers)
        assert response.status_code == status, response.text
        assert message in response.json()["message"]
        assert await _state(rest) == before


@pytest.mark.parametrize("path, body, message", [
    pytest.param("/api/fulfillment/v1/baremetal_instances", {"spec": {"restart_trigger": ""}},
                 "spec.restart_trigger: expected a 64-bit integer (a number or a string of digits) from "
                 "-9223372036854775808 to 9223372036854775807, got an empty string", id="empty-int64"),
    pytest.param("/api/fulfillment/v1/clusters", {"spec": {"node_sets": {"w": {"size": "many"}}}},
                 "spec.node_sets['w'].size: expected a 32-bit integer from -2147483648 to 2147483647, got 'many'",
                 id="word-for-int32"),
    pytest.param("/api/fulfillment/v1/clusters", {"spec": {"node_sets": {"w": {"size": 2**40}}}},
                 "spec.node_sets['w'].size: expected a 32-bit integer from -2147483648 to 2147483647, got 1099511627776",
                 id="int32-overflow"),
    pytest.param("/api/private/v1/compute_instance_templates", {"parameters": [{"name": "p", "default": {"@type": {}}}]},
                 "parameters[0].default: '@type' must be a type URL string such as \"type.googleapis.com/google.protobuf.StringValue\"", id="any-type-not-string"),
])
async def test_json_scalars_of_the_wrong_type_name_the_field(server, path, body, message) -> None:
    await _alice(server)
    async with server.rest(server.token(Role.PROVIDER_ADMIN, user="root")) as admin:
        before = await _state(admin)
        response = await admin.request("POST", path, json=body)
        assert response.status_code == 400, response.text
        assert response.json()["message"] == message
        assert "literal" not in response.json()["message"]
        assert await _state(admin) == before


# -- gRPC messages -------------------------------------------------------------------------------


async def test_grpc_garbage_bytes_are_invalid_argument(server) -> None:
    token = await _alice(server)
    async with server.grpc(token) as client, server.rest(token) as rest:
        before = await _state(rest)
        stub = client.channel.unary_unary(f"/{VN_SERVICE}/Create")
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await stub(b"\xff\xff\xff\xff\x0f garbage", metadata=client.metadata)
        assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert refused.value.details() == (
            "request: the bytes are not a valid osac.public.v1.VirtualNetworksCreateRequest message")
        assert await _state(rest) == before


async def test_grpc_message_over_the_bound_is_resource_exhausted(server) -> None:
    token = await _alice(server)
    async with server.grpc(token) as client, server.rest(token) as rest:
        before = await _state(rest)
        obj = json_format.ParseDict(_vn(annotations={"a": "x" * (1024 * 1024)}),
                                    registry.get("virtual_network").message_class(False)())
        with pytest.raises(GrpcError) as refused:
            await client.call(VN_SERVICE, "Create", object=obj)
        assert refused.value.code is grpc.StatusCode.RESOURCE_EXHAUSTED
        assert await _state(rest) == before


# -- List and Watch parameters -------------------------------------------------------------------


@pytest.mark.parametrize("params, message", [
    ({"limit": "-1"}, "limit: -1 is out of range; use an integer from 0 to 2147483647"),
    ({"limit": str(2**31)}, f"limit: {2**31} is out of range; use an integer from 0 to 2147483647"),
    ({"limit": str(2**64)}, f"limit: {2**64} is out of range; use an integer from 0 to 2147483647"),
    ({"offset": str(2**31)}, f"offset: {2**31} is out of range; use an integer from 0 to 2147483647"),
    ({"offset": str(2**63)}, f"offset: {2**63} is out of range; use an integer from 0 to 2147483647"),
    ({"offset": ""}, "offset: '' is not an integer; use an integer from 0 to 2147483647"),
])
async def test_list_parameters_out_of_range(server, params, message) -> None:
    token = await _alice(server)
    async with server.rest(token) as rest:
        response = await rest.request("GET", VN, params=params)
        assert (response.status_code, response.json()["message"]) == (400, message)


@pytest.mark.parametrize("fields, message", [
    ({"limit": -1}, "limit: -1 is out of range; use an integer from 0 to 2147483647"),
])
async def test_grpc_list_limit_out_of_range(server, fields, message) -> None:
    token = await _alice(server)
    async with server.grpc(token) as client:
        with pytest.raises(GrpcError) as refused:
            await client.call(VN_SERVICE, "List", **fields)
        assert (refused.value.code, refused.value.message) == (grpc.StatusCode.INVALID_ARGUMENT, message)


async def test_list_limits_at_the_bounds_are_served(server) -> None:
    token = await _alice(server)
    async with server.rest(token) as rest:
        for params in ({"limit": "0"}, {"limit": "1000"}, {"limit": "1001"}, {"limit": str(2**31 - 1)},
                       {"offset": str(2**31 - 1)}):
            assert (await rest.request("GET", VN, params=params)).status_code == 200


@pytest.mark.parametrize(("limit", "served"), [(None, 100), (0, 100), (1, 1), (1000, 1000), (1001, 1000), (2**31 - 1, 1000)])
def test_a_limit_above_the_page_size_is_clamped(limit, served) -> None:
    """api.md §6: limit default 100, max 1000, larger is clamped, 0 means default."""
    from osac.services.core.generic import page_bounds

    assert page_bounds(None, limit) == (0, served)


async def test_watch_after_revision_out_of_range(server) -> None:
    token = await _alice(server)
    async with server.rest(token) as rest, server.grpc(token) as client:
        newest = int((await _state(rest))[1])
        too_big = await rest.request("GET", "/api/events/v1/events", params={"after_revision": str(2**63)})
        assert (too_big.status_code, too_big.json()["message"]) == (
            400, f"after_revision: {2**63} is out of range; use an integer from 0 to {2**63 - 1}")
        beyond = await rest.request("GET", "/api/events/v1/events", params={"after_revision": str(newest + 1000)})
        expected = (f"after_revision: {newest + 1000} is beyond the newest revision {newest}; resume from a revision "
                    "a List or an event returned, or 0 for live changes only")
        assert (beyond.status_code, beyond.json()["code"], beyond.json()["message"]) == (400, 11, expected)
        stream = client.stream(EVENTS, "Watch", after_revision=newest + 1000)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            async for _ in stream:
                pass
        assert (refused.value.code(), refused.value.details()) == (grpc.StatusCode.OUT_OF_RANGE, expected)


# -- enum numbers, update masks, Allow -----------------------------------------------------------


async def test_unknown_enum_number_names_the_field_and_the_values(server) -> None:
    token = await _alice(server)
    message = ("spec.ingress[0].protocol: 99 is not a protocol; use PROTOCOL_TCP, PROTOCOL_UDP, "
               "PROTOCOL_ICMP or PROTOCOL_ALL")
    body = {"spec": {"virtual_network": "x", "ingress": [{"protocol": 99, "ipv4_cidr": "0.0.0.0/0"}]}}
    async with server.rest(token) as rest, server.grpc(token) as client:
        before = await _state(rest)
        response = await rest.request("POST", "/api/fulfillment/v1/security_groups", json=body)
        assert (response.status_code, response.json()["message"]) == (400, message)
        obj = json_format.ParseDict(body, registry.get("security_group").message_class(False)())
        with pytest.raises(GrpcError) as refused:
            await client.call(f"{protos.PUBLIC}.SecurityGroups", "Create", object=obj)
        assert (refused.value.code, refused.value.message) == (grpc.StatusCode.INVALID_ARGUMENT, message)
        assert await _state(rest) == before


async def test_update_mask_ignores_fields_outside_it(server) -> None:
    token = await _alice(server)
    async with server.rest(token) as rest, server.grpc(token) as client:
        vn = (await rest.request("POST", VN, json=_vn())).json()
        response = await rest.request("PATCH", f"{VN}/{vn['id']}", params={"update_mask": "metadata.labels"},
                                      json={"metadata": {"name": "other", "labels": {"env": "a"}}})
        assert response.status_code == 200, response.text
        assert (response.json()["metadata"]["name"], response.json()["metadata"]["labels"]) == ("net", {"env": "a"})
        update = json_format.ParseDict(response.json(), registry.get("virtual_network").message_class(False)())
        update.metadata.name = "renamed"
        update.metadata.labels["env"] = "b"
        mask = protos.message_class("google.protobuf.FieldMask")(paths=["metadata.labels"])
        updated = (await client.call(VN_SERVICE, "Update", object=update, update_mask=mask)).object
        assert (updated.metadata.name, dict(updated.metadata.labels)) == ("net", {"env": "b"})
        renamed = await rest.request("PATCH", f"{VN}/{vn['id']}", params={"update_mask": "metadata.name"},
                                     json={"metadata": {"name": "other"}})
        assert (renamed.status_code, renamed.json()["message"]) == (400, "metadata.name is immutable")


async def test_options_and_allow_name_the_methods_served(server) -> None:
    token = await _alice(server)
    async with server.rest(token) as rest:
        options = await rest.request("OPTIONS", "/api/fulfillment/v1/host_types/some-id")
        assert options.status_code == 204 and options.headers["allow"] == "DELETE, GET, HEAD, OPTIONS, PATCH"
        refused = await rest.request("PUT", "/api/fulfillment/v1/host_types/some-id")
        assert refused.status_code == 405 and refused.headers["allow"] == "DELETE, GET, HEAD, OPTIONS, PATCH"
        assert refused.json()["message"] == "method PUT is not served here; use DELETE, GET, HEAD, OPTIONS, PATCH"
        collection = await rest.request("OPTIONS", "/api/fulfillment/v1/host_types")
        assert collection.headers["allow"] == "GET, HEAD, OPTIONS, POST"


async def test_openapi_states_the_limits(server) -> None:
    async with server.rest(None) as anonymous:
        document = (await anonymous.request("GET", "/openapi.json")).json()
    schemas = document["components"]["schemas"]
    metadata = schemas["osac.public.v1.Metadata"]["properties"]
    assert metadata["name"]["maxLength"] == 63 and metadata["project"]["maxLength"] == 253
    assert metadata["labels"]["maxProperties"] == 64
    assert metadata["labels"]["propertyNames"] == {"maxLength": 317, "pattern": "^[^\\x00-\\x1f\\x7f]*$"}
    assert metadata["labels"]["additionalProperties"]["maxLength"] == 63
    assert metadata["annotations"]["maxProperties"] == 1024
    assert schemas["osac.public.v1.SecurityGroupSpec"]["properties"]["ingress"]["maxItems"] == 200
    assert schemas["osac.public.v1.ComputeInstanceSpec"]["properties"]["user_data"]["maxLength"] == 65_536
    parameters = {p["name"]: p["schema"] for p in document["paths"][VN]["get"]["parameters"]}
    assert (parameters["limit"]["minimum"], parameters["limit"]["maximum"]) == (0, 2**31 - 1)
    assert parameters["limit"] and "above 1000 the page holds 1000" in {p["name"]: p for p in document["paths"][VN]["get"]["parameters"]}["limit"]["description"]
    assert (parameters["offset"]["minimum"], parameters["offset"]["maximum"]) == (0, 2**31 - 1)
    watch = {p["name"]: p["schema"] for p in document["paths"]["/api/events/v1/events"]["get"]["parameters"]}
    assert watch["after_revision"]["maximum"] == 2**63 - 1


async def test_a_filter_dividing_by_zero_per_object_is_a_cel_evaluation_error(server) -> None:
    """docs/filters.md: an expression that errs for an object does not match it (absorbed by
    ``||``), the same on both databases; a constant that always errs is refused."""
    token = await _alice(server)
    async with server.rest(token) as rest:
        assert (await rest.request("POST", VN, json=_vn())).status_code == 200
        for expression, total in (
            ("size(this.metadata.labels) / 0 == 0", 0),
            ("size(this.metadata.labels) % 0 == 0", 0),
            ("(size(this.metadata.labels) + 9223372036854775807) * 2 > 0", 0),
            ("size(this.metadata.labels) / 0 == 0 || true", 1),
        ):
            response = await rest.request("GET", VN, params={"filter": expression})
            assert (response.status_code, response.json()["total"]) == (200, total), (expression, response.text)
        constant = await rest.request("GET", VN, params={"filter": "1 / 0 == 0"})
        assert constant.status_code == 400 and "division by zero" in constant.json()["message"]


@pytest.mark.parametrize("filter_", ["", "has(event.virtual_network)"])
async def test_watch_replay_of_large_objects_is_read_in_bounded_batches_without_loss(server, filter_) -> None:
    """Events of ~200 KB each: the replay reads them a few MiB at a time (BATCH_BYTES) and
    still delivers every one, in order, once."""
    from tests.support.watching import read_events, revisions

    token = await _alice(server)
    async with server.rest(token) as rest:
        start = (await _state(rest))[1]
        vn = (await rest.request("POST", VN, json=_vn(annotations={"a": "x" * 200_000}))).json()
        for index in range(30):
            patched = await rest.request("PATCH", f"{VN}/{vn['id']}",
                                         json={"metadata": {"annotations": {"a": str(index % 10) * 200_000}}})
            assert patched.status_code == 200, patched.text
        params = {"after_revision": start, **({"filter": filter_} if filter_ else {})}
        lines = await read_events(server.http_url, token, params=params, count=31, idle=10, limit=60)
    seen = revisions(lines)
    assert len(seen) == 31 and seen == sorted(set(seen)), lines[:2]


async def test_the_request_size_bound_is_configurable(server, tmp_path) -> None:
    from osac.server.settings import DEFAULT_CONFIG, merge_config
    from tests.support.server import running_server

    await _alice(server)
    config = merge_config(DEFAULT_CONFIG, {"api": {"max_request_bytes": 2048}})
    (tmp_path / "small").mkdir()
    async with running_server(tmp_path / "small", server.db_url, config=config) as small:
        token = small.token(Role.TENANT_ADMIN, ("acme",), user="alice")
        async with small.rest(token) as rest, small.grpc(token) as client:
            before = await _state(rest)
            body = _vn(annotations={"a": "x" * 3000})
            response = await rest.request("POST", VN, json=body)
            assert (response.status_code, response.json()["message"]) == (
                413, "request body: larger than 2048 bytes; at most 2048 bytes are accepted")
            obj = json_format.ParseDict(body, registry.get("virtual_network").message_class(False)())
            with pytest.raises(GrpcError) as refused:
                await client.call(VN_SERVICE, "Create", object=obj)
            assert refused.value.code is grpc.StatusCode.RESOURCE_EXHAUSTED
            assert (await rest.request("POST", VN, json=_vn())).status_code == 200
            assert (await _state(rest))[0] == before[0] + 1
