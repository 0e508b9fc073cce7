"""Gate policies, live pins, promotions and approvals kept and read back as records."""

from __future__ import annotations

from pathlib import Path

from kindgi_dev.domain.approvals import Approval, Decision
from kindgi_dev.domain.gate_specs import (
    ApprovalRequirement,
    ComparisonRequirement,
    EvidenceRequirement,
    GateCheck,
    GatePolicy,
    GateSpec,
    MetricRequirement,
    ReplayLimits,
    SuiteRequirement,
)
from kindgi_dev.domain.live import LiveScope
from kindgi_dev.domain.releases import LivePin, PolicyRef, Promotion, Requester
from kindgi_dev.domain.segments import Segment
from kindgi_dev.store import approvals, gate_policies, releases
from kindgi_dev.store.db import Database
from kindgi_dev.store.release_json import spec_json, spec_of

T = "tenant-1"
P = "5b0d6f7e-0000-4000-8000-000000000001"
SEGMENT = LiveScope("segment", project_id=P, path=(Segment("company", "acme"),))
FULL = GateSpec(
    comparison=ComparisonRequirement(24, SuiteRequirement("acme.article-picks", "1.0.0")),
    evidence=EvidenceRequirement(3, 2.5),
    metrics=(
        MetricRequirement("weightedYesShare", min_candidate=0.9),
        MetricRequirement("weightedPrecisionAtK", k=5, max_drop=0.05),
    ),
    replay=ReplayLimits(max_errors=0, max_stopped=1),
    approvals=ApprovalRequirement("senior", False),
    only_restricted_classes=True,
)


def database(tmp_path: Path) -> Database:
    db = Database(tmp_path / "dev.sqlite3")
    db.migrate()
    return db


def test_a_spec_reads_back_as_published_with_only_its_parts() -> None:
    assert spec_of(spec_json(FULL)) == FULL
    assert spec_json(GateSpec(replay=ReplayLimits())) == {"replay": {}}
    assert spec_of({"replay": {}}) == GateSpec(replay=ReplayLimits())


def test_policies_pins_and_promotions_round_trip(tmp_path: Path) -> None:
    db = database(tmp_path)
    policy = GatePolicy(
        "acme.prod", "1.0.0", "acme.picker", SEGMENT, FULL, "2026-03-01T00:00:00.000Z"
    )
    gate_policies.insert(db, T, policy)
    assert gate_policies.get(db, T, "acme.prod", "1.0.0") == policy
    assert gate_policies.get(db, "other", "acme.prod", "1.0.0") is None
    pin = LivePin("acme.picker", SEGMENT, "0.1.0", "p-1", "2026-03-01T00:00:01.000Z")
    releases.set_pin(db, T, pin)
    releases.set_pin(
        db, T, LivePin("acme.picker", SEGMENT, "0.2.0", "p-2", "2026-03-01T00:00:02.000Z")
    )
    assert [p.version for p in releases.pins(db, T, "acme.picker")] == ["0.2.0"]
    check = GateCheck("replay.maxErrors", True, "0 cases errored; the policy allows 0.", 0, 0)
    by = Requester("user", "u-1")
    for n in (1, 2, 3):
        row = Promotion(f"p-{n}", "acme.picker", SEGMENT, "promote", None, f"0.{n}.0", by,
                        "2026-03-01T00:00:00.000Z", status="promoted",
                        policy=PolicyRef("acme.prod", "1.0.0"), checks=[check])  # fmt: skip
        releases.insert(db, T, row)
    page = releases.list_page(db, T, "acme.picker", limit=2, after=None)
    assert [p.id for _, p in page] == ["p-3", "p-2", "p-1"]
    assert page[0][1].checks == [check] and page[0][1].scope == SEGMENT
    rest = releases.list_page(db, T, "acme.picker", limit=2, after=[page[1][0]])
    assert [p.id for _, p in rest] == ["p-1"]
    releases.remove_pin(db, T, "acme.picker", SEGMENT.key)
    assert releases.pins(db, T, "acme.picker") == []


def test_an_approval_keeps_its_decision(tmp_path: Path) -> None:
    db = database(tmp_path)
    at = "2026-03-01T00:00:00.000Z"
    opened = Approval("a-1", T, "agent-promotion", {"promotionId": "p-1"}, "senior", "pending",
                      True, at, at, project_id=P, requested_by="user:u-1")  # fmt: skip
    approvals.insert(db, opened)
    assert approvals.get(db, T, "a-1") == opened
    decision = Decision("d-1", "approve", "r-1", "senior", at, "user:u-2", "looks right")
    decided = Approval(**{**opened.__dict__, "status": "approved", "decision": decision,
                          "decided_at": at, "escalated_to": None})  # fmt: skip
    approvals.update(db, decided)
    assert approvals.get(db, T, "a-1") == decided
