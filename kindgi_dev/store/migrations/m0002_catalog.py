"""The catalog: each agent, tool and flow version registered from the pack, as on the wire."""

SQL = """
CREATE TABLE agent_versions (
    id TEXT NOT NULL,
    version TEXT NOT NULL,
    manifest TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    registered_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    unregistered_at TEXT,
    PRIMARY KEY (id, version)
);
CREATE TABLE tool_versions (
    id TEXT NOT NULL,
    version TEXT NOT NULL,
    manifest TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    registered_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    unregistered_at TEXT,
    PRIMARY KEY (id, version)
);
CREATE TABLE flow_versions (
    id TEXT NOT NULL,
    version TEXT NOT NULL,
    manifest TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    registered_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    unregistered_at TEXT,
    PRIMARY KEY (id, version)
)
"""
