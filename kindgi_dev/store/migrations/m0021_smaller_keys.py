"""Verdict ids in 16 bytes instead of 36 characters (`store.ids`): in the row, in the
unique index that finds one, and in `verdicts_order`.

`packed_id` is the store's own SQL function (`store.db` registers it); an id that is not a
canonical UUID stays text, so every id reads back as it was given.
"""

SQL = """
DROP INDEX verdicts_order;
UPDATE verdicts SET id = packed_id(id);
CREATE INDEX verdicts_order ON verdicts (created_at, id)
"""
