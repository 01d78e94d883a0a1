"""The console's pages: each reads through ``Reads`` as the signed-in caller and renders a template.

Handlers take a ``Visit`` (the request, the session, the caller, the template renderer) and return
a response; errors of the service layer propagate to ``app``, which renders them with the API's
status code and message (another tenant's id: 404, as in the API).

What ``Reads`` returns is taken as the kind's public class (a provider admin reads the private
messages, which have every field of the public ones); what the services return for a write, and
a new object, as the private class.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from google.protobuf.message import Message
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from osac.api.private.v1.bare_metal_instance_type_pb2 import BareMetalInstance as PrivateBareMetalInstance
from osac.api.private.v1.cluster_type_pb2 import Cluster as PrivateCluster
from osac.api.private.v1.compute_instance_type_pb2 import ComputeInstance as PrivateComputeInstance
from osac.api.private.v1.lifecycle_event_type_pb2 import LifecycleEvent
from osac.api.public.v1.bare_metal_instance_type_pb2 import BareMetalInstance
from osac.api.public.v1.cluster_template_type_pb2 import ClusterTemplate
from osac.api.public.v1.cluster_type_pb2 import Cluster
from osac.api.public.v1.compute_instance_type_pb2 import ComputeInstance
from osac.api.public.v1.external_ip_attachment_type_pb2 import ExternalIPAttachment, ExternalIPAttachmentSpec
from osac.api.public.v1.external_ip_type_pb2 import ExternalIP
from osac.api.public.v1.host_type_type_pb2 import HostType
from osac.auth import policy
from osac.console import (
    catalogue,
    cluster_fields,
    clusters,
    compute,
    counts,
    network_choice,
    network_detail,
    networking,
)
from osac.console.labels import (
    BARE_METAL_STATE_NAMES,
    BARE_METAL_STATES,
    CLUSTER_STATE_NAMES,
    CLUSTER_STATES,
    COMPUTE_STATE_NAMES,
    COMPUTE_STATES,
)
from osac.console.reads import Listing, Reads
from osac.console.security import form_fields
from osac.console.sessions import Session
from osac.console.tables import CREATED, Pagination, TableQuery, cel_string, parse_query
from osac.model.kinds import Method
from osac.model.shape import as_kind, id_of, metadata_of
from osac.services.baremetal.interfaces import is_bare_metal
from osac.services.clusters.spec_rules import DEFAULT_POD_CIDR, DEFAULT_SERVICE_CIDR
from osac.services.core import access
from osac.services.core.context import Caller
from osac.services.core.errors import InvalidArgument, NotFound, PermissionDenied, ServiceError
from osac.services.core.generic import KindService

STALLED_FILTER = "this.status.conditions.exists(c, c.type == 1 && c.reason == 'Stalled')"
STAGE_UNKNOWN_FILTER = "this.status.conditions.exists(c, c.type == 1 && c.reason == 'StageUnknown')"
DEGRADED_FILTER = "this.status.conditions.exists(c, c.type == 4 && c.status == CONDITION_STATUS_TRUE)"

Render = Callable[..., Response]


@dataclass
class Visit:
    request: Request
    session: Session
    caller: Caller
    reads: Reads
    render: Render
    now: datetime

    @property
    def is_admin(self) -> bool:
        return self.caller.subject.is_provider_admin

    def page(self, template: str, **context: Any) -> Response:
        return self.render(template, self, **context)

    def allows(self, kind: str, method: Method | policy.Method, obj: Message | None = None) -> bool:
        """Whether the API would let the caller do ``method`` (on ``obj``): a page never offers
        what the API would refuse."""
        return not self.refusal(kind, method, obj)

    def refusal(self, kind: str, method: Method | policy.Method, obj: Message | None = None) -> str:
        """The API's refusal of ``method`` (on ``obj``) for the caller, or "" when it is allowed.
        A Create needs a tenant the caller may create objects in, besides the role."""
        labels = dict(metadata_of(obj).labels) if obj is not None else None
        tenant = metadata_of(obj).tenant if obj is not None else None
        try:
            access.authorize(self.caller, kind, method, labels=labels, tenant=tenant)
            if method is Method.CREATE:
                access.creation_tenant(self.caller, None)
        except PermissionDenied as error:
            return error.message
        return ""


Handler = Callable[[Visit], Awaitable[Response]]


# -- overview --------------------------------------------------------------------------------------


async def overview(visit: Visit) -> Response:
    reads = visit.reads
    events = await reads.events(newest=10)
    groups = (await reads.stage_counts()).groups
    clusters = counts.per_state(groups)
    machines = await reads.counts_by_state("compute_instance")
    metal = await reads.counts_by_state("bare_metal_instance")
    by_state = {
        "Clusters": [(CLUSTER_STATES[n].text, clusters.get(n, 0)) for n in CLUSTER_STATES],
        "Virtual machines": [(COMPUTE_STATES[n].text, machines.get(n, 0)) for n in COMPUTE_STATES],
        "Bare metal": [(BARE_METAL_STATES[n].text, metal.get(n, 0)) for n in BARE_METAL_STATES],
    }
    stages = counts.count_row("", groups, (), counts.stage_columns(groups)).by_stage
    needing = counts.attention(groups)
    attention = [(label, needing[label], href) for label, href in (
        ("Stalled", "/admin/stalled"), ("Degraded", "/admin/degraded"), ("Stage unknown", "/admin/stage-unknown"))]
    return visit.page("overview.html", title="Overview", counts=by_state, stages=stages, attention=attention,
                      events=[_event_row(e, visit.now) for e in events.items], revision=events.revision,
                      live_kinds=("cluster", "compute_instance", "bare_metal_instance"))


def _event_row(message: Message, now: datetime) -> dict[str, Any]:
    event = as_kind(message, LifecycleEvent)
    return {
        "moment": clusters.Moment.of(event.timestamp if event.HasField("timestamp") else None, now),
        "type": {1: "Normal", 2: "Warning"}.get(event.type, str(event.type)),
        "reason": event.reason,
        "message": event.message,
        "object_type": event.object_type,
        "object_id": event.object_id,
        "tenant": event.tenant,
    }


# -- lists -----------------------------------------------------------------------------------------


def _state_filter(query: TableQuery, names: dict[str, int], enum_prefix: str) -> list[str]:
    state = query.filters.get("state")
    if not state:
        return []
    if state not in names:
        raise InvalidArgument(f"state: '{state}' is not a state; use one of {', '.join(names)}")
    return [f"this.status.state == {enum_prefix}{state}"]


def _common_filters(visit: Visit, query: TableQuery) -> list[str]:
    found = []
    if query.filters.get("name"):
        found.append(f"this.metadata.name.contains({cel_string(query.filters['name'])})")
    if query.filters.get("tenant"):
        if not visit.is_admin:
            raise InvalidArgument("tenant: filtering by tenant is for provider admins; you see your tenants only")
        found.append(f"this.metadata.tenant == {cel_string(query.filters['tenant'])}")
    return found


#: The columns the database sorts (the API's List ``order``), with the fields they sort by; ties
#: go by id. The other columns (tenant, stage, health, addresses ...) are read whole and sorted here.
DATABASE_ORDERS: dict[str, tuple[str, ...]] = {
    CREATED: ("metadata.creation_timestamp",),
    "name": ("metadata.name",),
    "state": ("status.state", "metadata.name"),
}


def database_order(query: TableQuery) -> str | None:
    """The List ``order`` of the view's sort, "" for the creation order, None when the database
    cannot sort by that column."""
    fields = DATABASE_ORDERS.get(query.sort)
    if fields is None:
        return None
    if query.sort == CREATED and not query.descending:
        return ""  # the ids are in creation order: the primary key pages it
    return ", ".join(field + (" desc" if query.descending else "") for field in fields)


async def _listing(visit: Visit, kind: str, query: TableQuery, expression: str,
                   key: Callable[[Any], Any], rows: Callable[[list[Message]], list[Any]]) -> tuple[list[Any], Listing]:
    """One page of rows: sorted and paged by the database when it can sort by the column, else
    read whole and sorted here."""
    order = database_order(query)
    if order is not None:
        listing = await visit.reads.page(kind, offset=query.offset, limit=query.per_page, filter=expression,
                                         order=order)
        return rows(listing.items), listing
    listing = await visit.reads.all(kind, expression)
    ordered = sorted(rows(listing.items), key=key, reverse=query.descending)
    return ordered[query.offset:query.offset + query.per_page], listing


CLUSTER_SORTS = ("name", "tenant", "state", "stage", "health", "api_url", CREATED)


def _cluster_key(sort: str) -> Callable[[clusters.ClusterRow], Any]:
    """The in-server sort of the columns the database does not sort (``DATABASE_ORDERS``)."""
    if sort in ("stage", "health"):
        return lambda row: (getattr(row, sort).text, row.name)
    return lambda row: (getattr(row, sort), row.id)


async def cluster_list(visit: Visit) -> Response:
    query = parse_query(visit.request.query_params, CLUSTER_SORTS, ("name", "state", "tenant"))
    expression = " && ".join(_common_filters(visit, query)
                             + _state_filter(query, CLUSTER_STATE_NAMES, "CLUSTER_STATE_"))
    now = visit.now
    rows, listing = await _listing(visit, "cluster", query, expression, _cluster_key(query.sort),
                                   lambda items: [clusters.cluster_row(as_kind(c, Cluster), now) for c in items])
    return visit.page("clusters.html", title="Clusters", rows=rows, query=query,
                      pager=Pagination(query.page, query.per_page, listing.total), revision=listing.revision,
                      states=CLUSTER_STATE_NAMES, state_labels=CLUSTER_STATES, live_kinds=("cluster",),
                      can_create=visit.allows("cluster", Method.CREATE))


VM_SORTS = ("name", "tenant", "state", "template", "internal_ip", "external_ip", CREATED)


def _vm_key(sort: str) -> Callable[[compute.VmRow], Any]:
    """The in-server sort of the columns the database does not sort (``DATABASE_ORDERS``)."""
    return lambda row: (getattr(row, sort), row.id)


async def vm_list(visit: Visit) -> Response:
    query = parse_query(visit.request.query_params, VM_SORTS, ("name", "state", "tenant"))
    expression = " && ".join(_common_filters(visit, query)
                             + _state_filter(query, COMPUTE_STATE_NAMES, "COMPUTE_INSTANCE_STATE_"))
    now = visit.now
    templates = {id_of(t): metadata_of(t).name for t in (await visit.reads.all("compute_instance_template")).items}
    rows, listing = await _listing(visit, "compute_instance", query, expression, _vm_key(query.sort),
                                   lambda items: [compute.vm_row(as_kind(vm, ComputeInstance), now, templates)
                                                  for vm in items])
    return visit.page("vms.html", title="Virtual machines", rows=rows, query=query,
                      pager=Pagination(query.page, query.per_page, listing.total), revision=listing.revision,
                      states=COMPUTE_STATE_NAMES, state_labels=COMPUTE_STATES, live_kinds=("compute_instance",),
                      can_create=visit.allows("compute_instance", Method.CREATE))


BARE_METAL_SORTS = ("name", "tenant", "state", "host_type", "addresses", CREATED)


def _bare_metal_key(sort: str) -> Callable[[compute.BareMetalRow], Any]:
    """The in-server sort of the columns the database does not sort (``DATABASE_ORDERS``)."""
    return lambda row: (getattr(row, sort), row.id)


async def _host_type_names(visit: Visit) -> dict[str, str]:
    """Host type names by id and by name (``spec.host_type`` may name either)."""
    names: dict[str, str] = {}
    for host_type in (await visit.reads.all("host_type")).items:
        name = metadata_of(host_type).name
        names[id_of(host_type)] = names[name] = name
    return names


async def bare_metal_list(visit: Visit) -> Response:
    query = parse_query(visit.request.query_params, BARE_METAL_SORTS, ("name", "state", "tenant"))
    expression = " && ".join(_common_filters(visit, query)
                             + _state_filter(query, BARE_METAL_STATE_NAMES, "BARE_METAL_INSTANCE_STATE_"))
    now = visit.now
    host_types = await _host_type_names(visit)
    rows, listing = await _listing(visit, "bare_metal_instance", query, expression, _bare_metal_key(query.sort),
                                   lambda items: [compute.bare_metal_row(as_kind(b, BareMetalInstance), now, host_types)
                                                  for b in items])
    return visit.page("baremetal_list.html", title="Bare-metal instances", rows=rows, query=query,
                      pager=Pagination(query.page, query.per_page, listing.total), revision=listing.revision,
                      states=BARE_METAL_STATE_NAMES, state_labels=BARE_METAL_STATES,
                      live_kinds=("bare_metal_instance",), can_create=visit.allows("bare_metal_instance", Method.CREATE))


def _network_view(visit: Visit) -> networking.NetworkView:
    collection = visit.request.path_params["collection"]
    view = networking.VIEWS.get(collection)
    if view is None:
        raise NotFound(f"no networking page '{collection}'; there are {', '.join(networking.VIEWS)}")
    return view


async def _referred_names(visit: Visit, refs: Mapping[str, Callable[[Message], Sequence[str]]],
                          items: list[Message]) -> dict[str, dict[str, str]]:
    """The names of the objects ``items`` name (``refs``: the ids each names, by kind)."""
    return {kind: await visit.reads.names(kind, [i for item in items for i in ids_of(item)])
            for kind, ids_of in refs.items()}


async def _network_names(visit: Visit, view: networking.NetworkView, items: list[Message]) -> networking.Names:
    names = await _referred_names(visit, view.refs, items)
    if view.kind == "external_ip":
        names["attached"] = await _attached_to(visit, {id_of(item) for item in items})
    return names


async def _attached_to(visit: Visit, address_ids: set[str]) -> dict[str, str]:
    """What each external IP is attached to (``VM web-vm``), from the caller's attachments."""
    targets: dict[str, tuple[str, str]] = {}
    for attachment in (await visit.reads.all("external_ip_attachment")).items:
        spec = as_kind(attachment, ExternalIPAttachment).spec
        target = _target_of(spec)
        if spec.external_ip in address_ids and target is not None:
            targets[spec.external_ip] = target
    texts = await _target_texts(visit, targets.values())
    return {address: texts[target] for address, target in targets.items()}


