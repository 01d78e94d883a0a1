"""Every method of every kind, through REST and gRPC, on SQLite and PostgreSQL."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf import json_format

from osac.auth.subject import Role
from osac.model import protos, registry
from osac.model.kinds import Kind, Method
from tests.support.samples import TENANT, World, is_provider_only_write
from tests.support.server import GrpcError

KINDS = list(registry.KINDS)


def _writer_is_private(kind: Kind) -> bool:
    return Method.CREATE not in kind.public_methods


def _prefix(private: bool) -> str:
    return "/api/private/v1" if private else "/api/fulfillment/v1"


@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
async def test_rest_crud(server, kind: Kind) -> None:
    admin_token = server.token(Role.PROVIDER_ADMIN, user="root")
    user_token = server.token(Role.TENANT_ADMIN, (TENANT,), user="alice")
    async with server.rest(admin_token) as admin, server.rest(user_token) as user:
        world = World(admin, user)
        body = await world.sample(kind)
        private = _writer_is_private(kind)
        client = admin if (is_provider_only_write(kind) or private) else user
        base = f"{_prefix(private)}/{kind.collection}"

        created = await client.request("POST", base, json=body)
        assert created.status_code == 200, created.text
        obj = created.json()
        assert obj["id"] and obj["metadata"]["name"] == body["metadata"]["name"]
        assert obj["metadata"]["creator"] == ("root" if client is admin else "alice")
        assert "version" not in obj["metadata"]  # zero: omitted in proto3 JSON

        got = await client.request("GET", f"{base}/{obj['id']}")
        assert got.status_code == 200 and got.json() == obj

        listed = await client.request("GET", base, params={"filter": f"this.metadata.name == '{body['metadata']['name']}'"})
        assert listed.status_code == 200, listed.text
        page = listed.json()
        assert page["total"] == 1 and page["size"] == 1 and page["items"][0]["id"] == obj["id"]
        assert int(page["revision"]) > 0

        patched = await client.request(
            "PATCH", f"{base}/{obj['id']}", params={"update_mask": "metadata.labels", "lock": "true"},
            json={"metadata": {"labels": {"env": "test"}, "version": 0}},
        )
        assert patched.status_code == 200, patched.text
        assert patched.json()["metadata"]["labels"] == {"env": "test"}
        assert patched.json()["metadata"]["version"] == 1

        if Method.SIGNAL in kind.private_methods:
            signalled = await admin.request("POST", f"/api/private/v1/{kind.collection}/{obj['id']}/signal")
            assert signalled.status_code == 200, signalled.text

        deleted = await client.request("DELETE", f"{base}/{obj['id']}")
        assert deleted.status_code == 200, deleted.text
        gone = await client.request("GET", f"{base}/{obj['id']}")
        assert gone.status_code == 404
        assert gone.json() == {"code": 5, "message": f"{kind.message} '{obj['id']}' not found", "details": []}


@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
async def test_grpc_crud(server, kind: Kind) -> None:
    admin_token = server.token(Role.PROVIDER_ADMIN, user="root")
    user_token = server.token(Role.TENANT_ADMIN, (TENANT,), user="alice")
    async with server.rest(admin_token) as admin_rest, server.rest(user_token) as user_rest:
        world = World(admin_rest, user_rest)
        body = await world.sample(kind)
    private = _writer_is_private(kind)
    token = admin_token if (is_provider_only_write(kind) or private) else user_token
    package = protos.PRIVATE if private else protos.PUBLIC
    service = f"{package}.{kind.service}"
    async with server.grpc(token) as client:
        obj = json_format.ParseDict(body, kind.message_class(private)())
        created = (await client.call(service, "Create", object=obj)).object
        assert created.id and created.metadata.name == body["metadata"]["name"]

        got = (await client.call(service, "Get", id=created.id)).object
        assert got == created

        page = await client.call(service, "List", filter=f"this.id == '{created.id}'")
        assert (page.size, page.total) == (1, 1) and page.items[0] == created and page.revision > 0

        update = kind.message_class(private)()
        update.CopyFrom(created)
        update.metadata.labels["env"] = "grpc"
        mask = protos.message_class("google.protobuf.FieldMask")(paths=["metadata.labels"])
        updated = (await client.call(service, "Update", object=update, update_mask=mask, lock=True)).object
        assert updated.metadata.labels["env"] == "grpc" and updated.metadata.version == 1

        with pytest.raises(GrpcError) as conflict:
            await client.call(service, "Update", object=update, update_mask=mask, lock=True)
        assert conflict.value.code == grpc.StatusCode.ABORTED
        assert "stored version 1, request carries 0" in conflict.value.message

        await client.call(service, "Delete", id=created.id)
        with pytest.raises(GrpcError) as missing:
            await client.call(service, "Get", id=created.id)
        assert missing.value.code == grpc.StatusCode.NOT_FOUND
