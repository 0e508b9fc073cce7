"""A console form's write checks and writes in one write transaction, as the API's handler
does: a run's content erased by another thread while the correction is being saved is
either seen by its checks or erased after it, never written back into the correction's
copy of the run (the copy was taken from what the checks read before the erasure)."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
from factories import QUESTIONS, recorded_run, served

from kindgi_dev.app import console_link
from kindgi_dev.domain.time import now_iso
from kindgi_dev.services import corrections
from kindgi_dev.services.context import Context
from kindgi_dev.services.runs import StoredRun
from kindgi_dev.store import judged_copies
from kindgi_dev.store import runs as run_store

BASE = "http://127.0.0.1"
PASSWORD = next(iter(QUESTIONS))


def test_a_run_erased_while_its_correction_is_saved_stays_erased(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with served(tmp_path) as (client, ctx):
        run_id = recorded_run(ctx, PASSWORD)
        client.get(console_link(client.app, BASE))
        csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/console/runs").text)
        assert csrf is not None
        checked = corrections.correctable_run
        erasing: list[threading.Thread] = []

        def erase() -> None:
            """What an erasure of the run's participant does to the run and its copies."""
            with ctx.db.transaction():
                judged_copies.erase_copies(ctx.db, [run_id])
                run_store.erase_content(ctx.db, [run_id], now_iso())

        def checked_then_erased(given: Context, checked_id: str) -> StoredRun:
            """The correction's check of the run; then the erasure, given half a second."""
            run = checked(given, checked_id)
            erasing.append(threading.Thread(target=erase))
            erasing[0].start()
            erasing[0].join(0.5)
            return run

        monkeypatch.setattr(corrections, "correctable_run", checked_then_erased)
        saved = client.post(
            f"/console/runs/{run_id}/correct",
            data={"csrf": csrf.group(1), "verdict-0": "right", "rank-0": "0"},
            headers={"Origin": BASE},
            follow_redirects=False,
        )
        erasing[0].join(10)
        copies = ctx.db.all(
            "SELECT input, output FROM judged_run_copies WHERE run_id = ?", (run_id,)
        )
        run = ctx.db.one("SELECT content_erased_at, output FROM runs WHERE id = ?", (run_id,))
    assert saved.status_code in (303, 410), saved.text
    assert run is not None and run["content_erased_at"] and run["output"] is None
    assert [(copy["input"], copy["output"]) for copy in copies] in ([], [(None, None)])
