"""When a correction was replaced, so its items read back as they were at that moment.

Replacing a correction ends its live verdicts; `replaced_at` tells those apart from
verdicts its corrector had removed before.
"""

SQL = """
ALTER TABLE corrections ADD COLUMN replaced_at TEXT;
CREATE INDEX verdicts_corrector ON verdicts (run_id, asserted_by_id, item_key)
    WHERE unregistered_at IS NULL
"""
