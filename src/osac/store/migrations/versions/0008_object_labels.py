"""The label index ``object_labels`` and the triggers that keep it, on every live table
(declared in ``osac/store/labels.py``), filled from the objects already stored.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels = None
depends_on = None

#: The live tables at this revision (a kind added later adds its triggers in its own revision).
LIVE_TABLES = (
    "baremetal_instances",
    "cluster_templates",
    "clusters",
    "compute_instance_templates",
    "compute_instances",
    "external_ip_attachments",
    "external_ip_pools",
    "external_ips",
    "host_types",
    "hubs",
    "instance_types",
    "nat_gateways",
    "network_classes",
    "security_groups",
    "subnets",
    "tenants",
    "virtual_networks",
)

_PG_FUNCTION = """
CREATE FUNCTION osac_object_labels() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND (NEW.data -> 'metadata' -> 'labels') IS NOT DISTINCT FROM
                            (OLD.data -> 'metadata' -> 'labels') THEN
        RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        DELETE FROM object_labels WHERE object_table = TG_TABLE_NAME AND object_id = OLD.id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND jsonb_typeof(NEW.data -> 'metadata' -> 'labels') = 'object' THEN
        INSERT INTO object_labels (object_table, object_id, key, value)
        SELECT TG_TABLE_NAME, NEW.id, entry.key, entry.value
        FROM jsonb_each_text(NEW.data -> 'metadata' -> 'labels') AS entry;
    END IF;
    RETURN NULL;
END
$$
"""


def _sqlite_insert(table: str, row: str) -> str:
    return (
        f"INSERT INTO object_labels (object_table, object_id, key, value) "
        f"SELECT '{table}', {row}.id, entry.key, entry.value "
        f"FROM json_each({row}.data, '$.metadata.labels') AS entry;"
    )


def _sqlite_delete(table: str) -> str:
    return f"DELETE FROM object_labels WHERE object_table = '{table}' AND object_id = OLD.id;"


def upgrade() -> None:
    op.create_table(
        "object_labels",
        sa.Column("object_table", sa.String(64), nullable=False),
        sa.Column("object_id", sa.String(36), nullable=False),
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("value", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("object_table", "key", "value", "object_id", name="pk_object_labels"),
    )
    op.create_index("ix_object_labels_object_id", "object_labels", ["object_id"])
    postgresql = op.get_bind().dialect.name == "postgresql"
    if postgresql:
        op.execute(_PG_FUNCTION)
    for table in LIVE_TABLES:
        if postgresql:
            op.execute(
                f"CREATE TRIGGER {table}_labels AFTER INSERT OR UPDATE OF data OR DELETE ON {table} "
                f"FOR EACH ROW EXECUTE FUNCTION osac_object_labels()"
            )
            op.execute(
                f"INSERT INTO object_labels (object_table, object_id, key, value) "
                f"SELECT '{table}', t.id, entry.key, entry.value FROM {table} AS t, "
                f"jsonb_each_text(CASE WHEN jsonb_typeof(t.data -> 'metadata' -> 'labels') = 'object' "
                f"THEN t.data -> 'metadata' -> 'labels' ELSE '{{}}'::jsonb END) AS entry"
            )
            continue
        op.execute(f"CREATE TRIGGER {table}_labels_insert AFTER INSERT ON {table} BEGIN {_sqlite_insert(table, 'NEW')} END")
        op.execute(
            f"CREATE TRIGGER {table}_labels_update AFTER UPDATE OF data ON {table} "
            f"WHEN json_extract(OLD.data, '$.metadata.labels') IS NOT json_extract(NEW.data, '$.metadata.labels') "
            f"BEGIN {_sqlite_delete(table)} {_sqlite_insert(table, 'NEW')} END"
        )
        op.execute(f"CREATE TRIGGER {table}_labels_delete AFTER DELETE ON {table} BEGIN {_sqlite_delete(table)} END")
        op.execute(_sqlite_insert(table, "t").replace("FROM json_each(t.data", f"FROM {table} AS t, json_each(t.data"))


def downgrade() -> None:
    postgresql = op.get_bind().dialect.name == "postgresql"
    for table in LIVE_TABLES:
        if postgresql:
            op.execute(f"DROP TRIGGER {table}_labels ON {table}")
        else:
            for suffix in ("insert", "update", "delete"):
                op.execute(f"DROP TRIGGER {table}_labels_{suffix}")
    if postgresql:
        op.execute("DROP FUNCTION osac_object_labels()")
    op.drop_index("ix_object_labels_object_id", table_name="object_labels")
    op.drop_table("object_labels")
