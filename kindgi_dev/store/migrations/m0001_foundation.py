"""The instance's identity, projects, and stored answers to idempotent writes."""

SQL = """
CREATE TABLE instance (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    tenant_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    token TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE projects (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    org_id TEXT,
    name TEXT NOT NULL,
    slug TEXT NOT NULL,
    description TEXT,
    is_default INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX projects_slug ON projects (tenant_id, coalesce(org_id, ''), slug);
CREATE UNIQUE INDEX projects_one_default ON projects (tenant_id) WHERE is_default = 1;
CREATE INDEX projects_order ON projects (created_at DESC, id DESC);
CREATE TABLE idempotency_keys (
    key TEXT PRIMARY KEY,
    body_hash TEXT NOT NULL,
    status INTEGER NOT NULL,
    content_type TEXT NOT NULL,
    body BLOB NOT NULL,
    created_at TEXT NOT NULL
)
"""
