"""What makes an answer reusable: the same content, case, reads; and a judge's question."""

from __future__ import annotations

from dataclasses import replace

from kindgi_dev.domain.comparison import ReplayCase
from kindgi_dev.domain.expectations import Answer
from kindgi_dev.domain.reuse import asked_hash, case_hash, content_hash

CASE = ReplayCase(
    case_id="c1",
    run_id="r1",
    agent_id="picker",
    made_on="0.1.0",
    message="I forgot my password",
    history=[],
    tool_env={},
    output={"articles": [{"id": "kb-101"}]},
    recorded_tool_ids=("acme.search",),
    verdicts=(),
)
MANIFEST = {"id": "picker", "version": "0.2.0", "tools": [{"id": "acme.search"}]}


def test_the_same_case_read_the_same_way_hashes_the_same() -> None:
    assert case_hash(CASE, "recorded") == case_hash(replace(CASE), "recorded")
    assert len(case_hash(CASE, "recorded")) == 64


def test_a_case_changed_in_what_a_replay_reads_or_read_live_hashes_otherwise() -> None:
    base = case_hash(CASE, "recorded")
    assert case_hash(CASE, "live") != base
    assert case_hash(replace(CASE, message="I forgot my login"), "recorded") != base
    assert case_hash(replace(CASE, history=[{"role": "user", "content": "hi"}]), "recorded") != base
    assert case_hash(replace(CASE, tool_env={"acme.search": {"A": "1"}}), "recorded") != base


def test_the_content_is_the_manifest_and_the_model() -> None:
    base = content_hash(MANIFEST, "function:picker:def picker(turn): ...")
    assert content_hash(dict(MANIFEST), "function:picker:def picker(turn): ...") == base
    assert content_hash(MANIFEST, "function:picker:def picker(turn): return 1") != base
    assert (
        content_hash({**MANIFEST, "version": "0.2.1"}, "function:picker:def picker(turn): ...")
        != base
    )
    assert content_hash(MANIFEST, "openai:gpt-4o") != content_hash(MANIFEST, "openai:gpt-4o-mini")


def test_a_judges_question_is_its_part_and_both_texts() -> None:
    part = Answer("wrong", should_say="reset link")
    base = asked_hash(part, "Try these.", "Try this reset link.")
    assert (
        asked_hash(Answer("wrong", should_say="reset link"), "Try these.", "Try this reset link.")
        == base
    )
    assert asked_hash(Answer("right"), "Try these.", "Try this reset link.") != base
    assert asked_hash(part, "Try these.", "Try that.") != base
    assert asked_hash(part, None, "Try this reset link.") != base
