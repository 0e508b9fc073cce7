"""Fixtures for runtime tests: the article-picker example, its tools run in-process, stubs.

The stub servers live in `tests/stubs`, so the tests folder goes on `sys.path` here.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from example_pack import EXAMPLE, PackDispatcher
from kindgi.pack.index import run_indexer
from stubs.anthropic_stub import AnthropicStub
from stubs.openai_stub import OpenAIStub

from kindgi_dev.runtime.providers import FunctionModels


@pytest.fixture(scope="session")
def picker_index(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The example pack's index, as the SDK writes it (outside the example's folder)."""
    output = tmp_path_factory.mktemp("index") / "index.json"
    outcome = run_indexer(EXAMPLE, output_path=output)
    assert outcome["kind"] == "ok", outcome
    return json.loads(output.read_text("utf-8"))


@pytest.fixture
def picker_agent(picker_index: dict[str, Any]) -> dict[str, Any]:
    """The article picker's manifest, 0.1.0 as indexed."""
    return json.loads(json.dumps(picker_index["agents"][0]))


@pytest.fixture
def picker_tools(picker_index: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The manifests of the tools the article picker names, by id (the flows' tools left out)."""
    named = {ref["id"] for ref in picker_index["agents"][0]["tools"]}
    return {tool["id"]: tool for tool in picker_index["tools"] if tool["id"] in named}


@pytest.fixture
def dispatcher(picker_tools: dict[str, dict[str, Any]]) -> PackDispatcher:
    return PackDispatcher(EXAMPLE, picker_tools)


@pytest.fixture
def picker_models() -> FunctionModels:
    return FunctionModels.load(EXAMPLE / "dev_models.py")


@pytest.fixture
def openai_stub() -> Iterator[OpenAIStub]:
    stub = OpenAIStub().serve()
    yield stub
    stub.stop()


@pytest.fixture
def anthropic_stub() -> Iterator[AnthropicStub]:
    stub = AnthropicStub().serve()
    yield stub
    stub.stop()
