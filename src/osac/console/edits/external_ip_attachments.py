"""An external IP attached and detached on its page: a Create of an ExternalIPAttachment naming
the IP and the chosen workload (a VM, a cluster endpoint or a bare-metal instance), and a Delete
of one of the IP's attachments.

Both are the API's calls as the signed-in caller, so the API's rules hold: the target must be
of the IP's tenant and live, the IP allocated and used by nothing else, a cluster needs an
endpoint and nothing else takes one, one attachment per target (and endpoint). A refusal is shown
on the page beside the form, with the server's message naming the field and the choice kept.
"""

from __future__ import annotations

from starlette.responses import Response

from osac.api.private.v1.external_ip_attachment_type_pb2 import (
    ExternalIPAttachment,
    ExternalIPAttachmentEndpoint,
)
from osac.api.public.v1.external_ip_attachment_type_pb2 import (
    ExternalIPAttachment as PublicExternalIPAttachment,
)
from osac.console import network_detail, networking, pages
from osac.console.security import form_fields
from osac.model.shape import as_kind, metadata_of
from osac.services.core.errors import InvalidArgument, NotFound, ServiceError

COLLECTION = "external-ips"


def _address_id(visit: pages.Visit) -> str:
    """:raises NotFound: the page is not an external IP's."""
    if visit.request.path_params["collection"] != COLLECTION:
        raise NotFound(f"no page at {visit.request.url.path}; only external IPs have attachments")
    return str(visit.request.path_params["id"])


def _fill(attachment: ExternalIPAttachment, form: dict[str, str]) -> None:
    """The target (``compute_instance:<id>``, ``cluster:<id>``, ``baremetal_instance:<id>``) and
    endpoint the form chose; whether they fit each other is the server's to say.

    :raises InvalidArgument: an unknown kind of target or endpoint."""
    which, _, target = form.get("target", "").partition(":")
    if which not in networking.ATTACHMENT_TARGETS or not target:
        raise InvalidArgument(f"target: '{form.get('target', '')}' is not a workload; choose a VM, cluster "
                              "or bare-metal instance of the external IP's tenant")
    setattr(attachment.spec, which, target)
    endpoint = form.get("endpoint", "")
    if endpoint not in network_detail.ENDPOINTS:
        raise InvalidArgument(f"endpoint: '{endpoint}' is not a cluster endpoint; use api or ingress (or none)")
    attachment.spec.target_endpoint = ExternalIPAttachmentEndpoint.ValueType(network_detail.ENDPOINTS[endpoint][0])


async def attach(visit: pages.Visit) -> Response:
    """Create the attachment in the IP's tenant (a provider admin's page shows every tenant's IPs)."""
    address_id = _address_id(visit)
    address = await visit.reads.get("external_ip", address_id)  # another tenant's: not found
    form = await form_fields(visit.request)
    service = visit.reads.deps.services["external_ip_attachment"]
    attachment = as_kind(service.kind.private_class()(), ExternalIPAttachment)
    attachment.metadata.tenant = metadata_of(address).tenant
    attachment.spec.external_ip = address_id
    try:
        _fill(attachment, form)
        await service.create(visit.caller, attachment)
    except ServiceError as error:
        return await pages.network_page(visit, error=error.message, values=form, status=error.http_status)
    return pages.back_to(f"/networking/{COLLECTION}/{address_id}", "Attachment requested")


async def detach(visit: pages.Visit) -> Response:
    """Delete the attachment the form names, which must be one of this IP's."""
    address_id = _address_id(visit)
    form = await form_fields(visit.request)
    attachment_id = form.get("attachment", "")
    service = visit.reads.deps.services["external_ip_attachment"]
    try:
        attachment = as_kind(await visit.reads.get("external_ip_attachment", attachment_id),
                             PublicExternalIPAttachment)
        if attachment.spec.external_ip != address_id:
            raise NotFound(f"ExternalIPAttachment '{attachment_id}' is not an attachment of ExternalIP '{address_id}'")
        await service.delete(visit.caller, attachment_id)
    except ServiceError as error:
        return await pages.network_page(visit, error=error.message, values=form, status=error.http_status)
    return pages.back_to(f"/networking/{COLLECTION}/{address_id}", "Detach requested")
