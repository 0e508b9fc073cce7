"""Which model answers an agent: the configured providers and the pack's function models."""

from __future__ import annotations

import dataclasses
import os
import tomllib
from collections import ChainMap
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..domain.errors import Unprocessable
from ..runtime.eval_loop import AtHome
from ..runtime.providers import ModelAdapter, ProviderConfig, select_adapter
from ..runtime.providers.function import PROVIDER_ID as FUNCTION_PROVIDER
from ..runtime.providers.function import FunctionModels
from ..runtime.providers.registered import ADAPTERS
from ..runtime.providers.registered import http_provider as registered_http
from ..store import providers as provider_store
from .context import Context

if TYPE_CHECKING:
    import httpx

HTTP_EVAL_CONCURRENCY = 16
"""Replays at once with an HTTP model: 200 cases of two 200 ms calls end in about 5 s."""


def _pyproject_tool(ctx: Context) -> dict[str, Any]:
    """The pack's `[tool]` table, read again only when `pyproject.toml` changed."""
    path = ctx.settings.pack_dir / "pyproject.toml"
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        return {}
    cached = ctx.models.pyproject_tool
    if cached is not None and cached[0] == stamp:
        return dict(cached[1])
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    tool = data.get("tool", {})
    table = tool if isinstance(tool, dict) else {}
    ctx.models.pyproject_tool = (stamp, table)
    return dict(table)


def models_file(ctx: Context) -> Path | None:
    """`--models`, else `[tool.kindgi-dev] models` relative to the pack, else none."""
    if ctx.settings.models_file is not None:
        return ctx.settings.models_file
    named = _pyproject_tool(ctx).get("kindgi-dev", {}).get("models")
    return (ctx.settings.pack_dir / named).resolve() if isinstance(named, str) else None


def function_models(ctx: Context) -> FunctionModels | None:
    """The function models, loaded afresh whenever their file changed since the last load."""
    path = models_file(ctx)
    if path is None or not path.is_file():
        return None
    stamp = path.stat().st_mtime_ns
    cached = ctx.models.function_models
    if cached is None or cached[0] != (path, stamp):
        cached = ((path, stamp), FunctionModels.load(path))
        ctx.models.function_models = cached
    return cached[1]


def provider_config(ctx: Context) -> ProviderConfig:
    """The HTTP providers from the environment and the pack's `[tool.kindgi-dev.providers]`,
    and those registered over the API (each one's key read from the environment now: the
    few names a provider reads are looked up, not the whole environment copied each run)."""
    env = ChainMap(ctx.settings.env, os.environ)
    config = ProviderConfig.from_env_and_pyproject(env, _pyproject_tool(ctx))
    registrations = provider_store.live(ctx.db, ctx.tenant_id)
    if not registrations:
        return config
    registered = tuple(
        registered_http(r.id, r.adapter_id, r.metadata, r.secret_ref, r.adapter_config, env)
        for r in registrations
        if r.adapter_id in ADAPTERS
    )
    return dataclasses.replace(config, registered=registered)


def http_client(ctx: Context) -> httpx.AsyncClient:
    """One HTTP client for every model call: its connections and TLS context are reused.
    Made (and httpx imported) at the first HTTP model call: function models never need it."""
    client = ctx.models.http_client
    if client is None:
        import httpx

        client = httpx.AsyncClient(limits=httpx.Limits(max_connections=64))
        ctx.models.http_client = client
    return client


async def close(ctx: Context) -> None:
    """Close the shared HTTP client at shutdown."""
    client, ctx.models.http_client = ctx.models.http_client, None
    if client is not None:
        await client.aclose()


def adapter_for(ctx: Context, agent: dict[str, Any]) -> ModelAdapter:
    """The model adapter that answers this agent now."""
    adapter = select_adapter(
        agent, provider_config(ctx), function_models(ctx), client=lambda: http_client(ctx)
    )
    return at_home(ctx, adapter)


def at_home(ctx: Context, adapter: ModelAdapter) -> ModelAdapter:
    """On the eval runs' loop, an HTTP provider's adapter asks on the API's loop (which owns
    the HTTP client and the providers' gates); a function model answers where it is asked."""
    away = ctx.away()
    if away is None or adapter.provider_id == FUNCTION_PROVIDER:
        return adapter
    return AtHome(adapter, away)


def eval_concurrency(ctx: Context, agent: dict[str, Any]) -> int:
    """How many replays of an agent an eval run runs at once: `--eval-concurrency` when given,
    else the CPU count for function models (they use the CPU) and `HTTP_EVAL_CONCURRENCY`
    for an HTTP provider (the replays wait on the network; the provider's gate caps them)."""
    if ctx.settings.eval_concurrency is not None:
        return ctx.settings.eval_concurrency
    try:
        provider = adapter_for(ctx, agent).provider_id
    except Unprocessable:
        provider = FUNCTION_PROVIDER
    return (os.cpu_count() or 1) if provider == FUNCTION_PROVIDER else HTTP_EVAL_CONCURRENCY


def judging_adapter(ctx: Context) -> ModelAdapter | None:
    """The configured provider that judges answers (a keyless local server counts), or None:
    then the deterministic judge."""
    config = provider_config(ctx)
    chosen = config.http(config.default) if config.default else None
    candidates = [chosen] if chosen is not None else [config.openai, config.anthropic]
    for provider in candidates:
        if provider is not None and provider.usable:
            return at_home(ctx, provider.adapter(None, http_client(ctx)))
    return None
