"""Which model answers an agent: the configured providers and the pack's function models."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from ..runtime.providers import ModelAdapter, ProviderConfig, select_adapter
from ..runtime.providers.function import FunctionModels
from .context import Context


def _pyproject_tool(pack_dir: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads((pack_dir / "pyproject.toml").read_text())
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    tool = data.get("tool", {})
    return tool if isinstance(tool, dict) else {}


def models_file(ctx: Context) -> Path | None:
    """`--models`, else `[tool.kindgi-dev] models` relative to the pack, else none."""
    if ctx.settings.models_file is not None:
        return ctx.settings.models_file
    named = _pyproject_tool(ctx.settings.pack_dir).get("kindgi-dev", {}).get("models")
    return (ctx.settings.pack_dir / named).resolve() if isinstance(named, str) else None


def function_models(ctx: Context) -> FunctionModels | None:
    """The function models, loaded afresh whenever their file changed since the last load."""
    path = models_file(ctx)
    if path is None or not path.is_file():
        return None
    stamp = path.stat().st_mtime_ns
    cached = ctx.extras.get("function_models")
    if cached is None or cached[0] != (path, stamp):
        cached = ((path, stamp), FunctionModels.load(path))
        ctx.extras["function_models"] = cached
    loaded: FunctionModels = cached[1]
    return loaded


def provider_config(ctx: Context) -> ProviderConfig:
    """The HTTP providers from the environment and the pack's `[tool.kindgi-dev.providers]`."""
    env = {**os.environ, **ctx.settings.env}
    return ProviderConfig.from_env_and_pyproject(env, _pyproject_tool(ctx.settings.pack_dir))


def adapter_for(ctx: Context, agent: dict[str, Any]) -> ModelAdapter:
    """The model adapter that answers this agent now."""
    return select_adapter(agent, provider_config(ctx), function_models(ctx))


def summary(ctx: Context) -> str:
    """One line for the banner: which models answer."""
    config = provider_config(ctx)
    usable = [p.id for p in (config.openai, config.anthropic) if p.usable]
    path = models_file(ctx)
    if path is not None and path.is_file():
        usable.append(f"function models from {path.name}")
    return ", ".join(usable) or "none yet: set OPENAI_API_KEY or ANTHROPIC_API_KEY"
