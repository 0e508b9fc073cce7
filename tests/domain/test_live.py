"""Live scopes: which cover a run, and which of several is the most specific."""

from __future__ import annotations

from kindgi_dev.domain.live import LiveScope, most_specific, within
from kindgi_dev.domain.segments import Segment

P = "5b0d6f7e-0000-4000-8000-000000000001"
Q = "5b0d6f7e-0000-4000-8000-000000000002"
ACME = Segment("company", "acme")
TEAM = Segment("team", "billing")
TENANT = LiveScope("tenant")
PROJECT = LiveScope("project", project_id=P)
COMPANY = LiveScope("segment", project_id=P, path=(ACME,))
BILLING = LiveScope("segment", project_id=P, path=(ACME, TEAM))
PINS = [(TENANT, "0.1.0"), (PROJECT, "0.2.0"), (COMPANY, "0.3.0"), (BILLING, "0.4.0")]


def test_a_run_takes_the_most_specific_pin_that_covers_it() -> None:
    def version(project: str | None, *segments: Segment) -> str | None:
        found = most_specific(PINS, project, segments)
        return None if found is None else found[1]

    assert version(P, ACME, TEAM) == "0.4.0"
    assert version(P, ACME, Segment("team", "sales")) == "0.3.0"
    assert version(P, Segment("company", "globex")) == "0.2.0"
    assert version(P) == "0.2.0"
    assert version(Q, ACME) == "0.1.0"
    assert most_specific([(PROJECT, "0.2.0")], Q) is None


def test_within_a_scope_its_longer_prefixes_come_first() -> None:
    found = within(PINS, LiveScope("segment", project_id=P, path=(ACME, TEAM, Segment("x", "y"))))
    assert found == (BILLING, "0.4.0")
    assert within(PINS, PROJECT) == (PROJECT, "0.2.0")
    assert within(PINS, LiveScope("project", project_id=Q)) == (TENANT, "0.1.0")
    assert within([(PROJECT, "0.2.0")], TENANT) is None


def test_scope_keys_tell_scopes_apart() -> None:
    keys = {scope.key for scope, _ in PINS}
    assert len(keys) == 4
    assert COMPANY.key == LiveScope("segment", project_id=P, path=(ACME,)).key
    assert COMPANY.describe() == f"project {P} company=acme"
    assert not LiveScope("org", org_id=Q).covers(P)
