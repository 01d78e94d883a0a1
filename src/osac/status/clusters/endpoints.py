"""API/console URLs and the VIP endpoints of a cluster (cluster-status.md §11).

These are published once and never cleared: a client that saw an API URL keeps a usable address
even while the control plane is briefly unreachable, and the external IP attachments that wait
for ``api_endpoint`` must not be torn down by a passing outage.
"""

from __future__ import annotations

from dataclasses import dataclass

from osac.status.clusters.health import api_address
from osac.status.clusters.signals import HostedClusterSignals
from osac.status.clusters.terms import STATE_READY
from osac.status.clusters.views import ClusterStatusView


@dataclass(frozen=True)
class Endpoints:
    api_url: str = ""
    console_url: str = ""
    api_endpoint: str = ""
    ingress_endpoint: str = ""


def derive_endpoints(
    previous: ClusterStatusView,
    hosted_cluster: HostedClusterSignals | None,
    is_control_plane_available: bool,
    state: int,
    reserved_vips: tuple[str, str] | None,
) -> Endpoints:
    """``api_url`` follows the HostedCluster's endpoint while the control plane is available;
    the VIPs reserved at create are published with the first available control plane; the
    console URL appears with READY."""
    api_url = previous.api_url
    if is_control_plane_available and hosted_cluster is not None and hosted_cluster.endpoint_host:
        api_url = f"https://{api_address(hosted_cluster.endpoint_host, hosted_cluster.endpoint_port)}"
    api_endpoint, ingress_endpoint = previous.api_endpoint, previous.ingress_endpoint
    if is_control_plane_available and not api_endpoint and reserved_vips is not None:
        api_endpoint, ingress_endpoint = reserved_vips
    console_url = previous.console_url
    if (not console_url and state == STATE_READY and hosted_cluster is not None
            and hosted_cluster.name and hosted_cluster.base_domain):
        console_url = (
            f"https://console-openshift-console.apps.{hosted_cluster.name}.{hosted_cluster.base_domain}"
        )
    return Endpoints(api_url, console_url, api_endpoint, ingress_endpoint)
