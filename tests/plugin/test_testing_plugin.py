"""The `kindgi_dev` pytest plugin, run the way users run it: pytest in a pack's folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kindgi_dev.cli.main import cli

pytest_plugins = ["pytester"]

URLS = """
from pathlib import Path


def test_one(kindgi_dev):
    with open(Path(__file__).with_name("urls.txt"), "a") as urls:
        urls.write(kindgi_dev.url + " " + kindgi_dev.project_id + "\\n")


def test_two(kindgi_dev):
    assert kindgi_dev.client.projects.get_default().id is not None
    with open(Path(__file__).with_name("urls.txt"), "a") as urls:
        urls.write(kindgi_dev.url + " " + kindgi_dev.project_id + "\\n")
"""


def write_pack(where: Path) -> Path:
    done = CliRunner().invoke(cli, ["init", "demo", f"--path={where}", "--force"])
    assert done.exit_code == 0, done.output
    return where


@pytest.mark.slow
def test_function_scope_gives_each_test_its_own_instance(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pack = write_pack(tmp_path / "pack")
    pytester.makepyfile(test_urls=URLS)
    result = pytester.runpytest_subprocess(f"--kindgi-pack={pack}", "--kindgi-dev-scope=function")
    result.assert_outcomes(passed=2)
    seen = (pytester.path / "urls.txt").read_text().splitlines()
    assert len(seen) == 2
    assert len(set(seen)) == 2
    assert all(line.startswith("http://127.0.0.1:") for line in seen)
    assert not (pack / ".kindgi").exists()


def test_a_folder_that_is_no_pack_says_how_to_name_one(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_any="def test_any(kindgi_dev):\n    pass\n")
    result = pytester.runpytest("-q")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*has no pyproject.toml: pass --kindgi-pack=<pack dir>*"])
