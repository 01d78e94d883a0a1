"""A cluster's access as a user finds it with the CLI (issue 17 item 5): ``describe cluster``
shows the external IPs of its API and ingress endpoints, ``osac get kubeconfig CLUSTER`` and
``osac get password CLUSTER`` print its credentials. A live server (reconcilers and the
simulator at instant speed) provisions the cluster and its automatic external access."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.cli.conftest import BackgroundServer, Osac

TENANT = "access"
OTHER = "elsewhere"
WAIT_SECONDS = 60.0


def _get(osac: Osac, kind: str, *args: str) -> dict[str, Any]:
    return json.loads(osac.ok("get", kind, *args, "-o", "json"))  # type: ignore[no-any-return]


def _wait_ready(osac: Osac, kind: str, name: str, *options: str) -> dict[str, Any]:
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        obj = _get(osac, kind, name, *options)
        if obj.get("status", {}).get("state", "").endswith("_STATE_READY"):
            return obj
        assert time.monotonic() < deadline, f"{kind} {name} did not become READY: {obj}"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackgroundServer]:
    running = BackgroundServer(tmp_path_factory.mktemp("osac-access"), live=True)
    running.start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def users(live: BackgroundServer, tmp_path_factory: pytest.TempPathFactory) -> tuple[Osac, Osac]:
    """Tenant admins of two tenants whose default networking is READY."""
    root = Osac(live, tmp_path_factory.mktemp("access-root") / "osac.yaml", CliRunner())
    root.login("provider-admin", user="root")
    _wait_ready(root, "network_class", "default", "--private")
    _wait_ready(root, "external_ip_pool", "public-v4", "--private")
    people = []
    for tenant, user in ((TENANT, "alice"), (OTHER, "bob")):
        root.ok("create", "tenant", "--name", tenant)
        _wait_ready(root, "tenant", tenant)
        person = Osac(live, tmp_path_factory.mktemp(f"access-{user}") / "osac.yaml", CliRunner())
        person.login("tenant-admin", tenant, user=user)
        people.append(person)
    return people[0], people[1]


def _describe_rows(osac: Osac, name: str) -> dict[str, str]:
    rows = {}
    for line in osac.ok("describe", "cluster", name).splitlines():
        label, colon, value = line.partition(":")
        if colon and not line.startswith(" ") and label not in rows:
            rows[label] = value.strip()
    return rows


def test_describe_shows_the_external_ips_and_get_prints_the_credentials(users: tuple[Osac, Osac]) -> None:
    alice, bob = users
    alice.ok("create", "cluster", "portal", "--template", "ocp-small", "--external-ip-attachment")
    alice.ok("wait", "cluster", "portal", "--for", "ready", "--timeout", "60s")
    cluster = _get(alice, "cluster", "portal")
    deadline = time.monotonic() + WAIT_SECONDS
    while True:  # the attachments follow the endpoints the cluster publishes
        attachments = [a for a in _get(alice, "external_ip_attachment")["items"]
                       if a["spec"].get("cluster") == cluster["id"]]
        if len(attachments) == 2 and all(a["status"].get("state", "").endswith("_READY") for a in attachments):
            break
        assert time.monotonic() < deadline, attachments
        time.sleep(0.05)
    by_endpoint = {a["spec"]["target_endpoint"].rsplit("_", 1)[1]: a["status"]["external_ip_address"] for a in attachments}

    rows = _describe_rows(alice, "portal")
    kubeconfig = alice.ok("get", "kubeconfig", "portal")
    password = alice.ok("get", "password", cluster["id"])

    assert rows["External API"] == by_endpoint["API"]
    assert rows["External Ingress"] == by_endpoint["INGRESS"]
    assert by_endpoint["API"] != by_endpoint["INGRESS"]
    assert cluster["status"]["api_endpoint"] in kubeconfig and "apiVersion: v1" in kubeconfig
    assert password.endswith("\n") and len(password.strip()) >= 8 and "\n" not in password.strip()
    # The same values as REST serves; another tenant cannot read them.
    stranger = bob("get", "kubeconfig", "portal")
    assert stranger.exit_code == 1
    assert stranger.stderr == "Error: NOT_FOUND: Cluster 'portal' not found\n"


def test_a_cluster_without_external_access_and_wrong_uses_of_get_credentials(users: tuple[Osac, Osac]) -> None:
    alice, _ = users
    alice.ok("create", "cluster", "plain", "--template", "ocp-small")
    rows = _describe_rows(alice, "plain")  # no external access asked for
    none = alice("get", "kubeconfig")
    two = alice("get", "kubeconfig", "plain", "portal")
    as_json = alice("get", "kubeconfig", "plain", "-o", "json")
    sorted_ = alice("get", "kubeconfig", "plain", "--sort-by", "name")
    private = alice("get", "password", "plain", "--private")

    assert rows["External API"] == "-" and rows["External Ingress"] == "-"
    usage = "Error: get kubeconfig takes exactly one cluster (id or name): osac get kubeconfig CLUSTER\n"
    assert none.exit_code == two.exit_code == 1 and none.stderr == two.stderr == usage
    misused = "Error: get kubeconfig prints the kubeconfig as it is; -o, --filter, --sort-by and --watch do not apply\n"
    assert as_json.stderr == sorted_.stderr == misused
    assert private.stderr == "Error: the password is served by the public API only; drop --private\n"


def test_credentials_wait_for_the_control_plane(tenant_admin: Osac) -> None:
    """Before its control plane was ever available (``cli_server`` runs no reconciler) a cluster
    has no credentials, and the CLI says so as the API does."""
    tenant_admin.ok("create", "cluster", "early", "--template", "ocp-small")
    for name in ("kubeconfig", "password"):
        result = tenant_admin("get", name, "early")
        assert result.exit_code == 1
        assert result.stderr == (f"Error: FAILED_PRECONDITION: Cluster 'early': the control plane has not been "
                                 f"available yet; the {name} is served once it is\n")
