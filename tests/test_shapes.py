"""The code's shapes stay as issue 30 left them: few `Any`s, one definition per class name
unless a comment says why, a store and domain that import nothing above them, and mypy
forbidding explicit `Any` in both (mypy itself runs in tests/test_quality.py)."""

from __future__ import annotations

import ast
import re
import tomllib
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "kindgi_dev"
ABOVE = ("services", "runtime", "api", "console", "cli")
"""The layers `store/` and `domain/` may not import."""


def sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_any_is_written_fewer_than_400_times() -> None:
    count = sum(len(re.findall(r"\bAny\b", path.read_text())) for path in sources())
    assert 0 < count < 400, count


def commented(lines: list[str], node: ast.ClassDef) -> bool:
    """Whether a comment sits on the class line or on the line just above it (above its
    decorators, when it has some)."""
    if "#" in lines[node.lineno - 1]:
        return True
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return first >= 2 and lines[first - 2].lstrip().startswith("#")


def class_definitions() -> dict[str, list[tuple[str, bool]]]:
    """Each top-level class name: where it is defined, and whether a comment says why."""
    found: dict[str, list[tuple[str, bool]]] = defaultdict(list)
    for path in sources():
        text = path.read_text()
        lines = text.splitlines()
        for node in ast.parse(text).body:
            if isinstance(node, ast.ClassDef):
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                found[node.name].append((where, commented(lines, node)))
    return found


def test_a_class_name_defined_twice_says_why() -> None:
    twice = {name: places for name, places in class_definitions().items() if len(places) > 1}
    unexplained = {
        name: [where for where, says_why in places if not says_why]
        for name, places in twice.items()
        if sum(not says_why for _, says_why in places) > 1
    }
    assert twice, "the kept copies (client models, try_results) are found"
    assert unexplained == {}


def imported_modules(path: Path) -> list[str]:
    """The absolute names of the kindgi_dev modules a file imports, at any depth."""
    package = path.relative_to(ROOT).with_suffix("").parts[:-1]
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            module = ".".join([*base, *(node.module or "").split(".")]).strip(".")
            names.extend(f"{module}.{alias.name}" for alias in node.names)
    return [name for name in names if name.startswith("kindgi_dev.")]


def test_store_and_domain_import_nothing_above_them() -> None:
    wrong = [
        f"{path.relative_to(ROOT)} imports {name}"
        for layer in ("store", "domain")
        for path in sorted((PACKAGE / layer).rglob("*.py"))
        for name in imported_modules(path)
        if name.split(".")[1] in ABOVE
    ]
    assert wrong == []


def test_the_import_check_sees_a_relative_import_above() -> None:
    gate = PACKAGE / "services" / "run_waits.py"
    assert "kindgi_dev.runtime.approval_gate.ApprovalGate" in imported_modules(gate)


def test_mypy_forbids_explicit_any_in_store_and_domain() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    forbidding = {
        module
        for block in config["tool"]["mypy"]["overrides"]
        if block.get("disallow_any_explicit") is True
        for module in block["module"]
    }
    assert {"kindgi_dev.store.*", "kindgi_dev.domain.*"} <= forbidding
