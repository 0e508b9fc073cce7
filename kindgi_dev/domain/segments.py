"""A run's segment path: where in the app's tenancy (company, team, …) it was started."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Segment:
    """One level of a segment path: its key (`company`) and value (`acme`)."""

    key: str
    value: str
