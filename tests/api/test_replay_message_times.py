"""An eval replay's messages keep no time of their own when it is their run's end (m0048,
#29 point 1): each is answered at the time its turn was kept, as before."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

from factories import served
from tables import read_only
from test_eval_run_pages import _corrected_runs
from test_eval_runs import models_file
from test_replay_rows import _replayed


def test_a_replay_s_messages_are_answered_at_their_turn_s_time(tmp_path: Path) -> None:
    with served(tmp_path, ("0.1.0", "0.2.0"), models_file(tmp_path, "same-search")) as (
        client, ctx,
    ):  # fmt: skip
        project = client.get("/v1/projects/default").json()["id"]
        _corrected_runs(client, ctx, 3)
        eval_run = _replayed(client, project)["runId"]
        with closing(read_only(ctx.settings.database_path)) as conn:
            rows = conn.execute(
                "SELECT r.conversation_id, r.completed_at, count(m.sequence), "
                "count(m.created_at) FROM runs r JOIN conversation_messages m "
                "ON m.conversation_id = r.conversation_id WHERE r.eval_run_id = ? "
                "GROUP BY r.id ORDER BY r.id",
                (eval_run,),
            ).fetchall()
        answers = {
            conversation: (
                client.get(f"/v1/conversations/{conversation}").json(),
                client.get(f"/v1/conversations/{conversation}/messages").json()["data"],
            )
            for conversation, _, _, _ in rows
        }
    assert len(rows) == 3
    assert [(messages, timed) for _, _, messages, timed in rows] == [(4, 0)] * 3
    for conversation, completed_at, _, _ in rows:
        opened, said = answers[conversation]
        assert [m["createdAt"] for m in said] == [completed_at] * 4
        assert opened["lastMessageAt"] == completed_at
