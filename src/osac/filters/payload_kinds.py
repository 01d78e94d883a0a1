"""Event filters that only choose payload kinds, answered without SQL.

``has(event.cluster)``, or ``has(event.cluster) || has(event.compute_instance)``, keeps the
events whose payload is one of those kinds: the compiled SQL is ``kind = 'cluster' OR ...``.
A Watch stream with such a filter needs no query of its own: the shared window of recent
events (``store/recent.py``) already holds every event with its kind, so the stream is served
from memory like an unfiltered one (docs/watch.md).
"""

from __future__ import annotations

from osac.filters.roots import EventRoot
from osac.filters.syntax import Call, Ident, Logical, Node, Select, parse


def payload_kinds(expression: str, root: EventRoot) -> frozenset[str] | None:
    """The payload kinds ``expression`` selects when it says nothing else (a ``has()`` of a
    payload field, or an ``||`` chain of them); None for any other filter. The expression is
    one that ``compile_filter`` accepted."""
    node = parse(expression)
    operands: tuple[Node, ...] = node.operands if isinstance(node, Logical) and node.op == "||" else (node,)
    oneof = root.descriptor.oneofs_by_name.get(root.payload_oneof)
    if oneof is None:
        return None
    payloads = {field.name for field in oneof.fields}
    kinds: set[str] = set()
    for operand in operands:
        match operand:
            case Call(function="has", target=None, args=(Select(operand=Ident(name="event"), field=name),)) \
                    if name in payloads:
                kinds.add(name)
            case _:
                return None
    return frozenset(kinds)
