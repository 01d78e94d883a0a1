"""Network attachments of instances as people write them on the command line:
``--network-attachment subnet=app,security-groups=web;ssh,primary=true`` (and, for bare metal,
``interface=ens1f1``).

An attachment is ``KEY=VALUE`` pairs separated by commas:

    subnet           the subnet, by name or id (required)
    security-groups  security groups, by name or id, separated by ';' (none: the default SG on
                     the default network, otherwise no SG at all)
    primary          true or false (exactly one primary when there are several attachments)
    interface        the host interface (bare-metal instances)

The field names (``security_groups``) work too, and ``sg`` / ``sgs`` for the groups.
"""

from __future__ import annotations

from osac.cli.errors import CliError

EXAMPLE = "subnet=app,security-groups=web;ssh,primary=true"
KEYS = ("subnet", "security-groups", "primary", "interface")
_ALIASES = {"security_groups": "security-groups", "sg": "security-groups", "sgs": "security-groups"}
_FIELDS = {"subnet": "subnet", "security-groups": "security_groups", "primary": "primary", "interface": "interface"}


def parse_attachment(text: str) -> list[tuple[str, str]]:
    """The attachment fields (name, text value) that ``text`` describes; security groups come
    back comma-separated, as a list field's value.

    :raises CliError: a part that is not KEY=VALUE, an unknown or repeated key, no subnet.
    """
    given: dict[str, str] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        key, equals, value = part.partition("=")
        key = key.strip().lower()
        key = _ALIASES.get(key, key)
        if not equals or not key:
            raise CliError(f"'{part.strip()}' is not KEY=VALUE; write attachments like {EXAMPLE}")
        if key not in KEYS:
            raise CliError(f"unknown key '{key}'; the keys are {', '.join(KEYS)} (e.g. {EXAMPLE})")
        if key in given:
            raise CliError(f"{key} is given twice; give it once (separate security groups with ';')")
        given[key] = value.strip()
    if not given.get("subnet"):
        raise CliError(f"no subnet; add subnet=NAME (e.g. {EXAMPLE})")
    fields = []
    for key, value in given.items():
        if key == "security-groups":
            value = ",".join(group.strip() for group in value.split(";") if group.strip())
        fields.append((_FIELDS[key], value))
    return fields
