"""Function models: plain Python functions in a file, marked with `@model`.

The file is imported under a fresh module name on every load, so `kindgi dev` can load it
again after a save and get the new code while runs on the old one finish.
"""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import itertools
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType

from kindgi_dev.models import REGISTRY_ATTRIBUTE, ModelMark, Reply, Turn
from kindgi_dev.runtime.providers.base import ModelAdapter, ModelError, ModelUnavailable

PROVIDER_ID = "function"

_loads = itertools.count(1)


class ModelsFileError(ModelUnavailable):
    """A models file that cannot be used: it fails to import, or declares no usable model.

    A run that needs it fails with `model-invocation-failed`; `path`, `line` and `problem`
    let the watcher report where.
    """

    def __init__(self, path: Path, problem: str, line: int | None = None) -> None:
        self.path = path
        self.line = line
        self.problem = problem
        where = f"{path}:{line}" if line else str(path)
        super().__init__(f"{where}: {problem}", file=str(path), line=line)


@dataclass(frozen=True)
class FunctionModelAdapter:
    """Answers a turn by calling one `@model` function (sync ones in a worker thread, or
    `inline` on the caller's: an eval run's own loop, where blocking holds up no request)."""

    model: str
    function: Callable[[Turn], object]
    provider_id: str = PROVIDER_ID
    inline: bool = False

    async def next_step(self, turn: Turn) -> Reply:
        """Call the function with the turn; its exceptions become `ModelError`s."""
        answer: object
        try:
            if inspect.iscoroutinefunction(self.function):
                answer = await self.function(turn)
            elif self.inline:
                answer = self.function(turn)
                if inspect.isawaitable(answer):
                    answer = await answer
            else:
                answer = await asyncio.to_thread(self.function, turn)
                if inspect.isawaitable(answer):
                    answer = await answer
        except Exception as cause:
            raise ModelError(
                f"Function model {self.model} raised {type(cause).__name__}: {cause}"
            ) from cause
        return self._reply(answer)

    def _reply(self, answer: object) -> Reply:
        if isinstance(answer, str):
            return Reply(text=answer, model=self.model)
        if isinstance(answer, Reply):
            return answer if answer.model else replace(answer, model=self.model)
        raise ModelError(
            f"Function model {self.model} returned {type(answer).__name__}, not a Reply or a str."
        )


@dataclass(frozen=True)
class FunctionModels:
    """The `@model` functions of one load of a models file, by model name."""

    path: Path
    functions: dict[str, Callable[[Turn], object]]
    default: str | None

    @classmethod
    def load(cls, path: str | Path) -> FunctionModels:
        """Import the file afresh and collect its `@model` functions."""
        source = Path(path).resolve()
        module = _import_fresh(source)
        functions: dict[str, Callable[[Turn], object]] = {}
        defaults: list[str] = []
        for value in vars(module).values():
            mark = getattr(value, REGISTRY_ATTRIBUTE, None)
            if not isinstance(mark, ModelMark) or not callable(value):
                continue
            if mark.name in functions and functions[mark.name] is not value:
                raise ModelsFileError(source, f"two models are named {mark.name!r}")
            functions[mark.name] = value
            if mark.default and mark.name not in defaults:
                defaults.append(mark.name)
        if not functions:
            raise ModelsFileError(source, "no function is marked with @model")
        if len(defaults) > 1:
            raise ModelsFileError(source, f"more than one default model: {', '.join(defaults)}")
        return cls(source, functions, defaults[0] if defaults else None)

    @property
    def names(self) -> list[str]:
        """The model names, in the file's order."""
        return list(self.functions)

    def adapter(self, name: str | None = None) -> ModelAdapter:
        """The adapter for model `name`; None means the default one, or the only one."""
        chosen = name or self.default or (self.names[0] if len(self.functions) == 1 else None)
        if chosen is None:
            raise ModelUnavailable(
                f"{self.path} has several models ({', '.join(self.names)}) and none is"
                " @model(default=True): mark one as the default."
            )
        if chosen not in self.functions:
            raise ModelUnavailable(
                f"{self.path} has no model named {chosen!r} (it has {', '.join(self.names)})."
            )
        return FunctionModelAdapter(model=chosen, function=self.functions[chosen])


def _import_fresh(source: Path) -> ModuleType:
    """Execute the file as a new module named uniquely, so a reload never reuses the old one."""
    if not source.is_file():
        raise ModelsFileError(source, "no such models file")
    name = f"_kindgi_dev_models_{next(_loads)}_{_identifier(source.stem)}"
    spec = importlib.util.spec_from_file_location(name, source)
    if spec is None or spec.loader is None:
        raise ModelsFileError(source, "cannot be imported as a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as cause:
        del sys.modules[name]
        raise ModelsFileError(source, _describe(cause), _line_in(source, cause)) from cause
    return module


def _identifier(stem: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in stem)


def _describe(cause: BaseException) -> str:
    if isinstance(cause, SyntaxError):
        return f"SyntaxError: {cause.msg}"
    return f"{type(cause).__name__}: {cause}"


def _line_in(source: Path, cause: BaseException) -> int | None:
    """The line of `source` where the import failed, when the error points into it."""
    if isinstance(cause, SyntaxError) and cause.filename and Path(cause.filename) == source:
        return cause.lineno
    frames = [f for f in traceback.extract_tb(cause.__traceback__) if Path(f.filename) == source]
    return frames[-1].lineno if frames else None
