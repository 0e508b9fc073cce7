"""mypy refuses an endpoint whose handler takes another body or query than it declares."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent

DECLARED = """
from kindgi_dev.api.endpoint import Call, Endpoint, NoBody, NoQuery
from kindgi_dev.api.projects import ProjectPatch, ProjectSpec, ProjectListQuery


async def make(call: Call[ProjectSpec, NoQuery]) -> None: ...
async def read(call: Call[NoBody, ProjectListQuery]) -> None: ...


RIGHT = [
    Endpoint("POST", "/v1/x", "x.make", make, "Make.", body=ProjectSpec),
    Endpoint("GET", "/v1/x", "x.read", read, "Read.", query=ProjectListQuery),
]
OTHER_BODY = Endpoint("POST", "/v1/x", "x.make", make, "Make.", body=ProjectPatch)
NO_BODY = Endpoint("POST", "/v1/x", "x.make", make, "Make.")
NO_QUERY = Endpoint("GET", "/v1/x", "x.read", read, "Read.")
"""


@pytest.mark.slow
def test_mypy_refuses_a_handler_unlike_its_endpoint(tmp_path: Path) -> None:
    module = tmp_path / "declared.py"
    module.write_text(DECLARED, "utf-8")
    checked = subprocess.run(
        [str(BIN / "mypy"), "--strict", "--cache-dir", str(tmp_path / "cache"), str(module)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    lines = DECLARED.splitlines()
    refused = {
        lines[int(line.split(":")[1]) - 1].split(" =")[0]
        for line in checked.stdout.splitlines()
        if line.startswith(str(module)) and line.endswith("[arg-type]")
    }
    assert refused == {"OTHER_BODY", "NO_BODY", "NO_QUERY"}, checked.stdout
    assert checked.stdout.endswith("Found 3 errors in 1 file (checked 1 source file)\n")
