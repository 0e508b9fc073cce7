"""kindgi dev: Kindgi's agent runtime on a laptop, in one process and one SQLite file."""

__version__ = "0.1.0"
