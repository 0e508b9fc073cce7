"""A keyless OpenAI-compatible server (Ollama, vLLM, LM Studio) is a provider like any other:
the banner's Models line names it and it judges answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from kindgi_dev.app import context_of, create_app
from kindgi_dev.runtime.host import Runtime
from kindgi_dev.services import models
from kindgi_dev.settings import Settings

LOCAL = "http://127.0.0.1:11434/v1"


@pytest.fixture()
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.kindgi.pack]\nid = "demo"\nversion = "0.1.0"\n\n'
        f'[tool.kindgi-dev.providers.openai]\nbase_url = "{LOCAL}"\nmodel = "llama3.2"\n'
    )
    return Settings(pack_dir=tmp_path, start_pack=False)


def test_the_models_line_names_a_keyless_local_server(settings: Settings) -> None:
    host = Runtime(settings, lambda index: [], None, lambda line: None)
    assert host.models_summary() == f"OpenAI-compatible llama3.2 at {LOCAL}, no key"


def test_a_keyless_local_server_judges_answers(settings: Settings) -> None:
    ctx = context_of(create_app(settings))
    judge = models.judging_adapter(ctx)
    assert judge is not None
    assert (judge.provider_id, judge.model) == ("openai", "llama3.2")
