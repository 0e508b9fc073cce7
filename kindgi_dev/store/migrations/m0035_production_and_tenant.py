"""When a project went into production, and the tenant's name and slug (`tenant rename`)."""

SQL = """
ALTER TABLE projects ADD COLUMN production_since TEXT;
ALTER TABLE instance ADD COLUMN tenant_name TEXT NOT NULL DEFAULT 'kindgi dev';
ALTER TABLE instance ADD COLUMN tenant_slug TEXT NOT NULL DEFAULT 'kindgi-dev';
ALTER TABLE instance ADD COLUMN tenant_updated_at TEXT
"""
