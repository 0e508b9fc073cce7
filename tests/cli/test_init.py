"""`kindgi init`: the pack it writes, and the folders it refuses."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from kindgi_dev.cli.main import cli
from kindgi_dev.domain.test_set_files import case_text, digest


def init(where: Path, *args: str) -> tuple[int, str]:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(where)
        done = CliRunner().invoke(cli, ["init", *args])
    return done.exit_code, done.output


def test_init_writes_a_python_pack_named_after_its_last_segment(tmp_path: Path) -> None:
    code, output = init(tmp_path, "acme.garden")
    assert code == 0, output
    pack = tmp_path / "garden"
    assert sorted(str(p.relative_to(pack)) for p in pack.rglob("*") if p.is_file()) == [
        ".gitignore", "README.md", "agents/tip_picker.py", "dev_models.py", "pyproject.toml",
        "tests/cases/tip-picker-1.0.0.json", "tests/test_agent.py", "tests/test_cases.py",
        "tools/search_tips.py",
    ]  # fmt: skip
    config = tomllib.loads((pack / "pyproject.toml").read_text())
    assert config["tool"]["kindgi"]["pack"] == {"id": "acme.garden", "version": "0.1.0"}
    assert config["tool"]["kindgi-dev"] == {"models": "dev_models.py"}
    assert 'id="acme.garden.tip-picker"' in (pack / "agents" / "tip_picker.py").read_text()
    assert "kindgi_dev" in (pack / "tests" / "test_agent.py").read_text()
    assert output.splitlines()[0] == "✓ python pack acme.garden written to garden/ (9 files)"


def test_the_shipped_cases_file_names_the_packs_agent_and_its_digest(tmp_path: Path) -> None:
    code, output = init(tmp_path, "acme.garden")
    assert code == 0, output
    text = (tmp_path / "garden" / "tests" / "cases" / "tip-picker-1.0.0.json").read_text()
    data = json.loads(text)
    assert data["agents"] == [{"id": "acme.garden.tip-picker", "versions": ["0.1.0"]}]
    assert data["id"].startswith("acme.garden.tip-picker~")
    assert (data["caseCount"], data["version"]) == (4, "1.0.0")
    assert data["sha256"] == digest(data["cases"])
    assert "__PACK_ID__" not in text
    assert text.replace("\n", "") == case_text(data)


def test_the_sample_template_adds_a_guardrail_a_flow_and_a_second_tool(tmp_path: Path) -> None:
    code, output = init(tmp_path, "demo", "--template=sample", "--path=here")
    assert code == 0, output
    written = {str(p.relative_to(tmp_path / "here")) for p in (tmp_path / "here").rglob("*.py")}
    assert {"guardrails/answer_not_empty.py", "flows/search_flow.py",
            "tools/note_question.py", "agents/tip_picker.py"} <= written  # fmt: skip


def test_init_refuses_a_folder_that_is_not_empty_unless_forced(tmp_path: Path) -> None:
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "notes.txt").write_text("mine")
    code, output = init(tmp_path, "demo")
    assert code == 1
    assert "demo is not empty: kindgi init writes only into an empty folder" in output
    assert "--force" in output
    assert sorted(p.name for p in (tmp_path / "demo").iterdir()) == ["notes.txt"]
    code, output = init(tmp_path, "demo", "--force")
    assert code == 0, output
    assert (tmp_path / "demo" / "notes.txt").read_text() == "mine"
    assert (tmp_path / "demo" / "pyproject.toml").exists()


def test_without_a_name_the_current_folder_is_the_pack(tmp_path: Path) -> None:
    (tmp_path / "my-pack").mkdir()
    code, output = init(tmp_path / "my-pack")
    assert code == 0, output
    assert 'id = "my-pack"' in (tmp_path / "my-pack" / "pyproject.toml").read_text()


def test_a_name_that_is_no_pack_id_is_a_usage_error(tmp_path: Path) -> None:
    code, output = init(tmp_path, "Acme Garden")
    assert code == 2
    assert '"Acme Garden" is not a pack id' in output
    assert list(tmp_path.iterdir()) == []
