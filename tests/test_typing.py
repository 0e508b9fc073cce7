"""domain/ is typed all through and stays pure: mypy with `disallow_any_explicit` on it alone
(so the check holds even if pyproject's override for it were dropped), and its modules
import only the standard library's pure parts and each other."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOMAIN = ROOT / "kindgi_dev" / "domain"
PURE = {
    "__future__", "base64", "collections", "dataclasses", "datetime", "enum", "functools",
    "hashlib", "itertools", "json", "math", "operator", "random", "re", "statistics", "sys",
    "typing", "typing_extensions",
}  # fmt: skip
"""What a rule may import besides domain/ itself: no I/O, no pydantic, no other layer."""


@pytest.mark.slow
def test_domain_passes_mypy_strict_with_no_explicit_any() -> None:
    typed = subprocess.run(
        [str(Path(sys.executable).parent / "mypy"), "--strict", "--disallow-any-explicit",
         "-p", "kindgi_dev.domain"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert typed.returncode == 0, typed.stdout


def imported(path: Path) -> set[str]:
    """The top-level modules a file imports from outside domain/ (relative imports and
    `kindgi_dev.domain` are domain/ itself)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return {name for name in found if not name.startswith("kindgi_dev.domain")}


def test_domain_imports_only_pure_modules() -> None:
    modules = sorted(DOMAIN.glob("*.py"))
    assert len(modules) > 40
    impure = {
        path.name: sorted(outside)
        for path in modules
        if (outside := {m for m in imported(path) if m.split(".")[0] not in PURE})
    }
    assert impure == {}
