"""Natural per-kind options of ``osac create`` and ``osac edit`` (``--virtual-network``,
``--ingress RULE``), as data.

Each ``KindFlag`` names a field path. A plain flag sets the field like ``--set PATH=VALUE``; on
a repeated field each use appends. A flag with ``parse_item`` adds one message to a repeated
field from text (a security rule: ``protocol=tcp,port=443,cidr=0.0.0.0/0``); ``none`` gives no
item, so ``--ingress none`` means "no rules". A ``switch`` takes no value (``--default``); flags
sharing a ``group`` exclude each other (the one target of an external IP attachment). A flag with
``item_field`` sets that field of the *first* item of the list (``--subnet`` and
``--security-group`` describe an instance's one attachment), so it excludes the flags adding
whole items to the same list. A ``reads_file`` flag takes a file name and sets the file's text.
A flag with ``parse_entry`` sets one entry of a map (``--node-set workers=3``), keeping the others.

On create the flags add to what files give; on edit a list named by a flag is replaced by the
flag's items, and flags of immutable fields are refused. Adding a kind's options is adding
entries to ``KIND_FLAGS``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from osac.cli.errors import CliError
from osac.cli.objects.inputs import apply_assignment, convert_scalar, read_text
from osac.cli.objects.node_sets import parse_node_set
from osac.cli.objects.rules import NO_RULES, parse_rule
from osac.cli.objects.workload_flags import parse_attachment
from osac.cli.output.fields import descriptor_of, is_map, lookup_field
from osac.model.kinds import Kind

#: Field assignments (path relative to the item, text value) for one item of a repeated field.
ItemParser = Callable[[str], list[tuple[str, str]]]
#: The key of one map entry and the assignments (path relative to the entry, text value) for it.
EntryParser = Callable[[str], tuple[str, list[tuple[str, str]]]]


@dataclass(frozen=True)
class KindFlag:
    option: str
    path: str
    help: str
    parse_item: ItemParser | None = None
    aliases: tuple[str, ...] = ()
    #: Takes no value: ``--default`` means ``--default=true``.
    switch: bool = False
    #: Flags of one group exclude each other.
    group: str | None = None
    #: Sets this field of the first item of the repeated field ``path`` (created if absent).
    item_field: str | None = None
    #: The value names a file whose text is the field's value (``--ssh-key-file``).
    reads_file: bool = False
    #: Sets one entry of the map field ``path`` from text (``--node-set workers=3``); other
    #: entries are kept, also on edit.
    parse_entry: EntryParser | None = None

    @property
    def options(self) -> tuple[str, ...]:
        return (self.option, *self.aliases)


RULE_HELP = "rule 'protocol=tcp,port=443,cidr=0.0.0.0/0' (repeatable; ports=N-M, cidr6=; 'none': no rules)"
VN = ("--vn",)
VM_ATTACHMENTS = "spec.compute_network_attachments"
BM_ATTACHMENTS = "spec.network_attachments"
ATTACHMENT_HELP = "attachment 'subnet=S,security-groups=A;B,primary=true' (repeatable; default: the tenant's)"


def _instance_flags(attachments: str, attachment_help: str, run_strategies: str) -> tuple[KindFlag, ...]:
    """The options compute and bare-metal instances share; ``attachments`` is their list field."""
    return (
        KindFlag("--subnet", attachments, "subnet of the one network attachment (name or id)", item_field="subnet"),
        KindFlag("--security-group", attachments, "security group of that attachment (repeatable)",
                 aliases=("--sg",), item_field="security_groups"),
        KindFlag("--network-attachment", attachments, attachment_help, parse_attachment),
        KindFlag("--external-ip-attachment", "spec.auto_external_ip_attachment",
                 "also create an external IP attached to the instance", switch=True),
        KindFlag("--ssh-key-file", "spec.ssh_public_key", "file with the SSH public key", reads_file=True),
        KindFlag("--user-data-file", "spec.user_data", "file with the user data (cloud-init)", reads_file=True),
        KindFlag("--run-strategy", "spec.run_strategy", run_strategies),
    )


KIND_FLAGS: dict[str, tuple[KindFlag, ...]] = {
    "tenant": (KindFlag("--domain", "spec.domains", "an e-mail domain of the tenant (repeatable)"),),
    "virtual_network": (
        KindFlag("--cidr", "spec.ipv4_cidr", "IPv4 CIDR of the network", aliases=("--ipv4-cidr",)),
        KindFlag("--ipv6-cidr", "spec.ipv6_cidr", "IPv6 CIDR of the network"),
        KindFlag("--network-class", "spec.network_class", "network class (name or id; default class if omitted)"),
    ),
    "subnet": (
        KindFlag("--virtual-network", "spec.virtual_network", "virtual network (name or id)", aliases=VN),
        KindFlag("--cidr", "spec.ipv4_cidr", "IPv4 CIDR inside the network's", aliases=("--ipv4-cidr",)),
        KindFlag("--ipv6-cidr", "spec.ipv6_cidr", "IPv6 CIDR inside the network's"),
    ),
    "security_group": (
        KindFlag("--virtual-network", "spec.virtual_network", "virtual network (name or id)", aliases=VN),
        KindFlag("--ingress", "spec.ingress", f"ingress {RULE_HELP}", parse_rule),
        KindFlag("--egress", "spec.egress", f"egress {RULE_HELP}", parse_rule),
    ),
    "external_ip": (KindFlag("--pool", "spec.pool", "external IP pool (name or id)"),),
    "external_ip_attachment": (
        KindFlag("--external-ip", "spec.external_ip", "external IP (name or id)", aliases=("--eip",)),
        KindFlag("--compute-instance", "spec.compute_instance", "target compute instance (name or id)",
                 aliases=("--vm",), group="target"),
        KindFlag("--cluster", "spec.cluster", "target cluster (name or id)", group="target"),
        KindFlag("--baremetal-instance", "spec.baremetal_instance", "target bare-metal instance (name or id)",
                 aliases=("--bare-metal-instance", "--bmi"), group="target"),
        KindFlag("--endpoint", "spec.target_endpoint", "endpoint of a cluster target: api or ingress"),
    ),
    "nat_gateway": (
        KindFlag("--virtual-network", "spec.virtual_network", "virtual network (name or id)", aliases=VN),
        KindFlag("--external-ip", "spec.external_ip", "external IP (name or id)", aliases=("--eip",)),
    ),
    "network_class": (
        KindFlag("--title", "title", "title shown to tenants"),
        KindFlag("--description", "description", "description shown to tenants"),
        KindFlag("--fabric-manager", "fabric_manager", "registered fabric manager (required)"),
        KindFlag("--k8s-manager", "k8s_manager", "registered k8s manager (none: bare metal only)"),
        KindFlag("--default", "is_default", "make it the default class", switch=True),
        KindFlag("--vip-prefix-length", "spec.vip_prefix_length", "prefix length of a subnet's VIP range (28)"),
        KindFlag("--vn-cidr", "spec.defaults.virtual_network_ipv4_cidr", "tenant default: network IPv4 CIDR"),
        KindFlag("--vn-ipv6-cidr", "spec.defaults.virtual_network_ipv6_cidr", "tenant default: network IPv6 CIDR"),
        KindFlag("--subnet-cidr", "spec.defaults.subnet_ipv4_cidr", "tenant default: subnet IPv4 CIDR"),
        KindFlag("--subnet-ipv6-cidr", "spec.defaults.subnet_ipv6_cidr", "tenant default: subnet IPv6 CIDR"),
        KindFlag("--nat-gateway", "spec.defaults.enable_nat_gateway", "tenant default: a NAT gateway",
                 switch=True),
        KindFlag("--ingress", "spec.defaults.ingress_rules", f"tenant default: ingress {RULE_HELP}", parse_rule),
        KindFlag("--egress", "spec.defaults.egress_rules", f"tenant default: egress {RULE_HELP}", parse_rule),
    ),
    "external_ip_pool": (
        KindFlag("--cidr", "spec.cidrs", "a CIDR of the pool (repeatable)"),
        KindFlag("--family", "spec.ip_family", "ipv4 (default) or ipv6"),
    ),
    "cluster": (
        KindFlag("--template", "spec.template", "cluster template (name or id)"),
        KindFlag("--node-set", "spec.node_sets", "node set KEY=[HOSTTYPE:]SIZE (repeatable; default: the template's)",
                 parse_entry=parse_node_set),
        KindFlag("--subnet", "spec.network_attachment.subnet", "subnet of the nodes and VIPs (default: the tenant's)"),
        KindFlag("--security-group", "spec.network_attachment.security_groups",
                 "security group of the nodes (repeatable)", aliases=("--sg",)),
        KindFlag("--external-ip-attachment", "spec.auto_external_ip_attachment",
                 "also create external IPs for the API and ingress endpoints", switch=True),
        KindFlag("--pull-secret-file", "spec.pull_secret", "file with the registry pull secret (JSON)",
                 reads_file=True),
        KindFlag("--ssh-key-file", "spec.ssh_public_key", "file with the SSH public key of the nodes", reads_file=True),
        KindFlag("--release-image", "spec.release_image", "OpenShift release image (default: the template's)"),
        KindFlag("--pod-cidr", "spec.network.pod_cidr", "pod network (default: the template's, else 10.128.0.0/14)"),
        KindFlag("--service-cidr", "spec.network.service_cidr",
                 "service network (default: the template's, else 172.30.0.0/16)"),
        KindFlag("--catalog-item", "spec.catalog_item", "catalogue label stored for metering"),
    ),
    "compute_instance": (
        KindFlag("--template", "spec.template", "compute instance template (name or id)"),
        KindFlag("--instance-type", "spec.instance_type", "instance type (name or id; default: the template's)"),
        *_instance_flags(VM_ATTACHMENTS, ATTACHMENT_HELP, "Always (default) or Halted"),
    ),
    "bare_metal_instance": (
        KindFlag("--host-type", "spec.host_type", "bare-metal host type (name or id)"),
        *_instance_flags(BM_ATTACHMENTS, ATTACHMENT_HELP.replace("primary=true", "interface=I,primary=true"),
                         "always (default) or halted"),
    ),
}


def flags_of(kind_name: str) -> tuple[KindFlag, ...]:
    return KIND_FLAGS.get(kind_name, ())


def parse_kind_flags(kind_name: str, args: list[str]) -> list[tuple[KindFlag, str]]:
    """Pair the extra command-line words with the kind's flags (``--opt VALUE``, ``--opt=VALUE``,
    or a bare switch), checking rule texts and exclusive groups before anything is sent.

    :raises CliError: a word that is not one of the kind's flags, a flag without a value, a bad
        rule (named with its flag), or two flags of one group.
    """
    by_option = {option: flag for flag in flags_of(kind_name) for option in flag.options}
    pairs: list[tuple[KindFlag, str]] = []
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
        if flag.parse_item is not None and not _is_empty_list(value):
            try:
                flag.parse_item(value)
            except CliError as error:
                raise CliError(f"{flag.option} '{value}': {error}") from None
        if flag.parse_entry is not None:
            try:
                flag.parse_entry(value)
            except CliError as error:
                raise CliError(f"{flag.option} '{value}': {error}") from None
        pairs.append((flag, value))
    _check_groups(kind_name, pairs)
    _check_item_flags(pairs)
    return pairs


def _check_groups(kind_name: str, pairs: list[tuple[KindFlag, str]]) -> None:
    chosen: dict[str, KindFlag] = {}
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


def _check_item_flags(pairs: list[tuple[KindFlag, str]]) -> None:
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


def apply_kind_flags(message: Message, pairs: list[tuple[KindFlag, str]], *, replace: bool = False) -> list[str]:
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
            elif flag.parse_entry is not None:
                key, assignments = flag.parse_entry(value)
                entry = _repeated(message, flag.path)[key]
                for path, text in assignments:
                    apply_assignment(entry, path, text)
            elif flag.parse_item is not None:
                if not _is_empty_list(value):
                    item = _repeated(message, flag.path).add()
                    for path, text in flag.parse_item(value):
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


def check_mutable(kind: Kind, pairs: list[tuple[KindFlag, str]]) -> None:
    """:raises CliError: a flag names a field that cannot change after create."""
    for flag, _ in pairs:
        if any(flag.path == path or flag.path.startswith(path + ".") for path in kind.immutable):
            raise CliError(f"{flag.option}: {kind.message} {flag.path} cannot be changed after create")


def _set_first_item(message: Message, flag: KindFlag, value: str, *, fresh: bool) -> None:
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
    for kind_name, flags in KIND_FLAGS.items():
        lines.append(f"  {kind_name}: " + ", ".join("|".join(flag.options) for flag in flags))
    return "\n".join(lines)

