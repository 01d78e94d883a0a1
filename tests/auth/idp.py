"""A stand-in identity provider for the auth tests: keys the test owns and a JWKS endpoint on
127.0.0.1 (ephemeral port) that counts how often it is fetched.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm

T0 = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)


@dataclass
class IdpKey:
    """An EC P-256 key the test controls, as an identity provider would hold it."""

    kid: str
    private: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )

    def jwk(self) -> dict[str, Any]:
        public = ECAlgorithm.to_jwk(self.private.public_key(), as_dict=True)
        return {**public, "kid": self.kid, "use": "sig", "alg": "ES256"}

    def sign(self, claims: dict[str, Any], kid: str | None = "") -> str:
        """`kid=""` means this key's id; None leaves `kid` out of the header."""
        headers = {} if kid is None else {"kid": kid or self.kid}
        return jwt.encode(claims, self.private, algorithm="ES256", headers=headers)


class JwksServer:
    """Serves `jwks` with `status` at `url` and counts the fetches."""

    def __init__(self) -> None:
        self.jwks: dict[str, Any] = {"keys": []}
        self.status = 200
        self.fetches = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                server.fetches += 1
                body = json.dumps(server.jwks).encode()
                self.send_response(server.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._http.server_address[1]}/certs"
        self._thread = threading.Thread(
            target=self._http.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    def publish(self, *keys: IdpKey) -> None:
        self.jwks = {"keys": [key.jwk() for key in keys]}

    def __enter__(self) -> JwksServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.shutdown()
        self._http.server_close()
        self._thread.join()
