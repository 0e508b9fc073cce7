"""What the official client 0.1.10 can ask that kindgi dev doesn't serve, and its one answer.

Each row is a feature of a deployed Kindgi runtime: its name, the sentence a caller gets, and
the client's operations it covers (`"METHOD [METHOD…] /path"`, as the client's operation
table spells them). Every one answers `501 not-in-kindgi-dev` with that sentence, after the
token is checked; a path no row and no endpoint names stays `404 not-found`. When kindgi dev
comes to serve a feature, its row is deleted: a test walks the client's table and fails on a
row whose operations are all served (`tests/api/test_route_walk.py`).
"""

from __future__ import annotations

from starlette.routing import Route

from ..domain.errors import NotInKindgiDev
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .routing import ordered, route
from .unserved_table import UNSERVED, Feature

__all__ = ["UNSERVED", "Feature", "routes"]


def routes(served: set[tuple[str, str]]) -> list[Route]:
    """A route for each operation of the table that no endpoint serves, answering 501."""
    found = []
    for feature in UNSERVED:
        for method, path in feature.routes():
            if (method, path) not in served:
                found.append(route(_endpoint(feature, method, path)))
    return ordered(found)


def _endpoint(feature: Feature, method: str, path: str) -> Endpoint[NoBody, NoQuery]:
    """The endpoint of one unserved operation: checked like any other, then refused."""

    async def refuse(call: Call[NoBody, NoQuery]) -> None:
        raise NotInKindgiDev(feature.why, feature=feature.key, operation=f"{method} {path}")

    return Endpoint(method, path, f"unserved.{feature.key}", refuse, feature.why)
