"""Model adapters and how an agent gets one: its preferred provider, else the configured default.

Configuration comes from the environment (`OPENAI_API_KEY`, `OPENAI_BASE_URL`,
`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`) and the pack's `[tool.kindgi-dev.providers]`:

    [tool.kindgi-dev.providers]
    default = "openai"                      # or "anthropic", "function"
    openai = { base_url = "http://localhost:11434/v1", model = "llama3.1" }
    anthropic = { api_key_env = "MY_ANTHROPIC_KEY", model = "claude-sonnet-4-5" }

An environment base URL wins over the pyproject's; `api_key_env` names the variable that
holds the key (never the key itself, so the pyproject can be committed).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Protocol

from kindgi_dev.domain.errors import Unprocessable
from kindgi_dev.domain.json import JSON
from kindgi_dev.runtime.providers import anthropic, openai
from kindgi_dev.runtime.providers.anthropic import AnthropicAdapter
from kindgi_dev.runtime.providers.base import ModelAdapter, ModelError, ModelUnavailable
from kindgi_dev.runtime.providers.function import PROVIDER_ID as FUNCTION
from kindgi_dev.runtime.providers.function import FunctionModels, ModelsFileError
from kindgi_dev.runtime.providers.openai import OpenAIAdapter

if TYPE_CHECKING:
    import httpx

__all__ = [
    "FunctionModels",
    "HttpProvider",
    "ModelAdapter",
    "ModelError",
    "ModelUnavailable",
    "ModelsFileError",
    "ProviderConfig",
    "ProviderConfigInvalid",
    "select_adapter",
]

HTTP_PROVIDERS = (openai.PROVIDER_ID, anthropic.PROVIDER_ID)
KNOWN = (*HTTP_PROVIDERS, FUNCTION)


class ProviderConfigInvalid(Unprocessable):
    """A provider kindgi dev can't call: the pack's `[tool.kindgi-dev.providers]` is not
    valid, or a registration (`POST /v1/providers`) names what no adapter takes."""

    code: ClassVar[str] = "provider-config-invalid"


@dataclass(frozen=True)
class HttpProvider:
    """Where one HTTP provider answers, with which key and model."""

    id: str
    base_url: str
    default_base_url: str
    api_key: str | None
    key_env: str
    model: str
    timeout_s: float = 60.0
    protocol: str = ""
    """Which API it speaks (`openai` or `anthropic`): its id unless it was registered under
    another one (`POST /v1/providers`)."""

    @property
    def has_key(self) -> bool:
        """Whether its API key is set."""
        return bool(self.api_key)

    @property
    def usable(self) -> bool:
        """A key is set, or it points at another server (a local one may need no key)."""
        return self.has_key or self.base_url.rstrip("/") != self.default_base_url

    def adapter(self, model: str | None, client: httpx.AsyncClient | None) -> ModelAdapter:
        """An adapter for `model` (its configured model when None)."""
        kind = (
            OpenAIAdapter if (self.protocol or self.id) == openai.PROVIDER_ID else AnthropicAdapter
        )
        return kind(
            model=model or self.model,
            api_key=self.api_key,
            base_url=self.base_url,
            timeout_s=self.timeout_s,
            client=client,
            provider_id=self.id,
        )


@dataclass(frozen=True)
class ProviderConfig:
    """The HTTP providers kindgi dev may call, and which one answers by default."""

    openai: HttpProvider
    anthropic: HttpProvider
    default: str | None = None
    registered: tuple[HttpProvider, ...] = ()
    """Providers registered over the API: used like these two, and before them by id."""

    @classmethod
    def from_env_and_pyproject(
        cls, env: Mapping[str, str], pyproject_tool_section: Mapping[str, object]
    ) -> ProviderConfig:
        """Read the environment and the `[tool.kindgi-dev]` table (or the whole `[tool]` one)."""
        section = _table(
            pyproject_tool_section.get("kindgi-dev", pyproject_tool_section), "[tool.kindgi-dev]"
        )
        providers = _table(section.get("providers", {}), "[tool.kindgi-dev.providers]")
        default = providers.get("default")
        if default is not None and (not isinstance(default, str) or default not in KNOWN):
            raise ProviderConfigInvalid(
                f"[tool.kindgi-dev.providers] default = {default!r} is not one of"
                f" {', '.join(KNOWN)}."
            )
        return cls(
            openai=_http_provider(openai, "OPENAI", env, providers),
            anthropic=_http_provider(anthropic, "ANTHROPIC", env, providers),
            default=default,
        )

    def http(self, provider_id: str) -> HttpProvider | None:
        """The HTTP provider named `provider_id`, if it is one (a registered one first)."""
        return {p.id: p for p in (self.openai, self.anthropic, *self.registered)}.get(provider_id)


def _table(value: object, where: str) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        raise ProviderConfigInvalid(f"{where} must be a table.")
    return {str(key): item for key, item in value.items()}


class AdapterModule(Protocol):
    """What an HTTP adapter's module names: its provider id and defaults."""

    PROVIDER_ID: str
    DEFAULT_BASE_URL: str
    DEFAULT_MODEL: str


