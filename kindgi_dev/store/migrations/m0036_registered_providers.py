"""Model providers registered over the API (`POST /v1/providers`), beside the configured ones.

An unregistered one keeps its row with `unregistered_at` (a tombstone): its id is free to
register again.
"""

SQL = """
CREATE TABLE registered_providers (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL,
    tenant_id TEXT NOT NULL,
    adapter_id TEXT NOT NULL,
    metadata TEXT NOT NULL,
    secret_ref TEXT,
    adapter_config TEXT,
    created_at TEXT NOT NULL,
    unregistered_at TEXT
);
CREATE UNIQUE INDEX registered_providers_live ON registered_providers (tenant_id, id)
    WHERE unregistered_at IS NULL
"""
