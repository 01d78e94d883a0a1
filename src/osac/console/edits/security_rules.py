"""A security group's rules edited on its page: one rule added to, or removed from, its inbound
(``spec.ingress``) or outbound (``spec.egress``) list.

Each edit is an Update of that one list (the update mask), made from a fresh read with the
version lock, as ``osac scale`` makes its Update: a change written meanwhile by anyone else is
never overwritten (ABORTED, shown on the page). The server validates the whole new list as it
does for the API and names the rule's field (``spec.ingress[1]: TCP ports must satisfy ...``);
the page then shows the message beside the form, with the form kept.
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.responses import Response

from osac.api.private.v1.security_group_type_pb2 import SecurityGroup
from osac.api.private.v1.security_rule_type_pb2 import SecurityRule
from osac.console import networking, pages
from osac.console.security import form_fields
from osac.model.shape import as_kind
from osac.services.core.errors import Aborted, InvalidArgument, NotFound, ServiceError

#: The rule lists of a group by the name the forms send, with the word the page shows.
DIRECTIONS = {"ingress": "Inbound", "egress": "Outbound"}
PEER_FIELD = "peer"


def _rules_named(form: dict[str, str]) -> str:
    """:raises InvalidArgument: ``direction`` names neither list."""
    rules = form.get("direction", "")
    if rules not in DIRECTIONS:
        raise InvalidArgument(f"direction: '{rules}' is not a direction; use ingress (inbound) or egress (outbound)")
    return rules


async def _edit(visit: pages.Visit, change: str) -> Response:
    """Apply ``change`` ("add" or "remove") to the group's list the form names and Update it."""
    group_id = visit.request.path_params["id"]
    if visit.request.path_params["collection"] != "security-groups":
        raise NotFound(f"no page at {visit.request.url.path}; only security groups have rules")
    form = await form_fields(visit.request)
    service = visit.reads.deps.services["security_group"]
    try:
        rules_name = _rules_named(form)
        group = as_kind(await service.get(visit.caller, group_id), SecurityGroup)
        rules = getattr(group.spec, rules_name)
        direction = DIRECTIONS[rules_name]
        if change == "add":
            rule = rules.add()
            networking.fill_rule(rule, form, PEER_FIELD)
            done = f"Rule added: {networking.rule_text(rule, direction)}"
        else:
            index = _shown_rule(form, rules, direction)
            done = f"Rule removed: {networking.rule_text(rules[index], direction)}"
            del rules[index]
        await service.update(visit.caller, group, [f"spec.{rules_name}"], lock=True)
    except ServiceError as error:
        return await pages.network_page(visit, error=error.message, values=form, status=error.http_status)
    return pages.back_to(f"/networking/security-groups/{group_id}", done)


def _shown_rule(form: dict[str, str], rules: Sequence[SecurityRule], direction: str) -> int:
    """The place of the rule the page showed at ``index`` with the text ``rule``.

    :raises Aborted: the list no longer holds that rule there (it changed since the page was read)."""
    index_text = form.get("index", "")
    index = int(index_text) if index_text.isdigit() else -1
    if not 0 <= index < len(rules) or networking.rule_text(rules[index], direction) != form.get("rule"):
        raise Aborted(f"rule: '{form.get('rule', '')}' is no longer rule {index_text} of the group's "
                      f"{direction.lower()} rules (they changed since the page was read); the page shows them now")
    return index


async def add_rule(visit: pages.Visit) -> Response:
    return await _edit(visit, "add")


async def remove_rule(visit: pages.Visit) -> Response:
    return await _edit(visit, "remove")
