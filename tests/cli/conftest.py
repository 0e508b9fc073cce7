"""The CLI tests' pack folder: a temp HOME and working folder, with no API settings."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture()
def pack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("KINDGI_API_URL", "KINDGI_API_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path
