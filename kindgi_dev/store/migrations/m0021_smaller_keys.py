"""Smaller keys: verdict ids in 16 bytes instead of 36 characters (`store.ids`), and two
indexes that list newest first end at `created_at`.

A verdict's packed id is smaller in its row and in the unique index that finds it. The
judgments and an agent's corrections (its cases page) list by `(created_at, id)`; an index
ending at `created_at` serves them as well, because SQLite then sorts only the rows that
share one `created_at` (`USE TEMP B-TREE FOR RIGHT PART OF ORDER BY`). `corrections_order`
keeps its `id`: without it, the unfiltered corrections list would sort the whole table.
`packed_id` is the store's own SQL function (`store.db` registers it); an id that is not a
canonical UUID stays text, so every id reads back as it was given.
"""

SQL = """
DROP INDEX verdicts_order;
DROP INDEX corrections_subject;
UPDATE verdicts SET id = packed_id(id);
CREATE INDEX verdicts_order ON verdicts (created_at);
CREATE INDEX corrections_subject ON corrections (subject_id, project_id, created_at)
"""
