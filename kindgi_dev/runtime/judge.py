"""Answer checks by a judging model: does the candidate's answer do what the correction asks?

Asked as one typed turn of the configured provider, so any adapter can judge; a judge
that fails to answer fails the check with its reason rather than the run.
"""

from __future__ import annotations

import json

from ..domain.checks import AnswerCheck, NoVerdict
from ..domain.expectations import Answer
from ..domain.json import JSONObject
from ..models import Message, Turn
from .providers import ModelAdapter
from .providers.base import ModelError

VERDICT_SCHEMA: JSONObject = {
    "type": "object",
    "properties": {"pass": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["pass", "reason"],
}

INSTRUCTIONS = (
    "You check an AI agent's answer against what a person said it should do. Read the "
    "expectation and the answer, then answer with pass true when the answer does what the "
    "expectation asks, else false, and a one-sentence reason."
)


def question(expectation: Answer, recorded: str | None, candidate: str | None) -> str:
    """What the judge is asked, in plain words."""
    if expectation.verdict == "right":
        ask = f"It should say what this recorded answer said: {json.dumps(recorded)}"
    else:
        parts = [f"It should say: {expectation.should_say}"] if expectation.should_say else []
        if expectation.why:
            parts.append(f"The recorded answer was wrong because: {expectation.why}")
        ask = " ".join(parts) or "It should differ from the recorded answer."
    return f"Expectation: {ask}\nAnswer to check: {json.dumps(candidate)}"


async def check_answer(
    adapter: ModelAdapter, expectation: Answer, recorded: str | None, candidate: str | None
) -> AnswerCheck:
    """The judging model's verdict on one answer: passed, and the reason (a `NoVerdict` when
    it gave none)."""
    turn = Turn(
        agent_id="kindgi-dev.answer-judge",
        agent_version="1.0.0",
        instructions=INSTRUCTIONS,
        messages=(
            Message("system", INSTRUCTIONS),
            Message("user", question(expectation, recorded, candidate)),
        ),
        tools=(),
        output_schema=VERDICT_SCHEMA,
    )
    try:
        reply = await adapter.next_step(turn)
    except ModelError as error:
        return NoVerdict(False, f"the judging model failed: {error.message}")
    verdict = reply.output if isinstance(reply.output, dict) else {}
    passed = verdict.get("pass")
    if not isinstance(passed, bool):
        return NoVerdict(False, "the judging model gave no pass/fail verdict")
    return AnswerCheck(passed, str(verdict.get("reason", "")))
