"""Frozen test-set versions are spelled `N.0.0` everywhere: rewrite the runs that named `N`.

Eval runs on an agent's test set stored `frozenVersion.version` as the number N while
their `suiteVersion` said `N.0.0`; one spelling lets each resolve to the same cases.
"""

SQL = """
UPDATE eval_runs
SET frozen_version = json_set(
    frozen_version, '$.version', json_extract(frozen_version, '$.version') || '.0.0'
)
WHERE frozen_version IS NOT NULL AND json_type(frozen_version, '$.version') = 'integer'
"""
