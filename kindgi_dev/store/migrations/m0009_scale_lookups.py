"""Lookups that stay flat as the database grows: a conversation's turns by index, and an
eval run's progress counted on its own row.

Finding a turn's runs scanned every run without `runs_conversation`; a poll of a running
eval run counted its finished cases until `cases_done` kept the count; finding the runs a
stopped process left running reads only those.
"""

SQL = """
CREATE INDEX runs_conversation ON runs (conversation_id, created_at, id)
    WHERE conversation_id IS NOT NULL;
CREATE INDEX runs_unfinished ON runs (status) WHERE status IN ('running', 'pending');
ALTER TABLE eval_runs ADD COLUMN cases_done INTEGER NOT NULL DEFAULT 0;
UPDATE eval_runs SET cases_done =
    (SELECT count(*) FROM eval_run_cases c WHERE c.eval_run_id = eval_runs.run_id)
"""
