"""The replay policy, rule by rule."""

from __future__ import annotations

from typing import Any

from kindgi_dev.domain.replay import (
    DRY_RUN_APPROVAL,
    DRY_RUN_CHANGES,
    DRY_RUN_OUTSIDE,
    LIVE_NOT_RECORDED,
    LIVE_READS,
    LIVE_SETTINGS,
    REFUSED_APPROVAL,
    REFUSED_CHANGES,
    REFUSED_OUTSIDE,
    REFUSED_STRICT_READ,
    RecordedCall,
    ReplayDecision,
    ToolFacts,
    decide,
    dry_run_refusal,
)

SEARCH = ToolFacts.from_manifest(
    {"id": "acme-ops.search-articles", "mutating": False, "effects": [{"kind": "reads"}]}
)
FETCH = ToolFacts.from_manifest(
    {"id": "acme-ops.fetch-page", "mutating": False, "effects": [{"kind": "network"}]}
)
LOG = ToolFacts.from_manifest(
    {"id": "acme-ops.log-suggestion", "mutating": True, "effects": [{"kind": "writes"}]}
)
REFUND = ToolFacts.from_manifest(
    {"id": "acme-ops.refund", "mutating": True, "needsApprovalWhenUnattended": True}
)
QUESTION = {"query": "I forgot my password and can't sign in."}
RECORDED = [
    RecordedCall("acme-ops.search-articles", QUESTION, {"articles": ["kb-101"]}),
    RecordedCall("acme-ops.fetch-page", {"url": "https://a"}, "<html>"),
    RecordedCall("acme-ops.log-suggestion", {"articles": ["kb-101"]}, {"ok": True}),
    RecordedCall("acme-ops.search-articles", QUESTION, {"articles": ["kb-102"]}),
]


def run(
    tool: ToolFacts,
    arguments: Any,
    *,
    used: frozenset[int] = frozenset(),
    reads: str = "recorded",
    strict: bool = False,
    settings_differ: bool = False,
) -> tuple[ReplayDecision, int | None]:
    """decide() against the recorded calls above."""
    return decide(
        tool,
        arguments,
        RECORDED,
        used=used,
        reads=reads,  # type: ignore[arg-type]
        strict=strict,
        settings_differ=settings_differ,
    )


def test_manifest_facts() -> None:
    assert SEARCH.read_only and not SEARCH.reaches_outside
    assert FETCH.read_only and FETCH.reaches_outside
    assert not LOG.read_only
    assert not REFUND.read_only and REFUND.needs_approval
    unknown = ToolFacts.from_manifest({"id": "t", "effects": [{"kind": "reads"}]})
    assert unknown.mutating is None and not unknown.read_only
    emits = ToolFacts.from_manifest(
        {"id": "t", "mutating": False, "effects": [{"kind": "emits-event"}]}
    )
    assert not emits.read_only
    egress = ToolFacts.from_manifest(
        {"id": "t", "mutating": False, "effects": [{"kind": "sensitive-data-egress"}]}
    )
    assert egress.reaches_outside


def test_read_gets_the_recorded_result() -> None:
    assert run(SEARCH, dict(QUESTION)) == (
        ReplayDecision("recorded", RECORDED[0], None, diverged=False),
        0,
    )


def test_the_same_call_twice_gets_both_results_in_order_then_the_last_again() -> None:
    second, index = run(SEARCH, QUESTION, used=frozenset({0}))
    assert (second.recorded, index) == (RECORDED[3], 3)
    third, index = run(SEARCH, QUESTION, used=frozenset({0, 3}))
    assert (third.source, third.recorded, index) == ("recorded", RECORDED[3], 3)


def test_read_the_past_run_did_not_make_runs_live_and_diverges() -> None:
    decision, index = run(SEARCH, {"query": "I forgot my password and can't sign in"})
    assert decision == ReplayDecision("live", None, LIVE_NOT_RECORDED, diverged=True)
    assert index is None


def test_write_without_a_recorded_call_is_refused() -> None:
    decision, index = run(LOG, {"articles": ["kb-201"]})
    assert decision == ReplayDecision("refused", None, REFUSED_CHANGES, diverged=False)
    assert decision.reason == "replay: this call changes things and has no recorded result"
    assert index is None


def test_write_gets_its_recorded_result_once() -> None:
    decision, index = run(LOG, {"articles": ["kb-101"]})
    assert (decision.source, decision.recorded, index) == ("recorded", RECORDED[2], 2)
    again, index = run(LOG, {"articles": ["kb-101"]}, used=frozenset({2}))
    assert (again.source, again.reason, index) == ("refused", REFUSED_CHANGES, None)


def test_strict_replay_refuses_a_read_it_has_no_result_for() -> None:
    decision, index = run(
        SEARCH, {"query": "other"}, strict=True, reads="live", settings_differ=True
    )
    assert decision == ReplayDecision("refused", None, REFUSED_STRICT_READ, diverged=False)
    assert decision.reason == "replay: this read has no recorded result"
    assert index is None


def test_strict_replay_still_gets_recorded_results() -> None:
    decision, index = run(SEARCH, QUESTION, strict=True, reads="live", settings_differ=True)
    assert (decision.source, decision.recorded, index) == ("recorded", RECORDED[0], 0)
    refused, _ = run(LOG, {"articles": []}, strict=True)
    assert refused.reason == REFUSED_CHANGES


def test_reads_live_runs_reads_live_and_diverges_only_without_a_recorded_call() -> None:
    decision, index = run(SEARCH, QUESTION, reads="live")
    assert decision == ReplayDecision("live", None, LIVE_READS, diverged=False)
    assert index == 0
    other, index = run(SEARCH, {"query": "other"}, reads="live")
    assert other == ReplayDecision("live", None, LIVE_NOT_RECORDED, diverged=True)
    assert index is None


def test_settings_differ_runs_reads_live_and_diverges() -> None:
    decision, index = run(SEARCH, QUESTION, settings_differ=True)
    assert decision == ReplayDecision("live", None, LIVE_SETTINGS, diverged=True)
    assert index == 0


def test_read_reaching_outside_is_recorded_only() -> None:
    decision, index = run(FETCH, {"url": "https://a"}, reads="live", settings_differ=True)
    assert (decision.source, decision.recorded, index) == ("recorded", RECORDED[1], 1)
    refused, index = run(FETCH, {"url": "https://b"}, reads="live")
    assert refused == ReplayDecision("refused", None, REFUSED_OUTSIDE, diverged=False)
    assert refused.reason == "replay: this call reaches outside and has no recorded result"
    assert index is None


def test_call_needing_approval_is_refused_and_skips_the_approval() -> None:
    decision, index = run(REFUND, {"orderId": "o-1"})
    assert decision == ReplayDecision(
        "refused", None, REFUSED_APPROVAL, diverged=False, approval_skipped=True
    )
    assert decision.reason == "replay: this call needs an approval and has no recorded result"
    assert index is None


def test_same_call_needs_equal_arguments_and_tool_id() -> None:
    assert run(SEARCH, {"query": QUESTION["query"], "limit": 3})[0].source == "live"
    other_tool = ToolFacts("acme-ops.other", False, False, frozenset())
    assert run(other_tool, QUESTION)[0].diverged


def test_a_dry_run_keeps_only_reads_that_stay_inside() -> None:
    refusals = [dry_run_refusal(tool) for tool in (SEARCH, FETCH, LOG, REFUND)]
    assert refusals == [None, DRY_RUN_OUTSIDE, DRY_RUN_CHANGES, DRY_RUN_APPROVAL]
