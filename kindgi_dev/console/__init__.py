"""The local web console at `/console/`: HTML pages over `services/`, as `api/` is JSON over them.

Routes and templates only: every page reads and writes through the services, so the
console shows what the API answers and refuses what the API refuses. Its pages are
imported on first use (see `routes`), so the app starts without them.
"""

from __future__ import annotations

from .routes import routes, serves
from .session import Sessions

__all__ = ["Sessions", "routes", "serves"]
