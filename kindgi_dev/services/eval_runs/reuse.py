"""Reusing answers (`reuse: true`): what answers for an agent, as its content's hash takes
it, and the judging model's verdicts, kept by judge, part and texts (`domain.reuse`)."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from ...domain.checks import AnswerCheck, NoVerdict
from ...domain.comparison import ReplayCase
from ...domain.expectations import Answer
from ...domain.items import answer_text
from ...domain.reuse import asked_hash
from ...runtime import judge
from ...runtime.providers.base import ModelAdapter
from ...runtime.providers.function import FunctionModelAdapter
from ...store import kept_answers
from ..context import Context
from . import page as pages


async def judge_answers(
    ctx: Context, judging: ModelAdapter | None, reuse: bool, case: ReplayCase, output: Any
) -> dict[int, AnswerCheck]:
    """The judging model's verdict on each answer check of the case (none without a model)."""
    if judging is None:
        return {}
    return {
        position: await _verdict(ctx, judging, reuse, expectation.expected, case, output)
        for position, expectation in enumerate(case.expectations)
        if isinstance(expectation.expected, Answer)
    }


async def _verdict(
    ctx: Context,
    judging: ModelAdapter,
    reuse: bool,
    expected: Answer,
    case: ReplayCase,
    output: Any,
) -> AnswerCheck:
    """The judging model's verdict on one answer of the case; when the run reuses answers,
    the one kept for the same judge, part and answer texts, else asked and kept (unless it
    gave none) with the case and its past run, for an erasure of them to forget."""
    before, after = answer_text(case.output), answer_text(output)
    if not reuse:
        return await judge.check_answer(judging, expected, before, after)
    judge_id = f"{judging.provider_id}:{judging.model}"
    asked = asked_hash(expected, before, after)
    kept = kept_answers.verdict(ctx.db, judge_id, asked)
    if kept is not None:
        return kept
    verdict = await judge.check_answer(judging, expected, before, after)
    if isinstance(verdict, NoVerdict):  # asked again by the next run, not failed for good
        return verdict
    kept_verdict = kept_answers.KeptVerdict(judge_id, asked, verdict, case.case_id, case.run_id)
    page = pages.current.get()
    if page is None:
        kept_answers.keep_verdicts(ctx.db, [kept_verdict])
    else:
        page.keep_verdict(kept_verdict)
    return verdict


def model_of(adapter: ModelAdapter) -> str:
    """What answers for an agent, as its content's hash takes it: a function model's
    source file (a change anywhere in it counts), or the provider and model names."""
    named = f"{adapter.provider_id}:{adapter.model}"
    if not isinstance(adapter, FunctionModelAdapter):
        return named
    try:
        source = inspect.getsource(adapter.function)
        source = Path(inspect.getfile(adapter.function)).read_text(encoding="utf-8") + source
    except (OSError, TypeError):  # no file to read: its compiled code stands for it
        source = repr(getattr(adapter.function, "__code__", adapter.function))
    return f"{named}:{source}"
