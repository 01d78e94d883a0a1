"""The registry of API kinds: one descriptor per kind (``osac.model.descriptors``), looked up by
name, message, collection or what a person types."""

from __future__ import annotations

from collections.abc import Iterator

from osac.model.descriptors import BY_NAME as _BY_NAME
from osac.model.descriptors import KINDS as KINDS
from osac.model.kinds import Kind, Reference

#: Full protobuf names of every kind's write-only fields (filters refuse them).
WRITE_ONLY_FIELDS: frozenset[str] = frozenset().union(*(kind.write_only_fields for kind in KINDS))


def kinds() -> Iterator[Kind]:
    return iter(KINDS)


def get(name: str) -> Kind:
    return _BY_NAME[name]


def has(name: str) -> bool:
    """Whether ``name`` is a kind's name."""
    return name in _BY_NAME


def by_message(message: str) -> Kind:
    for kind in KINDS:
        if kind.message == message:
            return kind
    raise KeyError(message)


def by_collection(collection: str) -> Kind:
    for kind in KINDS:
        if kind.collection == collection:
            return kind
    raise KeyError(collection)


def referring(target: str) -> tuple[tuple[Kind, Reference], ...]:
    """Every (kind, reference) whose reference names a ``target`` object, in registry order:
    a virtual network's subnets, security groups and NAT gateways."""
    return tuple((kind, reference) for kind in KINDS for reference in kind.references if reference.target == target)


def lookup(word: str) -> Kind | None:
    """A kind from what a person types: singular or plural, any case, with or without ``_``,
    or a short alias (``get subnets``, ``get ComputeInstance``, ``get vm``)."""
    wanted = word.lower().replace("-", "_")
    squashed = wanted.replace("_", "")
    for kind in KINDS:
        spellings = {kind.name, kind.collection, kind.message.lower(), kind.service.lower(), *kind.aliases}
        if wanted in spellings or squashed in {s.replace("_", "") for s in spellings}:
            return kind
    return None
