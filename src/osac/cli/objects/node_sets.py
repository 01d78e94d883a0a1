"""``--node-set KEY=[HOSTTYPE:]SIZE``: one entry of a cluster's ``spec.node_sets`` from text.

The host type may be left out: the cluster's template gives each key its host type, and the
server fills it in (a given one must match the template's). On edit the entry is merged into
the cluster's node sets, so ``osac edit cluster prod --node-set gpu=2`` adds or resizes ``gpu``
and leaves the others alone.
"""

from __future__ import annotations

from osac.cli.errors import CliError

EXAMPLE = "workers=3 or workers=vm-standard:3"


def parse_node_set(text: str) -> tuple[str, list[tuple[str, str]]]:
    """``("workers", [("host_type", "vm-standard"), ("size", "3")])`` from ``workers=vm-standard:3``.

    :raises CliError: no key, or a size that is not a whole number >= 0.
    """
    key, equals, rest = text.partition("=")
    key = key.strip()
    if not equals or not key:
        raise CliError(f"expected KEY=[HOSTTYPE:]SIZE, e.g. {EXAMPLE}")
    host_type, colon, size = rest.rpartition(":")
    size = size.strip()
    if not size.isdigit():
        raise CliError(f"the size of node set '{key}' must be a whole number >= 0, got '{size}' ({EXAMPLE})")
    assignments = [("size", size)]
    if colon:
        if not host_type.strip():
            raise CliError(f"node set '{key}': name the host type before ':' or leave out both ({EXAMPLE})")
        assignments.insert(0, ("host_type", host_type.strip()))
    return key, assignments
