"""Anonymous endpoints: Capabilities.Get and JsonWebKeySet.Get (api.md §8)."""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format
from google.protobuf.message import Message

from osac.api.public.v1.capabilities_service_pb2 import CapabilitiesGetResponse
from osac.auth.dev_issuer import DevIssuer
from osac.auth.verifier import TokenVerifier
from osac.model import protos
from osac.model.shape import as_kind


class CapabilitiesEndpoints:
    def __init__(self, verifier: TokenVerifier) -> None:
        self.verifier = verifier

    async def Get(self, _caller: Any, _request: Message) -> Message:
        cls = protos.message_class(f"{protos.PUBLIC}.CapabilitiesGetResponse")
        response = as_kind(cls(), CapabilitiesGetResponse)
        response.authn.trusted_token_issuers.extend(self.verifier.trusted_issuers())
        return response


class JsonWebKeySetEndpoints:
    def __init__(self, dev_issuer: DevIssuer | None) -> None:
        self.dev_issuer = dev_issuer

    async def Get(self, _caller: Any, _request: Message) -> Message:
        cls = protos.message_class(f"{protos.PUBLIC}.JsonWebKeySetGetResponse")
        keys = self.dev_issuer.jwks() if self.dev_issuer is not None else {"keys": []}
        response = cls()
        json_format.ParseDict(keys, response, ignore_unknown_fields=True)
        return response
