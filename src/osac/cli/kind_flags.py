"""Natural per-kind options of ``osac create`` (``--virtual-network``, ``--ingress RULE``), as data.

Each ``KindFlag`` names a field path. A plain flag sets the field like ``--set PATH=VALUE``; on
a repeated field each use appends. A flag with ``parse_item`` adds one message to a repeated
field from ``key=value,key=value`` text, the keys being field names of that message (or
shorthands the parser expands). Adding a kind's options is adding entries to ``KIND_FLAGS``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from osac.cli.errors import CliError
from osac.cli.fields import descriptor_of, is_map, lookup_field
from osac.cli.inputs import apply_assignment, convert_scalar

#: Field assignments (path relative to the item, text value) for one item of a repeated field.
ItemParser = Callable[[str], list[tuple[str, str]]]


@dataclass(frozen=True)
class KindFlag:
    option: str
    path: str
    help: str
    parse_item: ItemParser | None = None


def key_values(text: str) -> list[tuple[str, str]]:
    """``[("protocol", "tcp"), ("port", "443")]`` from ``protocol=tcp,port=443``."""
    pairs = []
    for part in text.split(","):
        if not part.strip():
            continue
        key, equals, value = part.partition("=")
        if not equals or not key.strip():
            raise CliError(f"'{part}' in '{text}' is not KEY=VALUE")
        pairs.append((key.strip(), value.strip()))
    return pairs


def security_rule(text: str) -> list[tuple[str, str]]:
    """A SecurityRule from ``protocol=tcp,port=443,cidr=0.0.0.0/0``: ``port`` is ``N`` or
    ``N-M`` (port_from, port_to), ``cidr`` goes to ``ipv4_cidr`` or ``ipv6_cidr`` by its form;
    the rule's own field names work too."""
    assignments = []
    for key, value in key_values(text):
        if key == "port":
            low, _, high = value.partition("-")
            assignments += [("port_from", low), ("port_to", high or low)]
        elif key == "cidr":
            assignments.append(("ipv6_cidr" if ":" in value else "ipv4_cidr", value))
        else:
            assignments.append((key, value))
    return assignments


RULE_HELP = "a rule 'protocol=tcp,port=443,cidr=0.0.0.0/0' (repeatable; port N or N-M)"

KIND_FLAGS: dict[str, tuple[KindFlag, ...]] = {
    "tenant": (KindFlag("--domain", "spec.domains", "an e-mail domain of the tenant (repeatable)"),),
    "virtual_network": (
        KindFlag("--ipv4-cidr", "spec.ipv4_cidr", "IPv4 CIDR of the network"),
        KindFlag("--ipv6-cidr", "spec.ipv6_cidr", "IPv6 CIDR of the network"),
        KindFlag("--network-class", "spec.network_class", "network class (name or id; default class if omitted)"),
    ),
    "subnet": (
        KindFlag("--virtual-network", "spec.virtual_network", "virtual network (name or id)"),
        KindFlag("--ipv4-cidr", "spec.ipv4_cidr", "IPv4 CIDR inside the network's"),
        KindFlag("--ipv6-cidr", "spec.ipv6_cidr", "IPv6 CIDR inside the network's"),
    ),
    "security_group": (
        KindFlag("--virtual-network", "spec.virtual_network", "virtual network (name or id)"),
        KindFlag("--ingress", "spec.ingress", f"ingress {RULE_HELP}", security_rule),
        KindFlag("--egress", "spec.egress", f"egress {RULE_HELP}", security_rule),
    ),
    "external_ip": (KindFlag("--pool", "spec.pool", "external IP pool (name or id)"),),
    "nat_gateway": (
        KindFlag("--virtual-network", "spec.virtual_network", "virtual network (name or id)"),
        KindFlag("--external-ip", "spec.external_ip", "external IP (name or id)"),
    ),
}


def flags_of(kind_name: str) -> tuple[KindFlag, ...]:
    return KIND_FLAGS.get(kind_name, ())


def parse_kind_flags(kind_name: str, args: list[str]) -> list[tuple[KindFlag, str]]:
    """Pair the extra command-line words with the kind's flags (``--opt VALUE`` or ``--opt=VALUE``).

    :raises CliError: a word that is not one of the kind's flags, or a flag without a value.
    """
    by_option = {flag.option: flag for flag in flags_of(kind_name)}
    pairs: list[tuple[KindFlag, str]] = []
    words = list(args)
    while words:
        word = words.pop(0)
        option, equals, value = word.partition("=")
        flag = by_option.get(option)
        if flag is None:
            known = ", ".join(by_option) or "none besides the common ones"
            raise CliError(f"unexpected argument '{word}' for {kind_name}; its options: {known}")
        if not equals:
            if not words:
                raise CliError(f"{option} needs a value")
            value = words.pop(0)
        pairs.append((flag, value))
    return pairs


def apply_kind_flags(message: Message, pairs: list[tuple[KindFlag, str]]) -> None:
    """Set the fields the flags name on ``message``; repeated fields get one item per use.

    :raises CliError: a value that does not fit its field, named with the option.
    """
    for flag, value in pairs:
        field = lookup_field(descriptor_of(message), flag.path)
        if not isinstance(field, FieldDescriptor):
            raise CliError(f"{flag.option}: {message.DESCRIPTOR.name} has no field {flag.path}")
        try:
            if flag.parse_item is not None:
                item = _repeated(message, flag.path).add()
                for path, text in flag.parse_item(value):
                    apply_assignment(item, path, text)
            elif field.is_repeated and not is_map(field):
                items = [part.strip() for part in value.split(",") if part.strip()]
                _repeated(message, flag.path).extend(convert_scalar(field, item, flag.path) for item in items)
            else:
                apply_assignment(message, flag.path, value)
        except CliError as error:
            raise CliError(f"{flag.option} '{value}': {error}") from None


def _repeated(message: Message, path: str) -> Any:
    current: Any = message
    for name in path.split("."):
        current = getattr(current, name)
    return current


def flags_help() -> str:
    lines = ["Options per kind (after KIND):"]
    for kind_name, flags in KIND_FLAGS.items():
        lines.append(f"  {kind_name}: " + ", ".join(flag.option for flag in flags))
    return "\n".join(lines)
