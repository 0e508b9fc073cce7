"""SQLite storage: the schema, its migrations, and every SQL statement of kindgi dev."""
