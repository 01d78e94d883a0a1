"""The admin kubeconfig and ``kubeadmin`` password of a simulated cluster.

They look like the real ones (a kubeconfig whose server is the API VIP on port 6443, PEM blocks,
a ``xxxxx-xxxxx-xxxxx-xxxxx`` password) so clients and the UI handle them as they would a real
cluster's, but the key material is derived from (``simulator.seed``, cluster id): stable across
restarts and processes, and worth nothing outside the simulator.
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import textwrap

import yaml

from osac.providers.clusters import API_PORT, HostedClusterSpec

PASSWORD_ALPHABET = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
ADMIN_USER = "admin"


def _material(seed: int, cluster_id: str, label: str, size: int) -> bytes:
    return hashlib.shake_256(f"{seed}/cluster/{cluster_id}/{label}".encode()).digest(size)


def _pem(kind: str, body: bytes) -> str:
    lines = textwrap.wrap(base64.b64encode(body).decode(), 64)
    return f"-----BEGIN {kind}-----\n" + "\n".join(lines) + f"\n-----END {kind}-----\n"


def _data(seed: int, cluster_id: str, kind: str, label: str, size: int) -> str:
    """A PEM block, base64-encoded as kubeconfig ``*-data`` fields are."""
    return base64.b64encode(_pem(kind, _material(seed, cluster_id, label, size)).encode()).decode()


def api_server_url(spec: HostedClusterSpec) -> str:
    host = spec.api_vip
    if ipaddress.ip_address(host).version == 6:
        host = f"[{host}]"
    return f"https://{host}:{API_PORT}"


def kubeconfig(seed: int, cluster_id: str, spec: HostedClusterSpec) -> bytes:
    context = f"{ADMIN_USER}@{spec.name}"
    document = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{
            "name": spec.name,
            "cluster": {
                "server": api_server_url(spec),
                "certificate-authority-data": _data(seed, cluster_id, "CERTIFICATE", "root-ca", 768),
            },
        }],
        "users": [{
            "name": ADMIN_USER,
            "user": {
                "client-certificate-data": _data(seed, cluster_id, "CERTIFICATE", "admin-certificate", 704),
                "client-key-data": _data(seed, cluster_id, "RSA PRIVATE KEY", "admin-key", 1190),
            },
        }],
        "contexts": [{"name": context, "context": {"cluster": spec.name, "user": ADMIN_USER}}],
        "current-context": context,
        "preferences": {},
    }
    return yaml.safe_dump(document, sort_keys=False).encode()


def admin_password(seed: int, cluster_id: str) -> str:
    raw = _material(seed, cluster_id, "kubeadmin-password", 20)
    characters = "".join(PASSWORD_ALPHABET[byte % len(PASSWORD_ALPHABET)] for byte in raw)
    return "-".join(characters[i:i + 5] for i in range(0, 20, 5))
