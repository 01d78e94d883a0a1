"""The live and archive table of every registered kind."""

from __future__ import annotations

from sqlalchemy import Table

from osac.model import registry
from osac.store.schema import archive_table, object_table

LIVE: dict[str, Table] = {kind.name: object_table(kind.table) for kind in registry.KINDS}
ARCHIVE: dict[str, Table] = {kind.name: archive_table(kind.table) for kind in registry.KINDS}
