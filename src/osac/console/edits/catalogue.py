"""The provider admin's edits of the catalogue: the fields that the private API lets an admin
change of a host type, a network class, a tenant (its e-mail domains) and a cluster template (its
title and description), on the object's page under ``/admin/``; host types and network classes
are also created from their list and deleted after a confirmation.

Each edit is the Update the private API serves (``osac --private update``): the fields the form
holds are the update mask, and the version the page was read at is the version lock, so an edit
made meanwhile is never overwritten (409, the server's message). A create is the private API's
Create of an object filled by the same form plus the fields fixed at create (the name, a network
class's managers); a delete is its Delete, refused by the server while the object is in use
(naming the dependents). The server validates as for the API and names the field; the page shows
its message with the values entered kept. Only provider admins have these pages: anyone else
gets 404, as for the catalogue lists.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from google.protobuf.message import Message
from starlette.responses import Response

from osac.api.private.v1.cluster_template_type_pb2 import ClusterTemplate
from osac.api.private.v1.host_type_type_pb2 import HostType
from osac.api.private.v1.network_class_type_pb2 import NetworkClass
from osac.api.private.v1.tenant_type_pb2 import Tenant
from osac.console import catalogue, pages
from osac.console.security import form_fields
from osac.model.shape import as_kind, id_of, metadata_of
from osac.services.core.errors import InvalidArgument, NotFound, ServiceError

CHECKED = "on"


@dataclass(frozen=True)
class EditField:
    """One field of an edit form: ``input`` is text, lines (a text area) or check (a checkbox)."""

    name: str
    text: str
    input: str = "text"
    help: str = ""
    placeholder: str = ""


@dataclass(frozen=True)
class CatalogueForm:
    kind: str
    noun: str
    fields: tuple[EditField, ...]
    #: The form's values of a stored object.
    values: Callable[[Message], dict[str, str]]
    #: Apply the submitted values to (a copy of) the stored object; the update mask.
    #: :raises InvalidArgument: a value the console cannot read, naming the field.
    fill: Callable[[Message, Mapping[str, str]], list[str]]
    #: The fields only a create form holds, after the name: string fields of the message that
    #: cannot change afterwards.
    create_fields: tuple[EditField, ...] = ()

    @property
    def title_noun(self) -> str:
        return f"{self.noun[:1].upper()}{self.noun[1:]}"


# -- host types ------------------------------------------------------------------------------------


def _host_type_values(obj: Message) -> dict[str, str]:
    host_type = as_kind(obj, HostType)
    lines = [" ".join(part for part in (i.name, i.role, i.description) if part) for i in host_type.interfaces]
    return {"title": host_type.title, "description": host_type.description, "interfaces": "\n".join(lines)}


def _fill_host_type(obj: Message, form: Mapping[str, str]) -> list[str]:
    """``interfaces``: one a line, ``name role description``, in order."""
    host_type = as_kind(obj, HostType)
    host_type.title = form.get("title", "").strip()
    host_type.description = form.get("description", "").strip()
    del host_type.interfaces[:]
    for number, line in enumerate((line for line in form.get("interfaces", "").splitlines() if line.strip()), 1):
        name, _, rest = line.strip().partition(" ")
        role, _, description = rest.strip().partition(" ")
        if not role:
            raise InvalidArgument(f"interfaces: line {number} ('{line.strip()}') names no role; write one interface "
                                  "a line as 'name role description' (roles: fabric, management, storage, lifecycle)")
        host_type.interfaces.add(name=name, role=role, description=description.strip())
    return ["title", "description", "interfaces"]


# -- network classes -------------------------------------------------------------------------------

DEFAULTS = "spec.defaults"


def _network_class_values(obj: Message) -> dict[str, str]:
    cls = as_kind(obj, NetworkClass)
    defaults = cls.spec.defaults
    return {"title": cls.title, "description": cls.description, "is_default": CHECKED if cls.is_default else "",
            "vip_prefix_length": str(cls.spec.vip_prefix_length or ""),
            "virtual_network_ipv4_cidr": defaults.virtual_network_ipv4_cidr,
            "subnet_ipv4_cidr": defaults.subnet_ipv4_cidr,
            "enable_nat_gateway": CHECKED if defaults.enable_nat_gateway else ""}


def _fill_network_class(obj: Message, form: Mapping[str, str]) -> list[str]:
    """The tenant defaults' fields join the mask only when the class has defaults or the form
    gives a CIDR: empty ones would otherwise create defaults the server must refuse."""
    cls = as_kind(obj, NetworkClass)
    cls.title = form.get("title", "").strip()
    cls.description = form.get("description", "").strip()
    cls.is_default = form.get("is_default") == CHECKED
    vip = form.get("vip_prefix_length", "").strip()
    if vip and not vip.isdigit():
        raise InvalidArgument(f"spec.vip_prefix_length: '{vip}' is not a whole number; use 1-30 (empty: 28)")
    cls.spec.vip_prefix_length = int(vip or 0)
    mask = ["title", "description", "is_default", "spec.vip_prefix_length"]
    cidrs = {name: form.get(name, "").strip() for name in ("virtual_network_ipv4_cidr", "subnet_ipv4_cidr")}
    if cls.spec.HasField("defaults") or any(cidrs.values()):
        defaults = cls.spec.defaults
        defaults.virtual_network_ipv4_cidr = cidrs["virtual_network_ipv4_cidr"]
        defaults.subnet_ipv4_cidr = cidrs["subnet_ipv4_cidr"]
        defaults.enable_nat_gateway = form.get("enable_nat_gateway") == CHECKED
        mask += [f"{DEFAULTS}.{name}" for name in (*cidrs, "enable_nat_gateway")]
    return mask


# -- tenants and cluster templates -----------------------------------------------------------------


def _tenant_values(obj: Message) -> dict[str, str]:
    return {"domains": "\n".join(as_kind(obj, Tenant).spec.domains)}


def _fill_tenant(obj: Message, form: Mapping[str, str]) -> list[str]:
    """``domains``: one a line."""
    spec = as_kind(obj, Tenant).spec
    del spec.domains[:]
    spec.domains.extend(line.strip() for line in form.get("domains", "").splitlines() if line.strip())
    return ["spec.domains"]


def _cluster_template_values(obj: Message) -> dict[str, str]:
    template = as_kind(obj, ClusterTemplate)
    return {"title": template.title, "description": template.description}


def _fill_cluster_template(obj: Message, form: Mapping[str, str]) -> list[str]:
    template = as_kind(obj, ClusterTemplate)
    template.title = form.get("title", "").strip()
    template.description = form.get("description", "").strip()
    return ["title", "description"]


TITLE = EditField("title", "Title")
DESCRIPTION = EditField("description", "Description", "lines")

FORMS: dict[str, CatalogueForm] = {
    "host-types": CatalogueForm("host_type", "host type", (
        TITLE, DESCRIPTION,
        EditField("interfaces", "Interfaces", "lines", placeholder="ens1f0 fabric Tenant network port 0",
                  help="One a line, in order: name, role (fabric, management, storage or lifecycle: PXE/BMC, "
                       "never attached), description. A host type with a lifecycle interface is bare metal. "
                       "Instances and node sets already made keep the interface they stored."),
    ), _host_type_values, _fill_host_type),
    "network-classes": CatalogueForm("network_class", "network class", (
        TITLE, DESCRIPTION,
        EditField("is_default", "The default class (setting it moves the flag from the current default)", "check"),
        EditField("vip_prefix_length", "VIP range prefix length of new subnets", placeholder="28",
                  help="1-30; empty: 28."),
        EditField("virtual_network_ipv4_cidr", "Tenant defaults: virtual network IPv4 CIDR", placeholder="10.0.0.0/16",
                  help="The default networking made with each new tenant (never retroactive)."),
        EditField("subnet_ipv4_cidr", "Tenant defaults: subnet IPv4 CIDR", placeholder="10.0.0.0/20"),
        EditField("enable_nat_gateway", "Tenant defaults: a NAT gateway and its external IP", "check"),
    ), _network_class_values, _fill_network_class, (
        EditField("fabric_manager", "Fabric manager", placeholder="sim-fabric",
                  help="A registered fabric manager; it cannot change afterwards."),
        EditField("k8s_manager", "Kubernetes network manager", placeholder="sim-k8s",
                  help="A registered k8s manager; empty: bare metal only (no VMs or hosted control planes). "
                       "It cannot change afterwards."),
    )),
    "tenants": CatalogueForm("tenant", "tenant", (
        EditField("domains", "E-mail domains", "lines", placeholder="example.com",
                  help="One a line; a domain belongs to one tenant only."),
    ), _tenant_values, _fill_tenant),
    "cluster-templates": CatalogueForm("cluster_template", "cluster template", (TITLE, DESCRIPTION),
                                       _cluster_template_values, _fill_cluster_template),
}

NAME = EditField("name", "Name")


def _form_of(visit: pages.Visit, creating: bool = False) -> CatalogueForm:
    """:raises NotFound: for anyone but a provider admin, and for a kind without an edit form
    (``creating``: without a create and delete)."""
    which = visit.request.path_params["which"]
    form = FORMS.get(which)
    if form is None or not visit.is_admin or (creating and not catalogue.VIEWS[which].creatable):
        raise NotFound(f"no page at {visit.request.url.path}")
    return form


async def edit_page(visit: pages.Visit, error: str = "", values: dict[str, str] | None = None,
                    status: int = 200) -> Response:
    form = _form_of(visit)
    obj = await visit.reads.get(form.kind, visit.request.path_params["id"])
    name = metadata_of(obj).name
    shown = values if values is not None else {**form.values(obj), "version": str(metadata_of(obj).version)}
    return _form_page(visit, form, f"Edit {form.noun} {name}", f"/{id_of(obj)}", form.fields, error, shown, status)


async def create_page(visit: pages.Visit, error: str = "", values: dict[str, str] | None = None,
                      status: int = 200) -> Response:
    form = _form_of(visit, creating=True)
    return _form_page(visit, form, f"Create a {form.noun}", "/new", (NAME, *form.create_fields, *form.fields), error,
                      values or {}, status)


def _form_page(visit: pages.Visit, form: CatalogueForm, title: str, action: str, fields: tuple[EditField, ...],
               error: str, values: dict[str, str], status: int) -> Response:
    """The form of an edit (``action`` the object's id, with the version lock) or a create."""
    back = f"/admin/{visit.request.path_params['which']}"
    return visit.page("catalogue_edit.html", title=title, fields=fields, action=back + action, back=back,
                      is_edit=action != "/new", error=error, values=values, status=status)


async def update(visit: pages.Visit) -> Response:
    form = _form_of(visit)
    values = await form_fields(visit.request)
    service = visit.reads.deps.services[form.kind]
    try:
        stored = await service.get(visit.caller, visit.request.path_params["id"])
        mask = form.fill(stored, values)
        version = values.get("version", "")
        metadata_of(stored).version = int(version) if version.isdigit() else 0
        await service.update(visit.caller, stored, mask, lock=True)
    except ServiceError as error:
        return await edit_page(visit, error.message, values, error.http_status)
    return pages.back_to(f"/admin/{visit.request.path_params['which']}", f"{form.title_noun} {metadata_of(stored).name} saved")


async def create(visit: pages.Visit) -> Response:
    form = _form_of(visit, creating=True)
    values = await form_fields(visit.request)
    service = visit.reads.deps.services[form.kind]
    obj = pages.new_from_form(service, values)
    try:
        for field in form.create_fields:
            setattr(obj, field.name, values.get(field.name, "").strip())
        form.fill(obj, values)
        await service.create(visit.caller, obj)
    except ServiceError as error:
        return await create_page(visit, error.message, values, error.http_status)
    return pages.back_to(f"/admin/{visit.request.path_params['which']}", f"{form.title_noun} {metadata_of(obj).name} created")


async def confirm_delete(visit: pages.Visit) -> Response:
    form = _form_of(visit, creating=True)
    which = f"admin/{visit.request.path_params['which']}"
    obj = await visit.reads.get(form.kind, visit.request.path_params["id"])
    return pages.delete_confirmation(visit, obj, which, form.noun, f"/{which}")


async def delete(visit: pages.Visit) -> Response:
    """The private API's Delete; a refusal (the object in use) is the server's message, naming
    the dependents, on the error page with its status."""
    form = _form_of(visit, creating=True)
    service = visit.reads.deps.services[form.kind]
    obj = await service.get(visit.caller, visit.request.path_params["id"])
    await service.delete(visit.caller, id_of(obj))
    return pages.back_to(f"/admin/{visit.request.path_params['which']}",
                         f"{form.title_noun} {metadata_of(obj).name} deleted")
