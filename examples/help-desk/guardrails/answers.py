"""The answer has words (a `halt`: the turn fails without it), and doesn't shout (only
recorded on the turn, and only in live runs: `runtime-only`)."""

from kindgi import CheckResult, RunTrace, guardrail


@guardrail(
    id="acme-desk.answer-not-empty",
    name="The answer has text",
    check_id="acme-desk.checks.answer-not-empty",
    on_violation="halt",
    severity="error",
    scope={"when": "always"},
)
def answer_not_empty(config: dict, trace: RunTrace) -> CheckResult:
    """Passes when the turn answered with some text."""
    if (trace.output or "").strip():
        return CheckResult(passed=True)
    return CheckResult(passed=False, reason="The answer is empty.")


@guardrail(
    id="acme-desk.no-shouting",
    name="No shouting",
    check_id="acme-desk.checks.no-shouting",
    on_violation="log-only",
    severity="warn",
    scope={"when": "runtime-only"},
)
def no_shouting(config: dict, trace: RunTrace) -> CheckResult:
    """Fails an answer written all in capitals."""
    text = trace.output or ""
    if text.strip() and text == text.upper() and any(c.isalpha() for c in text):
        return CheckResult(passed=False, reason="The answer is in capitals.")
    return CheckResult(passed=True)
