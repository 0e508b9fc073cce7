"""`kindgi dev --log-level debug` prints one line per request: method, path, status, ms; what
a client sent is written with its control characters escaped."""

from __future__ import annotations

import io
import logging
import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from kindgi_dev.api.request_log import escape_log_records
from kindgi_dev.app import context_of, create_app
from kindgi_dev.settings import Settings


@pytest.mark.parametrize(("level", "logged"), [("debug", True), ("info", False)])
def test_a_line_per_request_at_debug(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], level: str, logged: bool
) -> None:
    app = create_app(Settings(pack_dir=tmp_path, start_pack=False, log_level=level))
    with TestClient(app, base_url="http://127.0.0.1") as client:
        capsys.readouterr()
        client.get("/health")
        client.get("/v1/projects/default")
        token = context_of(app).identity.token
        client.get("/v1/projects/nope", headers={"Authorization": f"Bearer {token}"})
    lines = [line for line in capsys.readouterr().err.splitlines() if "←" in line]
    if not logged:
        assert lines == []
        return
    assert [re.sub(r"\d+ms$", "Nms", line) for line in lines] == [
        "  ← GET /health 200 Nms",
        "  ← GET /v1/projects/default 401 Nms",
        "  ← GET /v1/projects/nope 404 Nms",
    ]


def test_what_a_client_sent_is_logged_with_its_control_characters_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app = create_app(Settings(pack_dir=tmp_path, start_pack=False, log_level="debug"))
    with TestClient(app, base_url="http://127.0.0.1") as client:
        capsys.readouterr()
        forged = client.get("/x%0a  ← GET /v1/forged 200 1ms%0d%1b[2J%c2%9b31m%e2%80%a8\\")
        named = client.get("/health", headers={"X-Request-Id": "run-7\x1b[31m"})
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "←" in line]
    assert forged.status_code == 404
    assert [re.sub(r"\d+ms$", "Nms", line) for line in lines] == [
        "  ← GET /x\\n  ← GET /v1/forged 200 1ms\\r\\x1b[2J\\x9b31m\\u2028\\\\ 404 Nms",
        "  ← GET /health 200 Nms",
    ]
    assert "\x1b" not in err and "\x9b" not in err
    assert named.headers["x-request-id"] == "run-7\\x1b[31m"


def test_every_log_record_is_written_with_its_control_characters_escaped() -> None:
    logger, written = logging.getLogger("kindgi_dev.test-escaped"), io.StringIO()
    logger.addHandler(logging.StreamHandler(written))
    logger.propagate = False
    escape_log_records(logger)
    try:
        raise ValueError("ours\nkept")
    except ValueError:
        logger.exception("pulling %s failed", "a\nb\x1b[2J")
    lines = written.getvalue().splitlines()
    assert lines[0] == "ERROR:kindgi_dev.test-escaped:pulling a\\nb\\x1b[2J failed"
    assert lines[-2:] == ["ValueError: ours", "kept"]
