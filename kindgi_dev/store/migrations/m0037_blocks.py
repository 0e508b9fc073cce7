"""Data blocks (prompts and settings, versioned), the settings versions each run pinned, and the
model each run asked for (`model` is the one the provider said answered)."""

SQL = """
CREATE TABLE blocks (
    tenant_id TEXT NOT NULL,
    id TEXT NOT NULL,
    version TEXT NOT NULL,
    project_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    description TEXT,
    content TEXT NOT NULL,
    published_at TEXT NOT NULL,
    unregistered_at TEXT,
    PRIMARY KEY (tenant_id, id, version)
);
ALTER TABLE runs ADD COLUMN block_pins TEXT;
ALTER TABLE runs ADD COLUMN asked_model TEXT
"""