def _target_of(spec: ExternalIPAttachmentSpec) -> tuple[str, str] | None:
    """An attachment's ``spec.target`` as (its field, the target's id); None when it has none."""
    which = spec.WhichOneof("target")
    return None if which is None else (which, getattr(spec, which))


async def _target_texts(visit: Visit, targets: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """How a page names each attachment target (``VM web-vm``; the id of one the caller cannot see)."""
    wanted = set(targets)
    found: dict[tuple[str, str], str] = {}
    for which, noun in networking.ATTACHMENT_TARGETS.items():
        names = await visit.reads.names(networking.TARGET_KINDS[which], [t for w, t in wanted if w == which])
        found.update({(which, target): f"{noun} {names.get(target, target)}" for w, target in wanted if w == which})
    return found


async def _external_ip_attachments(visit: Visit, address: Message) -> dict[str, Any]:
    """An external IP page's attachments, whether it offers the attach form (the API would allow a
    Create and the IP is allocated and used by nothing) and the targets that form offers: the
    workloads of the IP's tenant the caller sees."""
    listing = await visit.reads.all("external_ip_attachment", f"this.spec.external_ip == {cel_string(id_of(address))}")
    attachments = [as_kind(a, ExternalIPAttachment) for a in listing.items]
    texts = await _target_texts(visit, [t for a in attachments if (t := _target_of(a.spec)) is not None])
    rows = [network_detail.attachment_row(a, texts.get(_target_of(a.spec) or ("", ""), "-"),
                                          visit.allows("external_ip_attachment", Method.DELETE, a))
            for a in attachments]
    status = as_kind(address, ExternalIP).status
    can_attach = (not attachments and not status.attached and status.state == networking.EXTERNAL_IP_ALLOCATED
                  and visit.allows("external_ip_attachment", Method.CREATE))
    targets: list[tuple[str, str]] = []
    if can_attach:
        same_tenant = f"this.metadata.tenant == {cel_string(metadata_of(address).tenant)}"
        for which, noun in networking.ATTACHMENT_TARGETS.items():
            workloads = (await visit.reads.all(networking.TARGET_KINDS[which], same_tenant)).items
            targets += sorted((f"{which}:{id_of(w)}", f"{noun} {metadata_of(w).name}") for w in workloads)
    return {"attachments": rows, "can_attach": can_attach, "targets": targets,
            "endpoints": [(name, text) for name, (_, text) in network_detail.ENDPOINTS.items()]}


NETWORK_SORTS = ("name", "tenant", "state", CREATED)


async def network_list(visit: Visit) -> Response:
    view = _network_view(visit)
    query = parse_query(visit.request.query_params, NETWORK_SORTS, ("name", "state", "tenant"))
    expression = " && ".join(_common_filters(visit, query)
                             + _state_filter(query, view.state_names, view.state_prefix))
    items, listing = await _listing(visit, view.kind, query, expression,  # tenant: sorted here, then by name
                                    lambda o: (metadata_of(o).tenant, metadata_of(o).name, id_of(o)), list)
    names = await _network_names(visit, view, items)
    deletable = {id_of(o) for o in items if visit.allows(view.kind, Method.DELETE, o)}
    return visit.page("network_list.html", title=view.title, view=view,
                      rows=[view.build(o, names) for o in items], deletable=deletable,
                      can_create=view.fill is not None and visit.allows(view.kind, Method.CREATE),
                      query=query, pager=Pagination(query.page, query.per_page, listing.total),
                      revision=listing.revision, live_kinds=view.live_kinds, notice=visit.request.query_params.get("notice"))


async def network_form(visit: Visit, error: str = "", values: dict[str, str] | None = None,
                       status: int = 200) -> Response:
    view = _network_view(visit)
    if view.fill is None:
        raise NotFound(f"{view.title.lower()} are not created in the console")
    choices: dict[str, list[tuple[str, str]]] = {}
    for item in view.form:
        if item.choices_of:
            objects = (await visit.reads.all(item.choices_of)).items
            choices[item.name] = sorted(((id_of(o), metadata_of(o).name) for o in objects), key=lambda c: c[1])
        else:
            choices[item.name] = list(item.choices)
    return _form_page(visit, "network_new.html", f"Create a {view.noun}", error, values, status,
                      view=view, choices=choices)


async def new_network(visit: Visit) -> Response:
    return await network_form(visit)


async def create_network(visit: Visit) -> Response:
    view = _network_view(visit)
    if view.fill is None:
        raise NotFound(f"{view.title.lower()} are not created in the console")
    form = await _form(visit)
    service = visit.reads.deps.services[view.kind]
    obj = new_from_form(service, form)
    try:
        view.fill(obj, form)
        await service.create(visit.caller, obj)
    except ServiceError as error:
        return await network_form(visit, error.message, form, error.http_status)
    return back_to(f"/networking/{view.collection}", f"{view.noun[:1].upper()}{view.noun[1:]} {metadata_of(obj).name} created")


# -- details ---------------------------------------------------------------------------------------


async def network_page(visit: Visit, error: str = "", values: dict[str, str] | None = None,
                       status: int = 200) -> Response:
    """A networking object: its cells as in the list (references linked), state and message,
    what belongs to it (a network's subnets, groups and NAT gateways; a subnet's workloads; a
    group's rules, with their edit form) as the caller's own reads find them, and its events;
    again with an edit's refusal and the values entered."""
    view = _network_view(visit)
    object_id = visit.request.path_params["id"]
    events = await visit.reads.events(f"this.object_id == {cel_string(object_id)}", newest=10)
    obj: Any = await visit.reads.get(view.kind, object_id)
    row = view.build(obj, await _network_names(visit, view, [obj]))
    summary: list[tuple[str, Any, str]] = [("ID", row.id, ""), ("Name", row.name, ""), ("Tenant", row.tenant, "")]
    summary += [(column, cell, href) for column, cell, href in zip(view.columns, row.cells, row.links, strict=True)]
    children = []
    if view.kind == "virtual_network":
        for kind_name, path in network_detail.NETWORK_CHILDREN:
            child = networking.VIEWS_BY_KIND[kind_name]
            items = (await visit.reads.all(child.kind, f"this.{path} == {cel_string(object_id)}")).items
            names = await _network_names(visit, child, items)
            children.append((child, [child.build(item, names) for item in items]))
    attached = None
    if view.kind == "subnet":
        attached = []
        for kind in network_detail.ATTACHED:
            for item in (await visit.reads.all(kind.kind, kind.filter(object_id))).items:
                attached.append(kind.row(item, object_id))
    addressed = await _external_ip_attachments(visit, obj) if view.kind == "external_ip" else {}
    created = obj.metadata.creation_timestamp if obj.metadata.HasField("creation_timestamp") else None
    conditions = clusters.condition_rows(obj.status.conditions, visit.now) if hasattr(obj.status, "conditions") else None
    return visit.page("network.html", title=f"{view.noun[:1].upper()}{view.noun[1:]} {row.name}", view=view, row=row,
                      summary=summary, children=children, attached=attached,
                      rules=network_detail.rule_rows(obj) if view.kind == "security_group" else None,
                      conditions=conditions, created=clusters.Moment.of(created, visit.now),
                      can_delete=visit.allows(view.kind, Method.DELETE, obj),
                      can_edit_rules=view.kind == "security_group" and visit.allows(view.kind, Method.UPDATE, obj),
                      error=error, values=values or {}, protocols=[(p, p.upper()) for p in networking.PROTOCOL_NUMBERS],
                      events=[_event_row(e, visit.now) for e in events.items], revision=events.revision,
                      object_id=object_id, shown_version=row.version, live_kinds=(view.kind,),
                      related_kinds=network_detail.RELATED_KINDS.get(view.kind, ()),
                      notice=None if error else visit.request.query_params.get("notice"), status=status,
                      **addressed)


async def cluster_page(visit: Visit) -> Response:
    cluster_id = visit.request.path_params["id"]
    events = await visit.reads.events(f"this.object_id == {cel_string(cluster_id)}", newest=10)
    cluster = as_kind(await visit.reads.get("cluster", cluster_id), Cluster)
    host_type_ids = [ns.host_type for ns in cluster.spec.node_sets.values()]
    host_types = await visit.reads.names("host_type", host_type_ids)
    detail = clusters.cluster_detail(cluster, visit.now, host_types)
    attachments = await visit.reads.all("external_ip_attachment", f"this.spec.cluster == {cel_string(cluster_id)}")
    can = {"scale": visit.allows("cluster", Method.UPDATE, cluster),
           "delete": visit.allows("cluster", Method.DELETE, cluster),
           "kubeconfig": visit.allows("cluster", policy.Method.GET_KUBECONFIG, cluster)}
    return visit.page("cluster.html", title=f"Cluster {detail.row.name}", c=detail, can=can,
                      events=[_event_row(e, visit.now) for e in events.items], revision=events.revision,
                      external=clusters.external_addresses(
                          [as_kind(a, ExternalIPAttachment) for a in attachments.items]),
                      object_id=cluster_id,
                      shown_version=detail.row.version, live_kinds=("cluster",),
                      related_kinds=("external_ip_attachment",), notice=visit.request.query_params.get("notice"))


async def vm_page(visit: Visit) -> Response:
    vm_id = visit.request.path_params["id"]
    events = await visit.reads.events(f"this.object_id == {cel_string(vm_id)}", newest=10)
    vm = as_kind(await visit.reads.get("compute_instance", vm_id), ComputeInstance)
    subnets = await visit.reads.names("subnet", [n.subnet for n in vm.status.compute_network_attachment_statuses])
    templates = await visit.reads.names("compute_instance_template", [vm.spec.template])
    detail = compute.vm_detail(vm, visit.now, subnets, templates)
    can = {"update": visit.allows("compute_instance", Method.UPDATE, vm),
           "delete": visit.allows("compute_instance", Method.DELETE, vm)}
    return visit.page("vm.html", title=f"Virtual machine {detail.row.name}", v=detail, can=can,
                      events=[_event_row(e, visit.now) for e in events.items], revision=events.revision,
                      object_id=vm_id, shown_version=detail.row.version, live_kinds=("compute_instance",), notice=visit.request.query_params.get("notice"))


async def bare_metal_page(visit: Visit) -> Response:
    bmi_id = visit.request.path_params["id"]
    events = await visit.reads.events(f"this.object_id == {cel_string(bmi_id)}", newest=10)
    bmi = as_kind(await visit.reads.get("bare_metal_instance", bmi_id), BareMetalInstance)
    subnets = await visit.reads.names("subnet", [n.subnet for n in bmi.status.network_attachment_statuses])
    detail = compute.bare_metal_detail(bmi, visit.now, subnets, await _host_type_names(visit))
    can = {"update": visit.allows("bare_metal_instance", Method.UPDATE, bmi),
           "delete": visit.allows("bare_metal_instance", Method.DELETE, bmi)}
    return visit.page("baremetal.html", title=f"Bare-metal instance {detail.row.name}", b=detail, can=can,
                      events=[_event_row(e, visit.now) for e in events.items], revision=events.revision,
                      object_id=bmi_id, shown_version=detail.row.version, live_kinds=("bare_metal_instance",),
                      notice=visit.request.query_params.get("notice"))


# -- create forms ----------------------------------------------------------------------------------


def _form_page(visit: Visit, template: str, title: str, error: str, values: dict[str, str] | None, status: int,
               **context: Any) -> Response:
    """A create form: blank, or again with the values entered and the server's refusal."""
    response = visit.page(template, title=title, error=error, values=values or {},
                          tenant_choices=visit.caller.subject.tenants, **context)
    response.status_code = status
    return response


def _options(names: list[str]) -> list[tuple[str, str]]:
    """``(value, text)`` choices of a select whose values are the names shown."""
    return [(name, name) for name in names]


def new_from_form(service: KindService, form: dict[str, str]) -> Message:
    """A new object of the service's kind, with the name and the tenant the form gives."""
    obj = service.kind.private_class()()
    metadata = metadata_of(obj)
    metadata.name = form.get("name", "").strip()
    if form.get("tenant"):
        metadata.tenant = form["tenant"]
    return obj


async def vm_form(visit: Visit, error: str = "", values: dict[str, str] | None = None, status: int = 200) -> Response:
    templates = sorted(metadata_of(t).name for t in (await visit.reads.all("compute_instance_template")).items)
    types = sorted(metadata_of(t).name for t in (await visit.reads.all("instance_type")).items)
    return _form_page(visit, "vm_new.html", "Create a virtual machine", error, values, status,
                      templates=_options(templates), instance_types=_options(types),
                      network=await network_choice.network_choices(visit.reads, visit.is_admin))


async def new_vm(visit: Visit) -> Response:
    return await vm_form(visit)


async def create_vm(visit: Visit) -> Response:
    """A compute instance from a template; omitted network attachments are the tenant's defaults
    (the server fills them in), external access in the same call when the box is ticked."""
    form = await _form(visit)
    service = visit.reads.deps.services["compute_instance"]
    vm = as_kind(new_from_form(service, form), PrivateComputeInstance)
    vm.spec.template = form.get("template", "")
    if form.get("instance_type"):
        vm.spec.instance_type = form["instance_type"]
    vm.spec.auto_external_ip_attachment = form.get("external_access") == "on"
    subnet, groups = network_choice.chosen(form)
    refusal = network_choice.missing_subnet(subnet, groups)
    if refusal:
        return await vm_form(visit, refusal, form, 400)
    if subnet:
        vm.spec.compute_network_attachments.add(subnet=subnet, security_groups=groups, primary=True)
    try:
        created = await service.create(visit.caller, vm)
    except ServiceError as error:
        return await vm_form(visit, error.message, form, error.http_status)
    return back_to(f"/compute-instances/{id_of(created)}", "Virtual machine created")


async def _cluster_templates(visit: Visit) -> list[ClusterTemplate]:
    """The cluster templates the caller sees, by name."""
    templates = [as_kind(t, ClusterTemplate) for t in (await visit.reads.all("cluster_template")).items]
    return sorted(templates, key=lambda t: t.metadata.name)


Offered = TypeVar("Offered", ClusterTemplate, HostType)


def _offered_named(offered: list[Offered], wanted: str, kind: str, noun: str) -> Offered:
    """The catalogue object a form names (name or id) among those offered; the first when it
    names none.

    :raises NotFound: as the API says it of an object the caller does not see."""
    if not offered:
        raise NotFound(f"no {noun} are offered yet; a provider admin creates them")
    if not wanted:
        return offered[0]
    for item in offered:
        if wanted in (item.id, item.metadata.name):
            return item
    raise NotFound(f"{kind} '{wanted}' not found")


def _template_named(templates: list[ClusterTemplate], wanted: str) -> ClusterTemplate:
    return _offered_named(templates, wanted, "ClusterTemplate", "cluster templates")


async def cluster_form(visit: Visit, error: str = "", values: dict[str, str] | None = None,
                       status: int = 200) -> Response:
    refusal = visit.refusal("cluster", Method.CREATE)
    if refusal:
        raise PermissionDenied(refusal)
    templates = await _cluster_templates(visit)
    template = _template_named(templates, (values or {}).get("template") or
                               visit.request.query_params.get("template", ""))
    host_types = await visit.reads.names("host_type", [n.host_type for n in template.node_sets.values()])
    return _form_page(visit, "cluster_new.html", "Create a cluster", error,
                      values if values is not None else cluster_fields.initial_values(template), status,
                      template_options=[(t.metadata.name, f"{t.metadata.name}: {t.title}" if t.title else t.metadata.name)
                                        for t in templates], chosen=template,
                      parameters=cluster_fields.parameter_fields(template),
                      node_sets=cluster_fields.node_set_fields(template, host_types),
                      network=await network_choice.network_choices(visit.reads, visit.is_admin),
                      cidr_defaults=(DEFAULT_POD_CIDR, DEFAULT_SERVICE_CIDR))


async def new_cluster(visit: Visit) -> Response:
    return await cluster_form(visit)


async def create_cluster(visit: Visit) -> Response:
    """A cluster from a template: its parameters and node-set sizes from the form, external
    access (an API and an ingress external IP) in the same call when the box is ticked, as
    ``osac create cluster --external-ip-attachment`` does."""
    form = await _form(visit)
    template = _template_named(await _cluster_templates(visit), form.get("template", ""))
    form["template"] = template.metadata.name
    service = visit.reads.deps.services["cluster"]
    cluster = as_kind(new_from_form(service, form), PrivateCluster)
    try:
        cluster_fields.fill_cluster(cluster, template, form)
        created = await service.create(visit.caller, cluster)
    except ServiceError as error:
        return await cluster_form(visit, error.message, form, error.http_status)
    return back_to(f"/clusters/{id_of(created)}", f"Cluster {cluster.metadata.name} created")


async def _bare_metal_host_types(visit: Visit) -> list[HostType]:
    """The bare-metal host types (with a ``lifecycle`` interface) the caller sees, by name."""
    found = [as_kind(t, HostType) for t in (await visit.reads.all("host_type")).items if is_bare_metal(t)]
    return sorted(found, key=lambda t: t.metadata.name)


async def bare_metal_form(visit: Visit, error: str = "", values: dict[str, str] | None = None,
                          status: int = 200) -> Response:
    host_types = await _bare_metal_host_types(visit)
    chosen = _offered_named(host_types, (values or {}).get("host_type") or
                            visit.request.query_params.get("host_type", ""), "HostType", "bare-metal host types")
    return _form_page(visit, "baremetal_new.html", "Create a bare-metal instance", error,
                      values if values is not None else {"host_type": chosen.metadata.name}, status,
                      host_types=_options([t.metadata.name for t in host_types]), chosen=chosen,
                      interfaces=network_choice.attachable_interfaces(chosen),
                      network=await network_choice.network_choices(visit.reads, visit.is_admin))


async def new_bare_metal(visit: Visit) -> Response:
    return await bare_metal_form(visit)


async def create_bare_metal(visit: Visit) -> Response:
    """A bare-metal instance of a host type; each interface given a subnet is one attachment
    with its chosen security groups (the one marked primary, else the first, primary), none
    the tenant's defaults (the server fills them in); external access in the same call when
    the box is ticked."""
    form = await _form(visit)
    wanted = form.get("host_type", "")
    host_type = next((t for t in await _bare_metal_host_types(visit) if wanted and wanted in (t.id, t.metadata.name)),
                     None)  # another is the server's to refuse, naming spec.host_type
    interfaces = network_choice.attachable_interfaces(host_type) if host_type is not None else []
    service = visit.reads.deps.services["bare_metal_instance"]
    bmi = as_kind(new_from_form(service, form), PrivateBareMetalInstance)
    bmi.spec.host_type = wanted
    if form.get("image", "").strip():
        bmi.spec.image.source_type = "registry"
        bmi.spec.image.source_ref = form["image"].strip()
    bmi.spec.ssh_public_key = form.get("ssh_public_key", "").strip()
    bmi.spec.auto_external_ip_attachment = form.get("external_access") == "on"
    try:
        for chosen in network_choice.interface_attachments(form, interfaces):
            bmi.spec.network_attachments.add(subnet=chosen.subnet, security_groups=chosen.security_groups,
                                             interface=chosen.interface, primary=chosen.primary)
        created = await service.create(visit.caller, bmi)
    except ServiceError as error:
        return await bare_metal_form(visit, error.message, form, error.http_status)
    return back_to(f"/baremetal-instances/{id_of(created)}", f"Bare-metal instance {bmi.metadata.name} created")


# -- admin lists -----------------------------------------------------------------------------------

ADMIN_LISTS = {
    "stalled": ("Stalled clusters", STALLED_FILTER, 1),
    "stage-unknown": ("Clusters with stage unknown", STAGE_UNKNOWN_FILTER, 1),
    "degraded": ("Degraded clusters", DEGRADED_FILTER, 4),
}


async def admin_list(visit: Visit) -> Response:
    which = visit.request.path_params["which"]
    if which in catalogue.VIEWS:
        return await catalogue_page(visit, catalogue.VIEWS[which])
    if not visit.is_admin:
        raise PermissionDenied("the cross-tenant lists are for provider admins")
    if which == "counts":
        return await counts_page(visit)
    if which not in ADMIN_LISTS:
        raise NotFound(f"no admin list '{which}'; there are {', '.join([*ADMIN_LISTS, 'counts', *catalogue.VIEWS])}")
    title, expression, message_condition = ADMIN_LISTS[which]
    listing = await visit.reads.all("cluster", expression)
    rows = []
    for item in listing.items:
        cluster = as_kind(item, Cluster)
        detail = clusters.cluster_detail(cluster, visit.now, {})
        condition = next((c for c in cluster.status.conditions if c.type == message_condition), None)
        entered = cluster.status.stage_entered_at if cluster.status.HasField("stage_entered_at") else None
        rows.append((entered.ToDatetime().isoformat() if entered else "9999", detail,
                     condition.message if condition is not None else ""))
    rows.sort(key=lambda item: (item[0], item[1].row.id))  # oldest stage entry (largest age) first
    return visit.page("admin_list.html", title=title, which=which, rows=[(d, m) for _, d, m in rows],
                      total=listing.total, revision=listing.revision, live_kinds=("cluster",))


async def counts_page(visit: Visit) -> Response:
    """Clusters per state and per stage across all tenants, and per tenant (provider admins)."""
    counted = await visit.reads.stage_counts()
    states, stages, rows = counts.count_rows(counted.groups)
    return visit.page("admin_counts.html", title="Cluster counts", states=states, stages=stages, rows=rows,
                      revision=counted.revision, live_kinds=("cluster",))


async def catalogue_page(visit: Visit, view: catalogue.CatalogueView) -> Response:
    """A provider admin's catalogue list; for anyone else there is no such page."""
    if not visit.is_admin:
        raise NotFound(f"no page at {visit.request.url.path}")
    listing = await visit.reads.all(view.kind)
    names = await _referred_names(visit, view.refs, listing.items)
    return visit.page("catalogue.html", title=view.title, view=view, rows=[view.row(o, names) for o in listing.items],
                      total=listing.total, revision=listing.revision, live_kinds=(view.kind,),
                      editable=view.editable, creatable=view.creatable, notice=visit.request.query_params.get("notice"))


# -- actions ---------------------------------------------------------------------------------------


async def _form(visit: Visit) -> dict[str, str]:
    return await form_fields(visit.request)


async def scale_cluster(visit: Visit) -> Response:
    cluster_id = visit.request.path_params["id"]
    form = await _form(visit)
    key = form.get("node_set", "")
    size_text = form.get("size", "").strip()
    if not size_text.isdigit():
        raise InvalidArgument(f"size: '{size_text}' is not a whole number of nodes (0 or more)")
    service = visit.reads.deps.services["cluster"]
    stored = as_kind(await service.get(visit.caller, cluster_id), PrivateCluster)
    node_sets = stored.spec.node_sets
    if key not in node_sets:
        raise InvalidArgument(f"node_set: the cluster has no node set '{key}'; it has {', '.join(sorted(node_sets)) or 'none'}")
    before = node_sets[key].size
    node_sets[key].size = int(size_text)
    await service.update(visit.caller, stored, ["spec.node_sets"], lock=True)
    notice = f"Node set {key}: desired size {size_text} (was {before})"
    return back_to(f"/clusters/{cluster_id}", notice)


async def confirm_delete(visit: Visit) -> Response:
    kind, collection, noun = _kind_of(visit)
    obj = await visit.reads.get(kind, visit.request.path_params["id"])
    back = f"/{collection}" if collection.startswith("networking/") else f"/{collection}/{id_of(obj)}"
    return delete_confirmation(visit, obj, collection, noun, back)


def delete_confirmation(visit: Visit, obj: Message, collection: str, noun: str, back: str) -> Response:
    """The confirmation of ``obj``'s delete, whose POST goes to ``/<collection>/<id>/delete``."""
    return visit.page("confirm_delete.html", title=f"Delete {metadata_of(obj).name}", obj=obj,
                      collection=collection, what=noun, back=back)


async def delete_object(visit: Visit) -> Response:
    kind, collection, _ = _kind_of(visit)
    object_id = visit.request.path_params["id"]
    await visit.reads.deps.services[kind].delete(visit.caller, object_id)
    return back_to(f"/{collection}" if collection.startswith("networking/") else f"/{collection}/{object_id}",
                 "Deletion requested")


async def kubeconfig(visit: Visit) -> Response:
    cluster_id = visit.request.path_params["id"]
    cluster = await visit.reads.get("cluster", cluster_id)
    text = await visit.reads.deps.services["cluster"].credential(visit.caller, cluster_id, "kubeconfig")
    name = metadata_of(cluster).name or cluster_id
    return Response(text, media_type="application/yaml",
                    headers={"content-disposition": f'attachment; filename="{name}-kubeconfig.yaml"'})


async def vm_action(visit: Visit) -> Response:
    vm_id = visit.request.path_params["id"]
    action = visit.request.path_params["action"]
    service = visit.reads.deps.services["compute_instance"]
    stored = as_kind(await service.get(visit.caller, vm_id), PrivateComputeInstance)
    if action in ("start", "stop"):
        stored.spec.run_strategy = compute.RUNNING if action == "start" else compute.HALTED
        await service.update(visit.caller, stored, ["spec.run_strategy"], lock=False)
    elif action == "restart":
        stored.spec.restart_requested_at.FromDatetime(visit.now)
        await service.update(visit.caller, stored, ["spec.restart_requested_at"], lock=False)
    else:
        raise NotFound(f"no action '{action}'; use start, stop or restart")
    return back_to(f"/compute-instances/{vm_id}", f"{action.capitalize()} requested")


async def bare_metal_action(visit: Visit) -> Response:
    """Power on (run strategy ALWAYS), off (HALTED), or a power cycle (``spec.restart_trigger``
    raised above the last completed one, as ``osac restart`` does)."""
    bmi_id = visit.request.path_params["id"]
    action = visit.request.path_params["action"]
    service = visit.reads.deps.services["bare_metal_instance"]
    stored = as_kind(await service.get(visit.caller, bmi_id), PrivateBareMetalInstance)
    if action in ("start", "stop"):
        stored.spec.run_strategy = compute.BARE_METAL_RUNNING if action == "start" else compute.BARE_METAL_HALTED
        await service.update(visit.caller, stored, ["spec.run_strategy"], lock=False)
    elif action == "restart":
        stored.spec.restart_trigger = max(stored.spec.restart_trigger, stored.status.restart_trigger) + 1
        await service.update(visit.caller, stored, ["spec.restart_trigger"], lock=False)
    else:
        raise NotFound(f"no action '{action}'; use start, stop or restart")
    return back_to(f"/baremetal-instances/{bmi_id}", f"{action.capitalize()} requested")


#: The deletable kinds by the first part(s) of their console path, with their list's path and noun.
DELETABLE = {"clusters": ("cluster", "clusters", "cluster"),
             "compute-instances": ("compute_instance", "compute-instances", "virtual machine"),
             "baremetal-instances": ("bare_metal_instance", "baremetal-instances", "bare-metal instance"),
             **{f"networking/{c}": (v.kind, f"networking/{c}", v.noun) for c, v in networking.VIEWS.items()}}


def _kind_of(visit: Visit) -> tuple[str, str, str]:
    """(kind, collection path, noun) of the object a delete URL names."""
    path = visit.request.url.path.strip("/")
    for prefix, found in DELETABLE.items():
        if path.startswith(prefix + "/"):
            return found
    raise NotFound(f"nothing to delete at /{path}")


def back_to(path: str, notice: str) -> Response:
    from urllib.parse import urlencode

    return RedirectResponse(f"{path}?{urlencode({'notice': notice})}", status_code=303)



