"""The docs runner itself: a page passes when it prints what it shows, and fails when not."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from mdrun import DocsMismatch, Page, Session, json_matches, text_matches

PAGE = """\
# A page

```sh
cd examples
COUNT=3
echo '{"id": "x-1", "caseCount": 3, "metrics": [0.75,0.5], "extra": true}'
```

Prose between a block and its output is fine.

```json output
{"caseCount": 3, "id": "…", "metrics": [0.75, 0.5]}
```

```python
import os
print("cases:", int(os.environ["COUNT"]))
print("took 12ms")
```

```text output
cases: 3
took …ms
```

```sh skip
exit 1
```

```text file=notes.txt
hello
```

```sh exit=2
cat notes.txt
pwd | sed 's#.*/##'
echo "Error: no such" thing >&2
exit 2
```

```text output
hello
examples
Error: no such thing
```
"""


def run_page(tmp_path: Path, text: str) -> None:
    (tmp_path / "examples").mkdir(exist_ok=True)
    page = tmp_path / "page.md"
    page.write_text(text)
    Page(Session(tmp_path, dict(os.environ)), page, "page").run()


def test_a_page_that_prints_what_it_shows_passes(tmp_path: Path) -> None:
    run_page(tmp_path, PAGE)
    assert (tmp_path / "examples" / "notes.txt").read_text() == "hello\n"


@pytest.mark.parametrize(
    ("shown", "changed"),
    [
        ('"caseCount": 3, "id"', '"caseCount": 4, "id"'),
        ("[0.75, 0.5]", "[0.75, 0.4]"),
        ("cases: 3\n", "cases: 2\n"),
        ("Error: no such thing", "Error: another thing"),
        ("exit=2", "exit=1"),
    ],
)
def test_a_changed_output_fails_naming_the_line(tmp_path: Path, shown: str, changed: str) -> None:
    with pytest.raises(DocsMismatch, match=r"^page:\d+: "):
        run_page(tmp_path, PAGE.replace(shown, changed))


def test_a_failing_command_fails_the_page(tmp_path: Path) -> None:
    with pytest.raises(DocsMismatch, match="exit 1, the page expects 0"):
        run_page(tmp_path, "```sh\nfalse | cat\necho never\n```\n")


def test_ellipsis_lines_and_json_subsets() -> None:
    assert text_matches("start\n…\nend", "start\na\nb\nend")
    assert text_matches("start\n…\nend", "start\nend")
    assert not text_matches("start\nend", "start\na\nend")
    assert json_matches({"a": [1, "…"]}, {"a": [1, 2, 3], "b": 0})
    assert not json_matches({"a": [1]}, {"a": [1, 2]})
    assert not json_matches({"a": 1}, {"a": True})
    assert json_matches({"s": "run-…"}, {"s": "run-42"})
