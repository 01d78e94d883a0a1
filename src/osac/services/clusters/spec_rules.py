"""Static checks of cluster input (api.md §11.5, §11.6; networking.md §7.3): the values a
ClusterTemplate's ``spec_defaults`` and a Cluster's ``spec`` carry, validated without I/O.

Each check raises INVALID_ARGUMENT naming the field path, the value and what is expected, so
the same function serves a template (``spec_defaults.release_image``) and a cluster
(``spec.release_image``). A value is checked where it is stored: a template default when the
template is written, the cluster's copy again when a cluster is created from it (the template
may predate a rule).
"""

from __future__ import annotations

import base64
import binascii
import json
import re

from osac.services.core.errors import InvalidArgument
from osac.services.networking import validation
from osac.services.networking.validation import IPNetwork

#: Cluster network defaults when neither the cluster nor its template gives one (api.md §11.6).
DEFAULT_POD_CIDR = "10.128.0.0/14"
DEFAULT_SERVICE_CIDR = "172.30.0.0/16"
#: ``registry[:port]/repository[/more]`` then ``:tag`` and/or ``@sha256:<64 hex>``: a release
#: image is always pinned and always names its registry, since the nodes pull it from there.
_IMAGE = re.compile(
    r"^(?P<registry>[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*(?::[0-9]{1,5})?)"
    r"(?P<path>(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)+)"
    r"(?::(?P<tag>[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}))?"
    r"(?:@(?P<digest>sha256:[a-f0-9]{64}))?$"
)
_SSH_KEY_TYPES = (
    "ssh-ed25519",
    "ssh-rsa",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ssh-ed25519@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
)
_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def release_image(value: str, path: str) -> None:
    """A pinned image reference with a registry: ``quay.io/org/release:4.17.0-x86_64`` or
    ``…@sha256:<digest>``."""
    found = _IMAGE.match(value)
    if found is None or (found.group("tag") is None and found.group("digest") is None):
        raise InvalidArgument(
            f"{path}: '{value[:200]}' is not a pinned image reference; use "
            "REGISTRY/REPOSITORY:TAG or REGISTRY/REPOSITORY@sha256:DIGEST "
            "(e.g. quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64)"
        )


def ssh_public_key(value: str, path: str) -> None:
    """One OpenSSH public key line: ``<type> <base64 key> [comment]``, the key decoding to a
    blob that names the same type (what ``ssh-keygen`` writes to ``*.pub``)."""
    parts = value.strip().split(None, 2)
    expected = f"{path}: not an OpenSSH public key; expected one line '<type> <base64 key> [comment]' as in a .pub file"
    if "\n" in value.strip() or len(parts) < 2 or parts[0] not in _SSH_KEY_TYPES:
        raise InvalidArgument(f"{expected} (type one of {', '.join(_SSH_KEY_TYPES)})")
    try:
        blob = base64.b64decode(parts[1], validate=True)
    except (binascii.Error, ValueError):
        raise InvalidArgument(f"{expected}; the key is not valid base64") from None
    declared = parts[0].encode()
    if len(blob) < 4 + len(declared) or blob[4:4 + len(declared)] != declared:
        raise InvalidArgument(f"{expected}; the key data does not match its type '{parts[0]}'")


def pull_secret(value: str, path: str) -> None:
    """A registry pull secret as OpenShift expects it: a JSON object with an ``auths`` map
    (``{"auths": {"quay.io": {"auth": "…"}}}``). The value itself never appears in a message."""
    try:
        document = json.loads(value)
    except ValueError:
        document = None
    if not isinstance(document, dict) or not isinstance(document.get("auths"), dict):
        raise InvalidArgument(
            f"{path}: not a registry pull secret; expected a JSON object with an \"auths\" map "
            "(the content of a .dockerconfigjson)"
        )


def cluster_cidr(value: str, path: str) -> IPNetwork:
    """A pod or service CIDR: an IPv4 network written with its host bits zero."""
    parsed = validation.ipv4_network(value, path)
    assert parsed is not None
    return parsed


def cluster_network(pod_cidr: str, service_cidr: str, path: str) -> tuple[IPNetwork, IPNetwork]:
    """Both cluster CIDRs valid and disjoint (networking.md §7.3); ``path`` is the
    ``ClusterNetwork`` field (``spec.network``, ``spec_defaults.network``)."""
    pods = cluster_cidr(pod_cidr, f"{path}.pod_cidr")
    services = cluster_cidr(service_cidr, f"{path}.service_cidr")
    if validation.overlaps(pods, services):
        raise InvalidArgument(
            f"{path}.service_cidr: {services} overlaps {path}.pod_cidr ({pods}); pods and services need "
            "separate ranges"
        )
    return pods, services


def node_set_key(key: str, path: str) -> None:
    """Node-set keys name NodePools and node ports, so they are DNS labels."""
    if len(key) > 63 or not _DNS_LABEL.match(key):
        raise InvalidArgument(
            f"{path}: node set key '{key[:80]}' is invalid; use at most 63 lowercase letters, digits "
            "and '-', starting and ending with a letter or digit"
        )
