"""Data blocks (prompts and settings, versioned), and the settings versions each run pinned."""

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
ALTER TABLE runs ADD COLUMN block_pins TEXT
"""
