"""Corrections and verdicts written straight into their tables, for tests of what reads them.

The rows are shaped as the corrections store keeps them (`m0020_compact_verdicts`): one
correction per corrector and run, each item a `verdicts` row ('yes'/'no'), the run's copy
taken at its first verdict.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any
from unittest.mock import patch

import click
from click.testing import CliRunner, Result
from factories import AGENT, QUESTIONS

from kindgi_dev.cli.config import Target
from kindgi_dev.cli.http import Api
from kindgi_dev.domain.time import format_time
from kindgi_dev.services.context import Context

BASE = datetime(2026, 11, 2, 9, 14, 3, tzinfo=UTC)
Item = tuple[str, str, int, str]
"""(key, pointer, rank, 'yes' | 'no')."""


def at(seconds: float) -> str:
    """A wire time `seconds` after the tests' base time."""
    return format_time(BASE + timedelta(seconds=seconds))


def _dump(value: Any) -> str | None:
    return None if value is None else json.dumps(value)


def correct(
    ctx: Context,
    run_id: str,
    items: list[Item],
    *,
    when: float = 0.0,
    status: str = "open",
    decisions: Any = None,
    answer: Any = None,
    judge_class_id: str | None = None,
    restricted: bool = False,
    participant_id: str = "",
    reasons: dict[str, str] | None = None,
) -> str:
    """One correction of a run with a verdict per item; its id."""
    run = ctx.db.one("SELECT * FROM runs WHERE id = ?", (run_id,))
    assert run is not None
    correction_id = str(uuid.uuid4())
    stamp = at(when)
    with ctx.db.transaction() as conn:
        conn.execute(
            "INSERT INTO corrections (id, tenant_id, project_id, run_id, subject_kind, subject_id, "
            "subject_version, corrector_kind, corrector_id, participant_id, judge_class_id, "
            "restricted, decisions, answer, status, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, 'agent', ?, ?, 'user', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (correction_id, run["tenant_id"], run["project_id"], run_id, run["agent_id"],
             run["agent_version"], ctx.identity.user_id, participant_id, judge_class_id,
             int(restricted), _dump(decisions), _dump(answer), status, stamp, stamp),
        )  # fmt: skip
        conn.executemany(
            "INSERT INTO verdicts (id, correction_seq, item_key, pointer, rank, verdict, reason, "
            "judge_class_id, restricted, created_at) "
            "VALUES (?, (SELECT seq FROM corrections WHERE id = ?), ?, ?, ?, ?, ?, ?, ?, ?)",
            [(uuid.uuid4().bytes, correction_id, key, pointer, rank, verdict,
              (reasons or {}).get(key), judge_class_id, int(restricted), stamp)
             for key, pointer, rank, verdict in items],
        )  # fmt: skip
        conn.execute(
            "INSERT OR IGNORE INTO judged_run_copies (run_id, subject, input, context, output, "
            "segments, captured_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (run_id, json.dumps({"kind": "agent", "id": run["agent_id"],
                                 "version": run["agent_version"]}),
             run["input"], _copy_context(run), run["output"], run["segments"], stamp),
        )  # fmt: skip
    return correction_id


def _copy_context(run: Any) -> str:
    context = json.loads(run["context"] or "{}")
    if run["tool_env"]:
        context["toolEnv"] = json.loads(run["tool_env"])
    return json.dumps(context)


def articles_of(run_id: str, ctx: Context) -> list[Item]:
    """The spec's verdicts on a picker run: its first article yes, the others no."""
    output = json.loads(ctx.db.one("SELECT output FROM runs WHERE id = ?", (run_id,))["output"])
    articles = output["output"]["articles"]
    return [
        (a["id"], f"/output/articles/{i}", i, "yes" if i == 0 else "no")
        for i, a in enumerate(articles)
    ]


def tutorial_corrections(ctx: Context, run_ids: dict[str, str]) -> dict[str, str]:
    """Correct the spec's three runs as it does, so that newest first reads in its order."""
    order = list(QUESTIONS)
    corrected_in = [order[2], order[0], order[1]]
    return {
        question: correct(ctx, run_ids[question], articles_of(run_ids[question], ctx), when=i)
        for i, question in enumerate(corrected_in)
    }


def set_column(ctx: Context, correction_id: str, column: str, value: Any) -> None:
    """Change one column of a correction (status, replaced_by, erased_at…)."""
    ctx.db.run(f"UPDATE corrections SET {column} = ? WHERE id = ?", (value, correction_id))


def judge_class(ctx: Context, weight: float, name: str = "experts") -> str:
    """A tenant judge class of a weight; its id."""
    class_id = str(uuid.uuid4())
    ctx.db.run(
        "INSERT INTO judge_classes (id, tenant_id, scope_kind, name, weight, created_at, "
        "updated_at) VALUES (?, ?, 'tenant', ?, ?, ?, ?)",
        (class_id, ctx.tenant_id, name, weight, at(0), at(0)),
    )
    return class_id


def bulk_corrections(ctx: Context, count: int, *, project_id: str, start: float = 100.0) -> None:
    """`count` finished picker runs, each with one correction of three items (fast)."""
    output = json.dumps({"output": {"articles": [{"id": "kb-101"}, {"id": "kb-102"},
                                                 {"id": "kb-103"}]}, "appended": []})  # fmt: skip
    runs, corrections, verdicts = [], [], []
    user, tenant = ctx.identity.user_id, ctx.tenant_id
    for n in range(count):
        run_id, correction_id, stamp = str(uuid.uuid4()), str(uuid.uuid4()), at(start + n)
        runs.append((run_id, tenant, project_id, stamp, AGENT, json.dumps({"userMessage": f"q{n}"}),
                     output))  # fmt: skip
        corrections.append((correction_id, tenant, project_id, run_id, AGENT, user, stamp))
        verdicts.extend(
            (uuid.uuid4().bytes, correction_id, f"kb-10{i + 1}", f"/output/articles/{i}", i,
             "yes" if i == 0 else "no", stamp)
            for i in range(3)
        )  # fmt: skip
    with ctx.db.transaction() as conn:
        conn.executemany(
            "INSERT INTO runs (id, tenant_id, project_id, flow_id, flow_version, status, "
            "created_at, updated_at, agent_id, agent_version, input, output) "
            "VALUES (?, ?, ?, 'agent.turn', '1.1.0', 'completed', ?4, ?4, ?, '0.1.0', ?, ?)",
            runs,
        )
        conn.executemany(
            "INSERT INTO corrections (id, tenant_id, project_id, run_id, subject_kind, "
            "subject_id, subject_version, corrector_kind, corrector_id, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, 'agent', ?, '0.1.0', 'user', ?, ?7, ?7)",
            corrections,
        )
        conn.executemany(
            "INSERT INTO verdicts (id, correction_seq, item_key, pointer, rank, verdict, "
            "created_at) VALUES (?, (SELECT seq FROM corrections WHERE id = ?), ?, ?, ?, ?, ?)",
            verdicts,
        )


def invoke_cli(client: Any, command: click.Command, args: list[str]) -> Result:
    """Run a CLI command whose API calls go to the test app instead of a URL."""

    class _Api(Api):
        def __init__(self, target: Any) -> None:
            super().__init__(target)
            self._made = client

        def close(self) -> None:
            """The test client stays open for the test."""

    with (
        patch("kindgi_dev.cli.command.Api", _Api),
        patch("kindgi_dev.cli.command.resolve", lambda *a, **k: Target("http://t", "t", "test")),
    ):
        return CliRunner().invoke(command, args, catch_exceptions=False)
