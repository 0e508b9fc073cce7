"""Providers registered over the API, called through kindgi dev's own adapters.

A registration names the platform's adapter: `@kindgi/adapter-model-openai-compat` is
called as OpenAI-compatible chat completions at `adapter_config.baseURL`, and
`@kindgi/adapter-model-anthropic` as Anthropic Messages; the key is read from the
environment variable `secret_ref.name` when the provider is called. Other adapters (Gemini,
Bedrock, Azure) are a deployed runtime's, and refused at registration.
"""

from __future__ import annotations

from collections.abc import Mapping

from kindgi_dev.domain.json import JSON
from kindgi_dev.runtime.providers import HttpProvider, anthropic, openai
from kindgi_dev.runtime.providers.base import ModelUnavailable

ADAPTERS = {
    "@kindgi/adapter-model-openai-compat": openai,
    "@kindgi/adapter-model-anthropic": anthropic,
}
"""The platform's adapters kindgi dev speaks, and the module of the API each one calls."""
CONFIG_KEYS = {"baseURL": str, "api": str, "timeoutMs": float}
OPENAI_APIS = ("responses", "chat-completions")


def problems(
    adapter_id: str, adapter_config: Mapping[str, JSON] | None, default_model: str | None,
    model_names: list[str],
) -> list[tuple[str, str]]:  # fmt: skip
    """What keeps kindgi dev from calling this registration: (JSON pointer, why) each."""
    if adapter_id not in ADAPTERS:
        known = ", ".join(ADAPTERS)
        return [("/adapter_id", f"kindgi dev has no adapter {adapter_id}: it calls {known}.")]
    found = []
    for key, value in (adapter_config or {}).items():
        kind = CONFIG_KEYS.get(key)
        if kind is None:
            takes = ", ".join(CONFIG_KEYS)
            found.append((f"/adapter_config/{key}", f"{adapter_id} takes {takes}, not {key}."))
        elif kind is str and not (isinstance(value, str) and value):
            found.append((f"/adapter_config/{key}", f"adapter_config.{key} must be a string."))
        elif kind is float and (isinstance(value, bool) or not isinstance(value, int | float)):
            found.append((f"/adapter_config/{key}", f"adapter_config.{key} must be a number."))
    api = (adapter_config or {}).get("api")
    if isinstance(api, str) and api not in OPENAI_APIS:
        message = f"adapter_config.api must be one of {', '.join(OPENAI_APIS)}."
        found.append(("/adapter_config/api", message))
    if default_model is not None and default_model not in model_names:
        found.append(("/metadata/defaultModel", f"{default_model} is not one of its models."))
    return found


def http_provider(
    provider_id: str,
    adapter_id: str,
    metadata: Mapping[str, JSON],
    secret_ref: Mapping[str, str] | None,
    adapter_config: Mapping[str, JSON] | None,
    env: Mapping[str, str],
) -> HttpProvider:
    """The provider a registration stands for, its key read from `env` now: one with a
    `secret_ref` is usable only once that key is set, one without always (a local server)."""
    module = ADAPTERS.get(adapter_id)
    if module is None:
        raise ModelUnavailable(f"Provider {provider_id}'s adapter {adapter_id} isn't kindgi dev's.")
    config = adapter_config or {}
    models = metadata.get("models")
    listed = models if isinstance(models, list) else []
    names = [str(m["name"]) for m in listed if isinstance(m, dict)]
    key_env = secret_ref["name"] if secret_ref else ""
    timeout_ms = config.get("timeoutMs")
    base_url = str(config.get("baseURL") or module.DEFAULT_BASE_URL)
    return HttpProvider(
        id=provider_id,
        base_url=base_url,
        default_base_url="" if secret_ref is None else base_url,
        api_key=(env.get(key_env) or None) if key_env else None,
        key_env=key_env or "(no key)",
        model=str(metadata.get("defaultModel") or (names[0] if names else module.DEFAULT_MODEL)),
        timeout_s=float(timeout_ms) / 1000 if isinstance(timeout_ms, int | float) else 60.0,
        protocol=module.PROVIDER_ID,
    )
