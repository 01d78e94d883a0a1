"""Enum value names: bare (``SUBNET_STATE_READY``), qualified, or as strings, always integers."""

from __future__ import annotations

from google.protobuf.descriptor import Descriptor, EnumDescriptor

from osac.filters.errors import FilterError
from osac.filters.types import enums_reachable


class EnumIndex:
    """Every enum value reachable from a root message, by value name."""

    def __init__(self, root: Descriptor, variable: str) -> None:
        self._variable = variable
        self._by_name: dict[str, list[EnumDescriptor]] = {}
        for enum in enums_reachable(root):
            for value in enum.values:
                self._by_name.setdefault(value.name, []).append(enum)

    def resolve(self, name: str) -> tuple[EnumDescriptor, int]:
        """The enum and number of a bare identifier that is not a variable."""
        qualifier, _, value_name = name.rpartition(".")
        candidates = [
            enum for enum in self._by_name.get(value_name, []) if _matches_qualifier(enum, qualifier)
        ]
        if not candidates:
            raise FilterError(
                f"unknown identifier '{name}'; fields are reached through '{self._variable}' "
                f"(e.g. {self._variable}.metadata.name) and enum values are written in full"
                f"{self._example()}"
            )
        numbers = {enum.values_by_name[value_name].number for enum in candidates}
        if len(numbers) > 1:
            names = ", ".join(sorted(enum.full_name for enum in candidates))
            raise FilterError(f"ambiguous enum value '{name}' (in {names}); qualify it with the enum name")
        return candidates[0], numbers.pop()

    def _example(self) -> str:
        for name, enums in self._by_name.items():
            if not name.endswith("_UNSPECIFIED") and enums:
                return f" (e.g. {name})"
        return ""


def resolve_in(enum: EnumDescriptor, name: str) -> int:
    """The number of value ``name`` (bare or qualified) of ``enum``."""
    qualifier, _, value_name = name.rpartition(".")
    value = enum.values_by_name.get(value_name)
    if value is None or not _matches_qualifier(enum, qualifier):
        known = ", ".join(value.name for value in enum.values)
        raise FilterError(f"unknown value '{name}' of enum {enum.name}; known values: {known}")
    return int(value.number)


def _matches_qualifier(enum: EnumDescriptor, qualifier: str) -> bool:
    if not qualifier:
        return True
    # Proto scoping: a value is named next to its enum, or after it (Enum.VALUE).
    scopes = {enum.name, enum.full_name, enum.full_name.rpartition(".")[0]}
    return qualifier in scopes or enum.full_name.endswith("." + qualifier)
