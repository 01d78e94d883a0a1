"""The CLI's per-kind columns and options come from the kind descriptors."""

from __future__ import annotations

from osac.cli.objects import kind_flags
from osac.cli.objects.kind_flags import flags_help, flags_of, parse_kind_flags
from osac.cli.output.tables import columns_for
from osac.model import flags, registry


def test_the_cli_supplies_every_parser_a_flag_can_name() -> None:
    assert set(kind_flags.ITEM_PARSERS) == set(flags.ITEM_PARSERS)
    assert set(kind_flags.ENTRY_PARSERS) == set(flags.ENTRY_PARSERS)


def test_the_options_of_a_kind_are_its_descriptors_flags() -> None:
    nat = registry.get("nat_gateway")
    assert flags_of("nat_gateway") == nat.flags
    pairs = parse_kind_flags("nat_gateway", ["--vn", "app", "--eip=web"])
    assert [(flag.path, value) for flag, value in pairs] == [("spec.virtual_network", "app"), ("spec.external_ip", "web")]
    assert flags_of("host_type") == ()


def test_the_options_help_lists_the_kinds_with_options_in_registry_order() -> None:
    lines = flags_help().splitlines()
    assert lines[0] == "Options per kind (after KIND):"
    assert [line.split(":")[0].strip() for line in lines[1:]] == [
        kind.name for kind in registry.KINDS if kind.flags]
    assert "  nat_gateway: --virtual-network|--vn, --external-ip|--eip" in lines


def test_the_list_columns_of_a_kind_are_its_descriptors_columns() -> None:
    nat = registry.get("nat_gateway")
    headers = [column.header for column in columns_for(nat, nat.public_class().DESCRIPTOR)]
    assert headers == ["NAME", "TENANT", "VIRTUAL NETWORK", "EXTERNAL IP", "STATE", "AGE", "ID"]
