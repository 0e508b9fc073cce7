"""The `kindgi` command line: `kindgi dev` starts the runtime; every other command calls its API."""