def _text(value: object, where: str, name: str) -> str:
    """A setting that must be a non-empty string."""
    if not isinstance(value, str) or not value:
        raise ProviderConfigInvalid(f"{where}: {name} must be a non-empty string.")
    return value


def _http_provider(
    module: AdapterModule, prefix: str, env: Mapping[str, str], providers: Mapping[str, object]
) -> HttpProvider:
    """One provider from its pyproject entry and the environment (which wins for the URL)."""
    where = f"[tool.kindgi-dev.providers] {module.PROVIDER_ID}"
    entry = _table(providers.get(module.PROVIDER_ID, {}), where)
    key_env = _text(entry.get("api_key_env", f"{prefix}_API_KEY"), where, "api_key_env")
    base_url = _text(
        env.get(f"{prefix}_BASE_URL") or entry.get("base_url") or module.DEFAULT_BASE_URL,
        where,
        "base_url",
    )
    model = _text(entry.get("model", module.DEFAULT_MODEL), where, "model")
    timeout_s = entry.get("timeout_s", 60.0)
    if not isinstance(timeout_s, int | float) or timeout_s <= 0:
        raise ProviderConfigInvalid(f"{where}: timeout_s must be a positive number.")
    return HttpProvider(
        id=module.PROVIDER_ID,
        base_url=base_url,
        default_base_url=module.DEFAULT_BASE_URL,
        api_key=env.get(key_env) or None,
        key_env=key_env,
        model=model,
        timeout_s=float(timeout_s),
    )


def select_adapter(
    agent: Mapping[str, JSON],
    config: ProviderConfig,
    functions: FunctionModels | None,
    *,
    client: Callable[[], httpx.AsyncClient] | None = None,
) -> ModelAdapter:
    """The adapter that answers `agent`: its preferred provider when usable, else the default.
    `client` gives the shared HTTP client, asked for only when an HTTP provider answers (a
    client costs its TLS context: 3 MB and 40 ms that a function model never needs)."""
    preferred = agent.get("preferredProvider")
    if isinstance(preferred, str) and _unusable(preferred, config, functions) is None:
        return _adapter(preferred, agent.get("preferredModel"), config, functions, client)
    return _adapter(_default(agent, config, functions), None, config, functions, client)


def _adapter(
    provider_id: str,
    model: JSON,
    config: ProviderConfig,
    functions: FunctionModels | None,
    client: Callable[[], httpx.AsyncClient] | None,
) -> ModelAdapter:
    name = model if isinstance(model, str) and model else None
    http = config.http(provider_id)
    if http is not None:
        return http.adapter(name, None if client is None else client())
    assert functions is not None
    return functions.adapter(name)


def _default(
    agent: Mapping[str, JSON], config: ProviderConfig, functions: FunctionModels | None
) -> str:
    """The configured default provider, or the first one that has what it needs."""
    agent_id = agent.get("id", "this agent")
    if config.default is not None:
        problem = _unusable(config.default, config, functions)
        if problem is not None:
            raise ModelUnavailable(
                f"No model can run {agent_id}: the default provider is {config.default}"
                f" ([tool.kindgi-dev.providers] default), but {problem}."
            )
        return config.default
    for candidate in (config.http(config.openai.id), config.http(config.anthropic.id)):
        if candidate is not None and candidate.has_key:
            return candidate.id
    for registered in config.registered:
        if registered.usable:
            return registered.id
    if functions is not None:
        return FUNCTION
    raise ModelUnavailable(
        f"No model can run {agent_id}: set OPENAI_API_KEY or ANTHROPIC_API_KEY, configure"
        " [tool.kindgi-dev.providers], or name a function models file with"
        ' [tool.kindgi-dev] models = "dev_models.py" (or kindgi dev --models FILE).'
    )


def _unusable(
    provider_id: str, config: ProviderConfig, functions: FunctionModels | None
) -> str | None:
    """Why `provider_id` cannot answer now, or None when it can."""
    http = config.http(provider_id)
    if http is not None:
        return None if http.usable else f"{http.key_env} is not set"
    if provider_id == FUNCTION:
        return None if functions is not None else "no function models file is loaded"
    return f"{provider_id!r} is not a provider kindgi dev knows ({', '.join(KNOWN)})"
