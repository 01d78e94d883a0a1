"""A bounded cache of compiled filters, for the filters that do not depend on the time.

A console page or an API client repeats the same filters (the stalled clusters, a state, a name),
and each List compiles its filter again. The SQL of a filter depends on the expression, the root
it is compiled against (the descriptor checked, the JSON column read, the hidden fields, the label
index), the SQL dialect and, when the expression names ``now``, on the time: ``now`` is folded into
the SQL as a constant (``creation_timestamp > now - duration('1h')`` becomes a fixed timestamp).
So only expressions that never name ``now`` are kept; one that does is compiled on every call
with that call's time, never answered with a stale one. Roots are compared by identity (they are
immutable): callers that want hits keep one root per table and descriptor, as
``osac.store.labels.object_root`` does.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from sqlalchemy import ColumnElement

from osac.filters.roots import FilterRoot
from osac.filters.syntax import Call, Ident, Index, ListLiteral, Literal, Logical, Node, Select, Unary

#: Compiled filters kept, the least recently used dropped first.
MAX_ENTRIES = 512

Key = tuple[str, str, FilterRoot]


class CompiledFilters:
    """Compiled predicates by (expression, dialect, root), at most ``size`` of them."""

    def __init__(self, size: int = MAX_ENTRIES) -> None:
        self.size = size
        self._entries: OrderedDict[Key, ColumnElement[bool]] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_compile(self, key: Key, tree: Node, compile: Callable[[], ColumnElement[bool]]) -> ColumnElement[bool]:
        """The cached predicate of ``key``, else ``compile()``'s, kept when ``tree`` does not
        name ``now``. Errors of ``compile`` propagate and nothing is kept."""
        if names_now(tree):
            return compile()
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                return found
        predicate = compile()
        with self._lock:
            self._entries[key] = predicate
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return predicate

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


def names_now(node: Node) -> bool:
    """Whether the identifier ``now`` appears anywhere in ``node`` (even as a comprehension's
    variable, which would shadow it: such a filter is simply not cached)."""
    if isinstance(node, Ident):
        return node.name == "now"
    if isinstance(node, Literal):
        return False
    children: tuple[Any, ...]
    if isinstance(node, Select):
        children = (node.operand,)
    elif isinstance(node, Index):
        children = (node.operand, node.index)
    elif isinstance(node, Call):
        children = (*((node.target,) if node.target is not None else ()), *node.args)
    elif isinstance(node, Unary):
        children = (node.operand,)
    elif isinstance(node, Logical | ListLiteral):
        children = node.operands if isinstance(node, Logical) else node.items
    else:  # Binary
        children = (node.left, node.right)
    return any(names_now(child) for child in children)
