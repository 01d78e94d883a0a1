"""SQL conditions over stored objects' fields, built with the filter compiler (so the JSON
paths are exactly those the List filters use, on SQLite and PostgreSQL alike)."""

from __future__ import annotations

import json

from sqlalchemy import ColumnElement

from osac import filters
from osac.model.kinds import Kind
from osac.store.labels import object_root
from osac.store.objects import Tx
from osac.store.tables import LIVE


def where(tx: Tx, kind: Kind, expression: str) -> ColumnElement[bool]:
    """``expression`` (CEL over the private ``this``) as a condition on ``LIVE[kind.name]``."""
    root = object_root(LIVE[kind.name], kind.private_descriptor)
    return filters.compile_filter(expression, root, dialect=tx.dialect, now=tx.clock.now())


def field_equals(tx: Tx, kind: Kind, path: str, value: str) -> ColumnElement[bool]:
    """``this.<path> == "<value>"``."""
    return where(tx, kind, f"this.{path} == {json.dumps(value)}")


def has_label(tx: Tx, kind: Kind, key: str, value: str) -> ColumnElement[bool]:
    """The object carries label ``key=value``."""
    return where(
        tx, kind, f"{json.dumps(key)} in this.metadata.labels && this.metadata.labels[{json.dumps(key)}] == {json.dumps(value)}"
    )
