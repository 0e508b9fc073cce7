"""`docs/api.md`'s table of what kindgi dev serves and doesn't is the one the code generates."""

from __future__ import annotations

from pathlib import Path

from kindgi_dev.api import feature_docs
from kindgi_dev.api.unserved import UNSERVED

PAGE = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def test_the_page_holds_the_generated_section() -> None:
    text = PAGE.read_text()
    assert feature_docs.section() in text, (
        "docs/api.md is out of date: run python -m kindgi_dev.api.feature_docs docs/api.md"
    )
    assert feature_docs.rewrite(text) == text


def test_every_unserved_feature_is_on_the_page_with_its_sentence() -> None:
    text = PAGE.read_text()
    for feature in UNSERVED:
        assert f"| {feature.name} (`{feature.key}`) | {feature.why} |" in text
