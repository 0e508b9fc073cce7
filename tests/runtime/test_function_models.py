"""Function models: loading a models file, reloading it after an edit, picking the model."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path

import pytest

from kindgi_dev.models import Message, Reply, Turn
from kindgi_dev.runtime.providers import (
    FunctionModels,
    ModelError,
    ModelsFileError,
    ModelUnavailable,
)


def write(path: Path, source: str) -> Path:
    path.write_text(textwrap.dedent(source), encoding="utf-8")
    return path


def turn(question: str = "Hello?") -> Turn:
    return Turn(
        agent_id="acme.a",
        agent_version="1.0.0",
        instructions="Be brief.",
        messages=(Message("system", "Be brief."), Message("user", question)),
        tools=(),
    )


def ask(models: FunctionModels, name: str | None = None) -> Reply:
    return asyncio.run(models.adapter(name).next_step(turn()))


def test_a_str_answer_is_the_reply_text_and_the_function_name_is_the_model(tmp_path: Path) -> None:
    models = FunctionModels.load(
        write(
            tmp_path / "models.py",
            """
            from kindgi_dev.models import model

            @model()
            def echo(turn):
                return "you said " + turn.question()
            """,
        )
    )
    adapter = models.adapter(None)
    assert (adapter.provider_id, adapter.model) == ("function", "echo")
    assert ask(models) == Reply(text="you said Hello?", model="echo")


def test_reload_after_an_edit_runs_the_new_code(tmp_path: Path) -> None:
    path = write(tmp_path / "models.py", "from kindgi_dev.models import model\n")
    path.write_text(path.read_text() + "@model()\ndef m(turn):\n    return 'one'\n")
    first = FunctionModels.load(path)
    path.write_text(path.read_text().replace("'one'", "'two'"))
    second = FunctionModels.load(path)
    assert ask(first).text == "one"
    assert ask(second).text == "two"


def test_the_default_model_answers_when_no_name_is_given(tmp_path: Path) -> None:
    models = FunctionModels.load(
        write(
            tmp_path / "models.py",
            """
            from kindgi_dev.models import Reply, model

            @model()
            def plain(turn):
                return "plain"

            @model("fancy-v2", default=True)
            async def fancy(turn):
                return Reply(text="fancy", output={"ok": True})
            """,
        )
    )
    assert models.names == ["plain", "fancy-v2"]
    assert ask(models) == Reply(text="fancy", output={"ok": True}, model="fancy-v2")
    assert ask(models, "plain").text == "plain"
    with pytest.raises(ModelUnavailable, match="no model named 'nope'"):
        models.adapter("nope")


def test_several_models_and_no_default_need_a_name(tmp_path: Path) -> None:
    models = FunctionModels.load(
        write(
            tmp_path / "models.py",
            """
            from kindgi_dev.models import model

            @model()
            def a(turn):
                return "a"

            @model()
            def b(turn):
                return "b"
            """,
        )
    )
    with pytest.raises(ModelUnavailable, match="default=True") as raised:
        models.adapter(None)
    assert raised.value.status == 422
    assert raised.value.wire_code == "model-invocation-failed"
    assert ask(models, "b").text == "b"


def test_an_exception_in_the_function_is_a_model_error_with_its_message(tmp_path: Path) -> None:
    models = FunctionModels.load(
        write(
            tmp_path / "models.py",
            """
            from kindgi_dev.models import model

            @model()
            def broken(turn):
                raise ValueError("the weights are missing")
            """,
        )
    )
    with pytest.raises(ModelError, match="the weights are missing"):
        ask(models)


def test_a_reply_of_the_wrong_type_is_a_model_error(tmp_path: Path) -> None:
    models = FunctionModels.load(
        write(
            tmp_path / "models.py",
            """
            from kindgi_dev.models import model

            @model()
            def numbers(turn):
                return 42
            """,
        )
    )
    with pytest.raises(ModelError, match="returned int"):
        ask(models)


def test_a_file_that_fails_to_import_names_its_line(tmp_path: Path) -> None:
    path = write(tmp_path / "models.py", "import os\n\nraise RuntimeError('boom')\n")
    with pytest.raises(ModelsFileError) as raised:
        FunctionModels.load(path)
    assert (raised.value.line, raised.value.problem) == (3, "RuntimeError: boom")
    assert raised.value.wire_code == "model-invocation-failed"
    assert raised.value.details == {"file": str(path.resolve()), "line": 3}


def test_a_file_without_models_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelsFileError, match="no function is marked with @model"):
        FunctionModels.load(write(tmp_path / "models.py", "x = 1\n"))


def test_tool_results_are_those_of_the_current_turn() -> None:
    earlier = Message("tool", {"articles": []}, tool_call_id="c1", tool_id="t")
    now = Message("tool", {"articles": [1]}, tool_call_id="c2", tool_id="t")
    messages = (Message("user", "first"), earlier, Message("user", "second"), now)
    asked = Turn("a", "1.0.0", "", messages, ())
    assert asked.tool_results() == [now]
    assert asked.question() == "second"
