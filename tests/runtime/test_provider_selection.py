"""Which adapter answers an agent: its preferred provider, else the configured default."""

from __future__ import annotations

from typing import Any

import pytest

from kindgi_dev.runtime.providers import (
    FunctionModels,
    ModelUnavailable,
    ProviderConfig,
    ProviderConfigInvalid,
    select_adapter,
)
from kindgi_dev.runtime.providers.anthropic import AnthropicAdapter
from kindgi_dev.runtime.providers.openai import OpenAIAdapter

AGENT = {"id": "acme-ops.article-picker", "version": "0.1.0"}
BOTH_KEYS = {"OPENAI_API_KEY": "sk-o", "ANTHROPIC_API_KEY": "sk-a"}


def config(env: dict[str, str] | None = None, tool: dict[str, Any] | None = None) -> ProviderConfig:
    return ProviderConfig.from_env_and_pyproject(env or {}, tool or {})


def chosen(adapter: Any) -> tuple[str, str]:
    return adapter.provider_id, adapter.model


def test_defaults_come_from_the_environment() -> None:
    read = config(BOTH_KEYS | {"ANTHROPIC_BASE_URL": "http://127.0.0.1:1"})
    assert read.openai.base_url == "https://api.openai.com/v1"
    assert (read.openai.api_key, read.openai.model) == ("sk-o", "gpt-4o-mini")
    assert read.anthropic.base_url == "http://127.0.0.1:1"
    assert read.anthropic.model == "claude-sonnet-4-5"
    assert read.default is None


def test_the_pyproject_names_models_key_variables_and_the_default() -> None:
    tool = {
        "kindgi-dev": {
            "models": "dev_models.py",
            "providers": {
                "default": "anthropic",
                "openai": {"base_url": "http://localhost:11434/v1", "model": "llama3.1"},
                "anthropic": {"api_key_env": "MY_KEY", "model": "claude-x", "timeout_s": 5},
            },
        }
    }
    read = config({"MY_KEY": "sk-mine", "ANTHROPIC_API_KEY": "ignored"}, tool)
    assert (read.anthropic.api_key, read.anthropic.timeout_s) == ("sk-mine", 5.0)
    assert read.openai.usable and not read.openai.has_key
    adapter = select_adapter(AGENT, read, None)
    assert isinstance(adapter, AnthropicAdapter) and chosen(adapter) == ("anthropic", "claude-x")
    ollama = select_adapter({**AGENT, "preferredProvider": "openai"}, read, None)
    assert isinstance(ollama, OpenAIAdapter) and ollama.base_url == "http://localhost:11434/v1"


def test_the_preferred_provider_and_model_win_when_usable(picker_models: FunctionModels) -> None:
    agent = {**AGENT, "preferredProvider": "anthropic", "preferredModel": "claude-opus-4-1"}
    assert chosen(select_adapter(agent, config(BOTH_KEYS), None)) == (
        "anthropic",
        "claude-opus-4-1",
    )
    only_openai = config({"OPENAI_API_KEY": "sk-o"})
    assert chosen(select_adapter(agent, only_openai, None)) == ("openai", "gpt-4o-mini")
    function = {**AGENT, "preferredProvider": "function", "preferredModel": "article_picker"}
    assert chosen(select_adapter(function, config(BOTH_KEYS), picker_models)) == (
        "function",
        "article_picker",
    )


def test_without_a_default_openai_then_anthropic_then_function_models(
    picker_models: FunctionModels,
) -> None:
    assert chosen(select_adapter(AGENT, config(BOTH_KEYS), picker_models))[0] == "openai"
    anthropic_only = config({"ANTHROPIC_API_KEY": "sk-a"})
    assert chosen(select_adapter(AGENT, anthropic_only, picker_models))[0] == "anthropic"
    assert chosen(select_adapter(AGENT, config(), picker_models)) == ("function", "article_picker")


def test_the_example_pack_s_default_keeps_function_models_with_keys_set(
    picker_models: FunctionModels,
) -> None:
    tool = {"kindgi-dev": {"models": "dev_models.py", "providers": {"default": "function"}}}
    adapter = select_adapter(AGENT, config(BOTH_KEYS, tool), picker_models)
    assert chosen(adapter) == ("function", "article_picker")


def test_no_usable_model_is_a_clear_422() -> None:
    with pytest.raises(ModelUnavailable) as raised:
        select_adapter(AGENT, config(), None)
    assert (raised.value.status, raised.value.wire_code) == (422, "model-invocation-failed")
    assert "acme-ops.article-picker" in raised.value.message
    assert "OPENAI_API_KEY" in raised.value.message and "dev_models.py" in raised.value.message


def test_a_default_that_cannot_answer_says_why() -> None:
    tool = {"providers": {"default": "openai"}}
    with pytest.raises(ModelUnavailable, match="OPENAI_API_KEY is not set"):
        select_adapter(AGENT, config({"ANTHROPIC_API_KEY": "sk-a"}, tool), None)


@pytest.mark.parametrize(
    ("tool", "problem"),
    [
        ({"providers": {"default": "gemini"}}, "is not one of"),
        ({"providers": {"openai": "fast"}}, "must be a table"),
        ({"providers": {"openai": {"model": 4}}}, "model must be a non-empty string"),
        ({"providers": {"anthropic": {"timeout_s": 0}}}, "timeout_s must be a positive"),
    ],
)
def test_an_invalid_providers_table_is_refused(tool: dict[str, Any], problem: str) -> None:
    with pytest.raises(ProviderConfigInvalid, match=problem):
        config({}, tool)
