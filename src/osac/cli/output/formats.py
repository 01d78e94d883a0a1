"""The output formats of ``-o``: a plain enum, so the options can be declared without loading the
renderers."""

from __future__ import annotations

from enum import StrEnum


class OutputFormat(StrEnum):
    TABLE = "table"
    JSON = "json"
    YAML = "yaml"
    NAME = "name"
