"""Which corrections are cases, what a case expects, and how a judged suite sums verdicts."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from kindgi_dev.domain import judged_suites as suites
from kindgi_dev.domain import test_sets as rules
from kindgi_dev.domain.errors import ValidationFailed
from kindgi_dev.domain.expectations import Decisions, ExpectedCall, GivenItem
from kindgi_dev.store import case_json
from kindgi_dev.store import expectations as codec

STANDING = rules.CorrectionFacts("c-1", "t", "p", "agent", "a", "open", replaced_by=None,
                                 erased_at=None, on_replay=False, has_expectation=True)  # fmt: skip


@pytest.mark.parametrize("status", ["open", "fixed", "with-owner"])
def test_open_fixed_and_with_owner_corrections_are_cases(status: str) -> None:
    assert rules.exclusion(replace(STANDING, status=status)) is None


@pytest.mark.parametrize("status", ["wont-fix", "removed"])
def test_wont_fix_and_removed_corrections_are_not_cases(status: str) -> None:
    assert rules.exclusion(replace(STANDING, status=status)) == f"its status is {status}"


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"replaced_by": "later"}, "a later correction replaced it"),
        ({"erased_at": "2026-11-02T09:14:03.000Z"}, "an erasure cleared its words"),
        ({"on_replay": True}, "it corrects a comparison's replay"),
        ({"has_expectation": False}, "it leaves nothing to check"),
    ],
)
def test_replaced_erased_replay_and_empty_corrections_are_not_cases(
    change: dict[str, Any], why: str
) -> None:
    assert rules.exclusion(replace(STANDING, **change)) == why


def test_a_test_set_id_is_url_safe_and_reads_back() -> None:
    set_id = rules.set_id_of("acme-ops.article-picker", "3f0c2a54-1b7e-4a51-9d2c-7c1e0f9b8a10")
    assert set_id == "acme-ops.article-picker~3f0c2a54-1b7e-4a51-9d2c-7c1e0f9b8a10"
    assert rules.parse_set_id(set_id) == (
        "acme-ops.article-picker",
        "3f0c2a54-1b7e-4a51-9d2c-7c1e0f9b8a10",
    )
    assert rules.parse_set_id("acme.drafting-accuracy") is None
    assert rules.parse_set_id("~p") is None


def test_an_expected_item_says_right_or_wrong_and_items_come_in_rank_order() -> None:
    items = [
        rules.expected_item("kb-102", "/output/articles/1", 1, "no", None),
        rules.expected_item("answer", "/appended/3/content", None, "yes", ""),
        rules.expected_item("kb-101", "/output/articles/0", 0, "yes", "Resets the password"),
    ]
    expect = case_json.expect_json(rules.expect_of(items, None, None))
    assert expect == {"items": [
        {"key": "kb-101", "pointer": "/output/articles/0", "rank": 0, "verdict": "right",
         "reason": "Resets the password"},
        {"key": "kb-102", "pointer": "/output/articles/1", "rank": 1, "verdict": "wrong"},
        {"key": "answer", "pointer": "/appended/3/content", "verdict": "right"},
    ]}  # fmt: skip


def test_expect_has_a_part_for_each_part_corrected() -> None:
    decisions = {"verdict": "wrong", "shouldCall": [{"toolId": "acme-ops.search-articles"}]}
    answer = {"verdict": "wrong", "shouldSay": "Link the reset page."}
    expect = rules.expect_of([], codec.decisions_of(decisions), codec.answer_of(answer))
    assert case_json.expect_json(expect) == {"decisions": decisions, "answer": answer}
    right = rules.expect_of([], None, codec.answer_of({"verdict": "right"}))
    assert case_json.expect_json(right) == {"answer": {"verdict": "right"}}


def test_expert_cases_are_hand_cases_and_restricted_corrections() -> None:
    assert rules.is_expert("hand", False)
    assert rules.is_expert("correction", True)
    assert not rules.is_expert("correction", False)


def _row(**extra: Any) -> rules.CaseRow:
    return rules.CaseRow(**{"id": "c1", "project_id": "p", "run_id": "r", "made_on": "0.1.0",
                            "added_by_kind": "user", "added_by_id": "u", "created_at": "t1",
                            "updated_at": "t2", **extra})  # fmt: skip


def test_a_case_keeps_its_correction_id_and_who_added_it_when() -> None:
    case = case_json.set_case_json(rules.case_of("correction", _row(restricted=1), []))
    assert case == {
        "id": "c1", "kind": "correction", "projectId": "p", "runId": "r", "madeOn": "0.1.0",
        "expect": {}, "expert": True, "addedBy": {"kind": "user", "id": "u"},
        "addedAt": "t1", "updatedAt": "t2",
    }  # fmt: skip
    assert case_json.set_case_json(rules.case_of("hand", _row(), []))["expert"] is True


def test_a_retired_case_says_why_by_whom_and_when() -> None:
    case = rules.case_of("hand", _row(), [])
    assert rules.with_retirement(case, {"reason": None}) == case
    retired = rules.with_retirement(
        case, {"reason": "merged", "by_kind": "user", "by_id": "u", "at": "t3"}
    )
    assert case_json.set_case_json(retired)["retired"] == {
        "reason": "merged",
        "by": {"kind": "user", "id": "u"},
        "at": "t3",
    }


OUTPUT = {"output": {"articles": [{"id": "kb-301"}]}, "appended": []}


@pytest.mark.parametrize(
    ("items", "decisions", "field"),
    [
        ([], None, "items"),
        ([GivenItem("kb-301", None, "right"), GivenItem("kb-301", None, "wrong")], None,
         "items/1/key"),
        ([GivenItem("kb-301", "/output/articles/4", "right")], None, "items/0/pointer"),
        ([GivenItem("kb-301", "output", "right")], None, "items/0/pointer"),
        ([], Decisions("wrong"), "decisions"),
        ([], Decisions("right", None, ("x",)), "decisions"),
    ],
)  # fmt: skip
def test_a_hand_case_must_expect_something_checkable(
    items: list[GivenItem], decisions: Decisions | None, field: str
) -> None:
    with pytest.raises(ValidationFailed) as caught:
        rules.check_expectation(items, decisions, None, OUTPUT)
    assert caught.value.details["field"] == field


def test_a_hand_case_with_a_resolving_pointer_passes() -> None:
    items = [GivenItem("kb-301", "/output/articles/0", "right")]
    rules.check_expectation(items, Decisions("wrong", None, ("x",)), None, OUTPUT)


def _judgment(n: int, key: str, verdict: str, **extra: Any) -> suites.CountedVerdict:
    fields: dict[str, Any] = {"pointer": f"/output/articles/{n}", "rank": n, "reason": None,
                              "judge_class_id": None, "restricted": False,
                              "created_at": f"t{n}"}  # fmt: skip
    fields.update(extra)
    return suites.CountedVerdict(f"j-{key}-{verdict}-{fields['created_at']}", key, verdict=verdict,
                          **fields)  # fmt: skip


def test_items_sum_counts_weights_restricted_weights_ids_and_reasons() -> None:
    judgments = [  # newest first
        _judgment(0, "kb-101", "no", judge_class_id="experts", restricted=True,
                  reason="Too generic", created_at="t9"),
        _judgment(0, "kb-101", "yes", judge_class_id="experts", restricted=True,
                  reason="Resets the password", created_at="t8"),
        _judgment(0, "kb-101", "yes", created_at="t7"),
        _judgment(1, "kb-102", "no", judge_class_id="gone", created_at="t6"),
    ]  # fmt: skip
    items = [case_json.summary_json(i) for i in suites.summarize_items(judgments, {"experts": 3.0})]
    first, second = items
    assert (first["key"], first["yes"], first["no"]) == ("kb-101", 2, 1)
    assert (first["yesWeight"], first["totalWeight"]) == (4.0, 7.0)
    assert first["restricted"] == {"yesWeight": 3.0, "totalWeight": 6.0,
                                   "judgmentIds": [judgments[0].id, judgments[1].id]}  # fmt: skip
    assert first["judgmentIds"] == [j.id for j in judgments[:3]]
    assert first["reasons"] == [
        {"verdict": "no", "reason": "Too generic", "judgeClassId": "experts", "restricted": True},
        {"verdict": "yes", "reason": "Resets the password", "judgeClassId": "experts",
         "restricted": True},
    ]  # fmt: skip
    assert (second["yes"], second["no"], second["yesWeight"], second["totalWeight"]) == (0, 1, 0, 1)
    assert second["restricted"] == {"yesWeight": 0, "totalWeight": 0, "judgmentIds": []}


def test_a_case_lists_what_the_run_should_have_done_whatever_the_verdict() -> None:
    wrong = {"verdict": "wrong", "shouldCall": [{"toolId": "t.a", "args": {"q": 1}}],
             "mustNotCall": ["t.b"]}  # fmt: skip
    corrections = [
        suites.DecidedCorrection("c1", Decisions("wrong", (ExpectedCall("t.a", {"q": 1}),),
                                                ("t.b",)), "k", True),
        suites.DecidedCorrection("c2", Decisions("right"), None, False),
    ]  # fmt: skip
    assert codec.decisions_of(wrong) == corrections[0].decisions
    found = [
        case_json.should_have_done_json(entry)
        for entry in suites.decision_corrections(corrections, ["t.s", "t.s", "t.log"])
    ]
    assert found == [
        {"judgmentId": "c1", "verdict": "wrong", "calls": [{"toolId": "t.a", "args": {"q": 1}}],
         "notCalled": ["t.b"], "judgeClassId": "k", "restricted": True},
        {"judgmentId": "c2", "verdict": "right", "calls": [{"toolId": "t.s"}, {"toolId": "t.log"}],
         "notCalled": []},
    ]  # fmt: skip


def test_a_case_input_is_the_user_message_and_its_context_keeps_tool_env() -> None:
    assert suites.case_input({"userMessage": "Hi", "parameters": {}}) == "Hi"
    with_params = {"userMessage": "Hi", "parameters": {"tone": "short"}}
    assert suites.case_input(with_params) == with_params
    context = suites.case_context({"history": [], "retrieved": None, "junk": 1}, {"t": {"A": "1"}})
    assert context == {"history": [], "toolEnv": {"t": {"A": "1"}}}
    assert suites.case_context(None) is None


def _run(n: int, **extra: Any) -> suites.JudgedRun:
    path = [{"key": "company", "value": "acme"}, {"key": "team", "value": "eu"}]
    fields: dict[str, Any] = {"judgments": 3, "segments": path, "agent_version": "0.1.0"}
    fields.update(extra)
    return suites.JudgedRun(f"run-{n}", f"2026-11-02T09:00:{n:02d}.000Z", **fields)


def test_a_build_takes_runs_newest_first_judged() -> None:
    chosen, truncated = suites.select_runs([_run(1), _run(3), _run(2)], suites.BuildFilters())
    assert [r.run_id for r in chosen] == ["run-3", "run-2", "run-1"]
    assert not truncated


def test_a_build_holds_at_most_1000_cases() -> None:
    runs = [_run(n % 60, judgments=1) for n in range(1001)]
    chosen, truncated = suites.select_runs(runs, suites.BuildFilters())
    assert len(chosen) == 1000 and truncated


def test_build_filters_version_time_and_minimum_judgments() -> None:
    runs = [_run(1), _run(2, agent_version="0.2.0"), _run(3, judgments=1), _run(4)]
    by_version = suites.BuildFilters(agent_version="0.1.0")
    assert [r.run_id for r in suites.select_runs(runs, by_version)[0]] == [
        "run-4",
        "run-3",
        "run-1",
    ]
    window = suites.BuildFilters(since="2026-11-02T09:00:02.000Z", until="2026-11-02T09:00:04.000Z")
    assert [r.run_id for r in suites.select_runs(runs, window)[0]] == ["run-3", "run-2"]
    assert [
        r.run_id for r in suites.select_runs(runs, suites.BuildFilters(min_judgments=2))[0]
    ] == [
        "run-4", "run-2", "run-1",
    ]  # fmt: skip


def test_a_segment_path_keeps_runs_at_or_below_it_and_none_without_segments() -> None:
    company = [{"key": "company", "value": "acme"}]
    assert suites.segments_match([*company, {"key": "team", "value": "eu"}], company)
    assert suites.segments_match(company, company)
    assert not suites.segments_match(company, [*company, {"key": "team", "value": "eu"}])
    assert not suites.segments_match([{"key": "company", "value": "other"}], company)
    assert not suites.segments_match(None, company)
    assert suites.segments_match(None, [])


def test_registry_entries_are_checked_at_the_top_level_only() -> None:
    entry = rules.RegistryEntry(id="acme.picks", tenant_id="t", version="1.0.0",
                                kind="corrections", spec={"anything": [1, 2]})  # fmt: skip
    rules.check_entry(entry, "t")
    bad: list[tuple[dict[str, Any], str]] = [
        ({"id": "a b"}, "id"), ({"id": "~a"}, "id"), ({"version": "1.0"}, "version"),
        ({"kind": "judged"}, "kind"), ({"spec": []}, "spec"),
        ({"tenant_id": "other"}, "tenantId")]  # fmt: skip
    for change, field in bad:
        with pytest.raises(ValidationFailed) as caught:
            rules.check_entry(replace(entry, **change), "t")
        assert caught.value.details["field"] == field
