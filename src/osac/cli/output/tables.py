"""The columns ``osac get`` shows for a kind.

Each kind gets the common identity columns, its own columns (``Kind.columns`` in the registry,
``osac.model.columns``), then state (and the kind's ``after_state`` columns), age and id. Columns
whose path the message does not have (a kind without ``status.state``, a private-only field in
the public API) are dropped, and ``api`` keeps a column to one API, so one table serves both.
"""

from __future__ import annotations

from google.protobuf.descriptor import Descriptor

from osac.cli.output.fields import lookup_field
from osac.model import protos
from osac.model.columns import PRIVATE, PUBLIC, Column
from osac.model.kinds import Kind

LEADING = (
    Column("NAME", "metadata.name"),
    Column("TENANT", "metadata.tenant"),
)

TRAILING = (
    Column("STATE", "status.state", "enum"),
    Column("AGE", "metadata.creation_timestamp", "age"),
    Column("ID", "id"),
)


def columns_for(kind: Kind, descriptor: Descriptor) -> list[Column]:
    """The columns of ``kind`` that exist in the message ``descriptor`` (public or private)."""
    api = PRIVATE if descriptor.full_name.startswith(protos.PRIVATE + ".") else PUBLIC
    own = kind.columns
    state, *rest = TRAILING
    wanted = [*LEADING, *(c for c in own if not c.after_state), state, *(c for c in own if c.after_state), *rest]
    return [
        column for column in wanted
        if lookup_field(descriptor, column.path) is not None and column.api in (None, api)
    ]


def reference_targets(kind: Kind, columns: list[Column]) -> dict[str, str]:
    """For each ``ref`` column, the kind its path refers to (from the registry's references), by
    path: ``spec.external_ip`` -> ``external_ip``. A ``oneof`` column adds the references beside
    the group, its members among them (``spec.compute_instance`` -> ``compute_instance``)."""
    targets = {reference.path: reference.target for reference in kind.references}
    found: dict[str, str] = {}
    for column in columns:
        if column.format == "ref" and column.path in targets:
            found[column.path] = targets[column.path]
        elif column.format == "oneof":
            parent = column.path.rpartition(".")[0]
            found.update({path: target for path, target in targets.items() if path.rpartition(".")[0] == parent})
    return found
