"""Errors of the filter compiler.

Hierarchy::

    ValueError
     └── FilterError      the expression is not in the supported CEL subset, names an unknown
                          field or enum value, or mixes incompatible types -> INVALID_ARGUMENT

Every message starts with ``filter:``, names the construct or field at fault and, where there is
one, the fix (the known fields, the known enum values, the supported functions). Programming
errors of the caller (a naive ``now``, an unknown SQL dialect) are plain ``ValueError``s.
"""

from __future__ import annotations


class FilterError(ValueError):
    """The filter expression cannot be translated; the API answers INVALID_ARGUMENT."""

    def __init__(self, message: str) -> None:
        super().__init__(f"filter: {message}")
