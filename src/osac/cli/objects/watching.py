"""Change-stream filters for one kind, from the filters a person writes for ``get``.

List filters are written over ``this`` (the object); Watch filters over ``event`` (api.md §7.2).
``get -w`` and ``watch KIND`` keep the person's filter and point ``this`` at the event's
payload: ``this.spec.virtual_network == 'x'`` becomes ``event.subnet.spec.virtual_network == 'x'``.
"""

from __future__ import annotations

import re

from osac.cli.objects.kinds import cel_string
from osac.model.kinds import Kind

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def kind_event_filter(kind: Kind, expression: str | None, ids: list[str] | None) -> str:
    """Events of ``kind`` (only of objects ``ids`` if given) whose object matches ``expression``."""
    payload = f"event.{kind.name}"
    parts = [f"has({payload})"]
    if ids:
        parts.append(f"{payload}.id in [{', '.join(cel_string(i) for i in ids)}]")
    if expression and expression.strip():
        parts.append(f"({rebase_this(expression, payload)})")
    return " && ".join(parts)


def rebase_this(expression: str, replacement: str) -> str:
    """``expression`` with the identifier ``this`` (outside string literals, not a field name
    after ``.``) replaced by ``replacement``."""
    out: list[str] = []
    index = 0
    quote: str | None = None
    while index < len(expression):
        char = expression[index]
        if quote:
            out.append(char)
            if char == "\\" and index + 1 < len(expression):
                out.append(expression[index + 1])
                index += 1
            elif char == quote:
                quote = None
            index += 1
            continue
        if char in "'\"":
            quote = char
            out.append(char)
            index += 1
            continue
        match = _IDENTIFIER.match(expression, index)
        if match:
            word = match.group()
            previous = expression[:index].rstrip()[-1:]
            out.append(replacement if word == "this" and previous != "." else word)
            index = match.end()
            continue
        out.append(char)
        index += 1
    return "".join(out)
