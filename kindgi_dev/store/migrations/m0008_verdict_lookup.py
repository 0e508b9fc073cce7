"""Find a corrector's live verdict on an item by an index, however many people corrected it.

Superseding looks a verdict up by run, item, principal and participant; the earlier
index stopped at the principal, so a run many participants corrected was scanned.
"""

SQL = """
DROP INDEX IF EXISTS verdicts_corrector;
CREATE INDEX verdicts_corrector_item
    ON verdicts (run_id, item_key, asserted_by_id, coalesce(participant_id, ''))
    WHERE unregistered_at IS NULL
"""
