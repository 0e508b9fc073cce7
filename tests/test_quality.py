"""The code stays ruff-clean and mypy-clean: CI runs these with the rest of the suite."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_ruff_check_and_format() -> None:
    checked = run(str(BIN / "ruff"), "check", ".")
    assert checked.returncode == 0, checked.stdout
    formatted = run(str(BIN / "ruff"), "format", "--check", ".")
    assert formatted.returncode == 0, formatted.stdout


@pytest.mark.slow
def test_mypy() -> None:
    typed = run(str(BIN / "mypy"), "--strict")
    assert typed.returncode == 0, typed.stdout
