"""What the server offers besides the resources: health, reflection, OpenAPI, metrics, bootstrap."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2

from osac.auth.subject import Role
from osac.model import registry
from osac.server.settings import DEFAULT_CONFIG, Settings, merge_config
from tests.support.server import running_server


async def test_grpc_health_and_reflection_v1(server) -> None:
    async with grpc.aio.insecure_channel(server.grpc_target) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        reply = await health.Check(health_pb2.HealthCheckRequest())
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        # grpc.reflection.v1 uses the v1alpha messages on the wire.
        call = channel.stream_stream(
            "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
            request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
            response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
        )
        responses = call(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
        services = set()
        async for response in responses:
            services = {s.name for s in response.list_services_response.service}
            break
    assert "osac.public.v1.Subnets" in services and "osac.private.v1.Hubs" in services
    assert "grpc.reflection.v1.ServerReflection" in services and "grpc.health.v1.Health" in services
    assert "osac.public.v1.Hubs" not in services


async def test_openapi_describes_every_collection(server) -> None:
    document = (await server.rest(None).request("GET", "/openapi.json")).json()
    assert document["openapi"].startswith("3.")
    for kind in registry.KINDS:
        if kind.has_public_api:
            assert f"/api/fulfillment/v1/{kind.collection}" in document["paths"], kind.name
            assert f"/api/fulfillment/v1/{kind.collection}/{{id}}" in document["paths"], kind.name
        assert f"/api/private/v1/{kind.collection}" in document["paths"], kind.name
    subnet = document["components"]["schemas"]["osac.public.v1.Subnet"]
    assert set(subnet["properties"]) == {"id", "metadata", "spec", "status"}
    assert "/api/events/v1/events" in document["paths"]


async def test_healthz_and_metrics(server) -> None:
    client = server.rest(server.token(Role.PROVIDER_ADMIN))
    assert (await client.request("GET", "/healthz")).text == "ok\n"
    await client.request("GET", "/api/fulfillment/v1/subnets")
    metrics = (await client.request("GET", "/metrics")).text
    assert 'osac_api_requests_total{api="public",code="OK",method="List",service="Subnets",transport="rest"}' in metrics
    # Counters and histograms without their `_created` twins (docs/deploy.md "Metrics").
    assert "osac_api_requests_total{" in metrics
    assert not [line for line in metrics.splitlines() if line.split("{")[0].endswith("_created")]


async def test_metrics_are_open_by_default(server) -> None:
    """The embedded default (loopback) serves /metrics without a token."""
    response = await server.rest(None).request("GET", "/metrics")
    assert response.status_code == 200 and "osac_api_requests_total" in response.text


async def test_metrics_can_require_a_provider_admin(db_url: str, tmp_path: Path) -> None:
    """Issue 17 item 16: ``metrics.require_provider_admin: true`` keeps tenant and cluster names
    and ids in the series away from anyone but a provider admin."""
    config = merge_config(DEFAULT_CONFIG, {"metrics": {"require_provider_admin": True}})
    async with running_server(tmp_path, db_url, config=config) as handle:
        anonymous = await handle.rest(None).request("GET", "/metrics")
        tenant = await handle.rest(handle.token(Role.TENANT_ADMIN, ("acme",), user="alice")).request("GET", "/metrics")
        forged = await handle.rest("not-a-jwt").request("GET", "/metrics")
        admin = await handle.rest(handle.token(Role.PROVIDER_ADMIN, user="root")).request("GET", "/metrics")
        health = await handle.rest(None).request("GET", "/healthz")

    assert anonymous.status_code == 401
    assert anonymous.json()["message"] == (
        "/metrics requires a provider-admin bearer token: missing bearer token; pass 'authorization: Bearer <token>'")
    assert forged.status_code == 401 and forged.json()["message"].startswith(
        "/metrics requires a provider-admin bearer token: malformed bearer token")
    assert tenant.status_code == 403
    assert tenant.json()["message"] == "/metrics requires a provider-admin token; 'alice' is a tenant-admin of acme"
    assert "osac_" not in anonymous.text + tenant.text
    assert admin.status_code == 200 and "osac_api_requests_total" in admin.text
    assert health.status_code == 200  # only /metrics is gated


@pytest.mark.parametrize(("section", "message"), [
    ({"require_provider_admin": "yes"}, "metrics.require_provider_admin: 'yes' is not true or false"),
    ("on", "metrics: 'on' is not a mapping (e.g. metrics: {require_provider_admin: true})"),
])
def test_a_wrong_metrics_setting_is_refused(section: object, message: str, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, config=merge_config(DEFAULT_CONFIG, {"metrics": section}))
    with pytest.raises(ValueError) as refused:
        _ = settings.metrics_require_provider_admin
    assert str(refused.value) == message


async def test_bootstrap_catalogue_is_ordinary_objects(server) -> None:
    admin = server.rest(server.token(Role.PROVIDER_ADMIN))
    classes = (await admin.request("GET", "/api/private/v1/network_classes")).json()
    [default] = classes["items"]
    assert default["is_default"] is True and default["fabric_manager"] == "sim-fabric"
    assert default["metadata"]["creator"] == "system" and default["metadata"]["tenant"] == "shared"
    names = {item["metadata"]["name"] for item in (await admin.request("GET", "/api/fulfillment/v1/host_types")).json()["items"]}
    assert names == {"vm-standard", "bm-standard"}
    tenant_user = server.rest(server.token(Role.TENANT_USER, ("acme",)))
    public = (await tenant_user.request("GET", "/api/fulfillment/v1/network_classes")).json()["items"][0]
    assert "fabric_manager" not in public and public["is_default"] is True



async def test_an_idle_keep_alive_connection_outlives_the_clients_expiry(server) -> None:
    """A client may reuse a connection it kept idle for 5 s (httpx's expiry): the server must
    not be closing it at that moment (uvicorn's default is exactly 5 s), or that request fails
    with a read error instead of an answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", server.app.http_port)

    async def healthz() -> bytes:
        writer.write(b"GET /healthz HTTP/1.1\r\nhost: osac\r\n\r\n")
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length")))
        await reader.readexactly(length)
        return head

    try:
        assert (await healthz()).startswith(b"HTTP/1.1 200")
        await asyncio.sleep(6)  # idle past the clients' 5 s
        assert (await healthz()).startswith(b"HTTP/1.1 200")  # the same connection still answers
    finally:
        writer.close()
