"""Natural per-kind options of ``osac create`` and ``osac edit`` (``--virtual-network``,
``--ingress RULE``): parsing and applying them.

The options themselves are data of the kind's descriptor (``Kind.flags``, ``osac.model.flags``);
this module supplies the parsers they name (``ITEM_PARSERS``, ``ENTRY_PARSERS``). For an item
parser ``none`` gives no item, so ``--ingress none`` means "no rules". A flag with ``item_field``
excludes the flags adding whole items to the same list.

On create the flags add to what files give; on edit a list named by a flag is replaced by the
flag's items, and flags of immutable fields are refused.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from osac.cli.errors import CliError
from osac.cli.objects.inputs import apply_assignment, convert_scalar, read_text
from osac.cli.objects.node_sets import parse_node_set
from osac.cli.objects.rules import NO_RULES, parse_rule
from osac.cli.objects.workload_flags import parse_attachment
from osac.cli.output.fields import descriptor_of, is_map, lookup_field
from osac.model import descriptors
from osac.model.flags import Flag
from osac.model.kinds import Kind

#: Field assignments (path relative to the item, text value) for one item of a repeated field.
ItemParser = Callable[[str], list[tuple[str, str]]]
#: The key of one map entry and the assignments (path relative to the entry, text value) for it.
EntryParser = Callable[[str], tuple[str, list[tuple[str, str]]]]


#: The parsers ``Flag.parse_item`` and ``Flag.parse_entry`` name.
ITEM_PARSERS: dict[str, ItemParser] = {"rule": parse_rule, "attachment": parse_attachment}
ENTRY_PARSERS: dict[str, EntryParser] = {"node_set": parse_node_set}


def flags_of(kind_name: str) -> tuple[Flag, ...]:
    kind = descriptors.BY_NAME.get(kind_name)
    return kind.flags if kind is not None else ()


def item_parser(flag: Flag) -> ItemParser | None:
    return ITEM_PARSERS[flag.parse_item] if flag.parse_item is not None else None


def entry_parser(flag: Flag) -> EntryParser | None:
    return ENTRY_PARSERS[flag.parse_entry] if flag.parse_entry is not None else None


def parse_kind_flags(kind_name: str, args: list[str]) -> list[tuple[Flag, str]]:
    """Pair the extra command-line words with the kind's flags (``--opt VALUE``, ``--opt=VALUE``,
    or a bare switch), checking rule texts and exclusive groups before anything is sent.

    :raises CliError: a word that is not one of the kind's flags, a flag without a value, a bad
        rule (named with its flag), or two flags of one group.
    """
    by_option = {option: flag for flag in flags_of(kind_name) for option in flag.options}
    pairs: list[tuple[Flag, str]] = []
    words = list(args)
    while words:
        word = words.pop(0)
        option, equals, value = word.partition("=")
        flag = by_option.get(option)
        if flag is None:
            known = ", ".join(f.option for f in flags_of(kind_name)) or "none besides the common ones"
            raise CliError(f"unexpected argument '{word}' for {kind_name}; its options: {known}")
        if not equals:
            if flag.switch:
                value = "true"
            elif not words:
                raise CliError(f"{option} needs a value")
            else:
                value = words.pop(0)
        parse_item, parse_entry = item_parser(flag), entry_parser(flag)
        if parse_item is not None and not _is_empty_list(value):
            try:
                parse_item(value)
            except CliError as error:
                raise CliError(f"{flag.option} '{value}': {error}") from None
        if parse_entry is not None:
            try:
                parse_entry(value)
            except CliError as error:
                raise CliError(f"{flag.option} '{value}': {error}") from None
        pairs.append((flag, value))
    _check_groups(kind_name, pairs)
    _check_item_flags(pairs)
    return pairs


def _check_groups(kind_name: str, pairs: list[tuple[Flag, str]]) -> None:
    chosen: dict[str, Flag] = {}
    for flag, _ in pairs:
        if flag.group is None:
            continue
        first = chosen.setdefault(flag.group, flag)
        if first is not flag:
            members = [f.option for f in flags_of(kind_name) if f.group == flag.group]
            raise CliError(
                f"{first.option} and {flag.option} exclude each other: give one {flag.group}, "
                f"with one of {', '.join(members)}"
            )


def _check_item_flags(pairs: list[tuple[Flag, str]]) -> None:
    """Flags describing the first item of a list and flags adding whole items to it exclude each
    other: which item would ``--subnet`` describe?"""
    for flag, _ in pairs:
        if flag.item_field is None:
            continue
        whole = next((f for f, _ in pairs if f.path == flag.path and f.parse_item is not None), None)
        if whole is not None:
            raise CliError(
                f"{flag.option} and {whole.option} exclude each other: describe one attachment with "
                f"{flag.option}, or each attachment with {whole.option}"
            )


def _is_empty_list(value: str) -> bool:
    return value.strip().lower() == NO_RULES


def apply_kind_flags(message: Message, pairs: list[tuple[Flag, str]], *, replace: bool = False) -> list[str]:
    """Set the fields the flags name on ``message``; repeated fields get one item per use,
    after the current items (``replace``: instead of them). Returns the update-mask paths.

    :raises CliError: a value that does not fit its field, named with the option.
    """
    paths: list[str] = []
    items_set: set[str] = set()
    for flag, value in pairs:
        field = lookup_field(descriptor_of(message), flag.path)
        if not isinstance(field, FieldDescriptor):
            raise CliError(f"{flag.option}: {message.DESCRIPTOR.name} has no field {flag.path}")
        is_list = field.is_repeated and not is_map(field)
        if is_list and replace and flag.path not in paths and flag.item_field is None:
            del _repeated(message, flag.path)[:]
        try:
            if flag.reads_file:
                value = read_text(value)
            if flag.item_field is not None:
                _set_first_item(message, flag, value, fresh=replace and flag.option not in items_set)
                items_set.add(flag.option)
            elif (parse_entry := entry_parser(flag)) is not None:
                key, assignments = parse_entry(value)
                entry = _repeated(message, flag.path)[key]
                for path, text in assignments:
                    apply_assignment(entry, path, text)
            elif (parse_item := item_parser(flag)) is not None:
                if not _is_empty_list(value):
                    item = _repeated(message, flag.path).add()
                    for path, text in parse_item(value):
                        apply_assignment(item, path, text)
            elif is_list:
                items = [part.strip() for part in value.split(",") if part.strip()]
                _repeated(message, flag.path).extend(convert_scalar(field, item, flag.path) for item in items)
            else:
                apply_assignment(message, flag.path, value)
        except CliError as error:
            raise CliError(f"{flag.option} '{value}': {error}") from None
        paths.append(flag.path)
    return list(dict.fromkeys(paths))


def check_mutable(kind: Kind, pairs: list[tuple[Flag, str]]) -> None:
    """:raises CliError: a flag names a field that cannot change after create."""
    for flag, _ in pairs:
        if any(flag.path == path or flag.path.startswith(path + ".") for path in kind.immutable):
            raise CliError(f"{flag.option}: {kind.message} {flag.path} cannot be changed after create")


def _set_first_item(message: Message, flag: Flag, value: str, *, fresh: bool) -> None:
    """Set ``flag.item_field`` of the first item (added when the list is empty); a list field
    gets one more value per use, after the current ones unless ``fresh`` (edit: replaced)."""
    items = _repeated(message, flag.path)
    item = items[0] if len(items) else items.add()
    assert flag.item_field is not None
    field = lookup_field(descriptor_of(item), flag.item_field)
    if isinstance(field, FieldDescriptor) and field.is_repeated:
        values = getattr(item, flag.item_field)
        if fresh:
            del values[:]
        values.append(convert_scalar(field, value, flag.item_field))
    else:
        apply_assignment(item, flag.item_field, value)


def _repeated(message: Message, path: str) -> Any:
    current: Any = message
    for name in path.split("."):
        current = getattr(current, name)
    return current


def flags_help() -> str:
    lines = ["Options per kind (after KIND):"]
    for kind in descriptors.KINDS:
        if kind.flags:
            lines.append(f"  {kind.name}: " + ", ".join("|".join(flag.options) for flag in kind.flags))
    return "\n".join(lines)

