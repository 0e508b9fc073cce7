"""Test-set versions pulled from another Kindgi runtime, kept read-only as they arrived.

Apart from the local frozen versions (an agent's set in a project here): a pulled version's
id and project are the other runtime's. `digest` tells a repeat pull of the same content.
"""

SQL = """
CREATE TABLE pulled_test_set_versions (
    test_set_id TEXT NOT NULL,
    version TEXT NOT NULL,
    tenant_id TEXT NOT NULL,
    case_count INTEGER NOT NULL,
    digest TEXT NOT NULL,
    source_url TEXT NOT NULL,
    pulled_at TEXT NOT NULL,
    PRIMARY KEY (test_set_id, version)
);
CREATE TABLE pulled_test_set_cases (
    test_set_id TEXT NOT NULL,
    version TEXT NOT NULL,
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (test_set_id, version, seq)
)
"""
