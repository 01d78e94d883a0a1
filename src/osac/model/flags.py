"""The natural options of ``osac create`` and ``osac edit`` for a kind (``--virtual-network``,
``--ingress RULE``), as data the descriptor carries.

Each ``Flag`` names a field path. A plain flag sets the field like ``--set PATH=VALUE``; on a
repeated field each use appends. A flag with ``parse_item`` adds one message to a repeated field
from text, parsed by the CLI's item parser of that name (``rule``: a security rule
``protocol=tcp,port=443,cidr=0.0.0.0/0``; ``attachment``: a network attachment). A ``switch``
takes no value (``--default``); flags sharing a ``group`` exclude each other (the one target of an
external IP attachment). A flag with ``item_field`` sets that field of the *first* item of the
list (``--subnet`` and ``--security-group`` describe an instance's one attachment). A
``reads_file`` flag takes a file name and sets the file's text. A flag with ``parse_entry`` sets
one entry of a map from text, parsed by the CLI's entry parser of that name (``node_set``:
``--node-set workers=3``), keeping the others.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The item parsers a ``Flag.parse_item`` can name (the CLI supplies one for each).
ITEM_PARSERS = ("rule", "attachment")
#: The entry parsers a ``Flag.parse_entry`` can name.
ENTRY_PARSERS = ("node_set",)


@dataclass(frozen=True)
class Flag:
    option: str
    path: str
    help: str
    #: The name of the item parser (one of ``ITEM_PARSERS``).
    parse_item: str | None = None
    aliases: tuple[str, ...] = ()
    #: Takes no value: ``--default`` means ``--default=true``.
    switch: bool = False
    #: Flags of one group exclude each other.
    group: str | None = None
    #: Sets this field of the first item of the repeated field ``path`` (created if absent).
    item_field: str | None = None
    #: The value names a file whose text is the field's value (``--ssh-key-file``).
    reads_file: bool = False
    #: The name of the entry parser (one of ``ENTRY_PARSERS``) setting one entry of the map
    #: field ``path``; other entries are kept, also on edit.
    parse_entry: str | None = None

    def __post_init__(self) -> None:
        if self.parse_item is not None and self.parse_item not in ITEM_PARSERS:
            raise ValueError(f"flag {self.option}: no item parser '{self.parse_item}'; expected one of {ITEM_PARSERS}")
        if self.parse_entry is not None and self.parse_entry not in ENTRY_PARSERS:
            raise ValueError(f"flag {self.option}: no entry parser '{self.parse_entry}'; expected one of {ENTRY_PARSERS}")

    @property
    def options(self) -> tuple[str, ...]:
        return (self.option, *self.aliases)


RULE_HELP = "rule 'protocol=tcp,port=443,cidr=0.0.0.0/0' (repeatable; ports=N-M, cidr6=; 'none': no rules)"
VN = ("--vn",)
ATTACHMENT_HELP = "attachment 'subnet=S,security-groups=A;B,primary=true' (repeatable; default: the tenant's)"


def instance_flags(attachments: str, attachment_help: str, run_strategies: str) -> tuple[Flag, ...]:
    """The options compute and bare-metal instances share; ``attachments`` is their list field."""
    return (
        Flag("--subnet", attachments, "subnet of the one network attachment (name or id)", item_field="subnet"),
        Flag("--security-group", attachments, "security group of that attachment (repeatable)",
             aliases=("--sg",), item_field="security_groups"),
        Flag("--network-attachment", attachments, attachment_help, "attachment"),
        Flag("--external-ip-attachment", "spec.auto_external_ip_attachment",
             "also create an external IP attached to the instance", switch=True),
        Flag("--ssh-key-file", "spec.ssh_public_key", "file with the SSH public key", reads_file=True),
        Flag("--user-data-file", "spec.user_data", "file with the user data (cloud-init)", reads_file=True),
        Flag("--run-strategy", "spec.run_strategy", run_strategies),
    )
