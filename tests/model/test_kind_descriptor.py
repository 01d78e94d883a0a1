"""The kind descriptor carries what generic code reads per kind; its facts agree with each other."""

from __future__ import annotations

import pytest

from osac.auth import KINDS as POLICY_ROWS
from osac.auth.policy import GRANTS, SERVICE_METHODS, Grant
from osac.auth.policy import Method as AuthMethod
from osac.model import registry
from osac.model.flags import Flag
from osac.model.kinds import READ_ONLY, Group, Kind, Policy


def test_a_teardown_without_a_reconciler_is_refused_naming_the_kind() -> None:
    with pytest.raises(ValueError, match=r"kind widget: a teardown needs a reconciler \(reconciled=True\)"):
        Kind("widget", "Widget", "Widgets", "widgets", group=Group.NETWORKING, noun="widget",
             plural="widgets", has_teardown=True)


def test_a_flag_naming_an_unknown_parser_is_refused_naming_the_flag() -> None:
    with pytest.raises(ValueError, match=r"flag --rule: no item parser 'rules'; expected one of \('rule', 'attachment'\)"):
        Flag("--rule", "spec.ingress", "a rule", "rules")
    with pytest.raises(ValueError, match=r"flag --pool: no entry parser 'pool'"):
        Flag("--pool", "spec.pools", "a pool", parse_entry="pool")


def test_the_policy_class_agrees_with_the_public_methods() -> None:
    for kind in registry.KINDS:
        if kind.policy is Policy.READ_ONLY:
            assert kind.public_methods == READ_ONLY, kind.name
        elif kind.policy is Policy.PRIVATE_ONLY:
            assert not kind.public_methods, kind.name
        else:
            assert kind.public_methods > READ_ONLY, kind.name


def test_every_policy_class_has_its_grants() -> None:
    assert set(GRANTS) == set(Policy)


@pytest.mark.parametrize("kind", registry.KINDS, ids=lambda kind: kind.name)
def test_the_authorisation_row_of_a_kind_is_its_policy_class(kind: Kind) -> None:
    row = POLICY_ROWS[kind.name]
    assert row.type_name == kind.message
    assert dict(row.public) == dict(GRANTS[kind.policy])
    assert row.private == frozenset(AuthMethod(method.value) for method in kind.private_methods)


def test_the_authorisation_rows_are_the_kinds_and_the_service_methods() -> None:
    assert list(POLICY_ROWS) == [kind.name for kind in registry.KINDS] + list(SERVICE_METHODS)
    assert POLICY_ROWS["nat_gateway"].public[AuthMethod.DELETE] is Grant.ANY_ROLE_EXCEPT_DEFAULTS
    assert POLICY_ROWS["host_type"].public[AuthMethod.CREATE] is Grant.PROVIDER_ADMIN


def test_groups_and_display_names() -> None:
    nat = registry.get("nat_gateway")
    assert (nat.group, nat.noun, nat.plural, nat.title, nat.aliases) == (
        Group.NETWORKING, "NAT gateway", "NAT gateways", "NAT gateways", ("natgw",))
    assert [kind.name for kind in registry.KINDS if kind.group is Group.CATALOGUE] == [
        "host_type", "cluster_template", "compute_instance_template", "instance_type"]
    assert [kind.name for kind in registry.KINDS if kind.group is Group.WORKLOAD] == [
        "cluster", "compute_instance", "bare_metal_instance"]


def test_every_kind_with_a_teardown_is_reconciled() -> None:
    assert [kind.name for kind in registry.KINDS if kind.reconciled and not kind.has_teardown] == ["network_class"]
    assert [kind.name for kind in registry.KINDS if not kind.reconciled] == [
        "host_type", "cluster_template", "compute_instance_template", "instance_type", "hub"]
