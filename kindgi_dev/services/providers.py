"""The providers that can answer here: the pack's function models, the configured HTTP ones,
and those registered over the API (`POST /v1/providers`), which are used like the configured
ones and, under the same id, in their place."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ..domain.capabilities import ProviderModels
from ..domain.errors import Conflict, NotFound
from ..domain.json import JSONObject
from ..domain.time import now_iso
from ..runtime.providers import HttpProvider, ProviderConfigInvalid
from ..runtime.providers.function import PROVIDER_ID as FUNCTION_PROVIDER
from ..runtime.providers.function import ModelsFileError
from ..runtime.providers.registered import problems
from ..store import providers as store
from ..store.providers import RegisteredProvider
from .context import Context
from .models import function_models, provider_config

KeyState = Literal["set", "not-needed", "missing"]
CONFIGURED_FEATURES = ("tool-use", "structured-output")
"""What kindgi dev's own adapters do with every model: tool calls and typed answers."""
CONFIGURED_ADAPTERS = {
    FUNCTION_PROVIDER: "kindgi-dev/function-models",
    "openai": "@kindgi/adapter-model-openai-compat",
    "anthropic": "@kindgi/adapter-model-anthropic",
}


@dataclass(frozen=True)
class Provider:
    """One provider kindgi dev may call, its models, whether its key is set, and its
    registration when it was registered over the API."""

    id: str
    models: tuple[str, ...]
    default_model: str
    key: KeyState
    registration: RegisteredProvider | None = None

    def features(self) -> ProviderModels:
        """Its models and the features each has."""
        if self.registration is None:
            return ProviderModels(self.id, [(name, CONFIGURED_FEATURES) for name in self.models])
        models = self.registration.models
        return ProviderModels(self.id, [(str(m["name"]), _features(m)) for m in models])


def _features(model: JSONObject) -> list[str]:
    """The features a registered model lists."""
    found = model.get("features")
    return [str(f) for f in found] if isinstance(found, list) else []


@dataclass(frozen=True)
class ProviderCheck:
    """What would keep the runtime from calling a provider, each at its JSON pointer."""

    provider_id: str
    adapter_id: str
    checked: bool
    issues: list[dict[str, str]]
    secret_ref: dict[str, str] | None = None


def configured(ctx: Context) -> list[Provider]:
    """Function models first (when the file has any), then each usable configured HTTP
    provider, then the registered ones; a registered id takes its configured namesake's place."""
    found: list[Provider] = []
    config = provider_config(ctx)
    try:
        functions = function_models(ctx)
    except ModelsFileError:
        functions = None
    if functions is not None:
        names = tuple(functions.names)
        found.append(
            Provider(FUNCTION_PROVIDER, names, functions.default or names[0], "not-needed")
        )
    registrations = {r.id: r for r in store.live(ctx.db, ctx.tenant_id)}
    for http in (config.openai, config.anthropic):
        if http.usable and http.id not in registrations:
            found.append(Provider(http.id, (http.model,), http.model, _key(http)))
    for registration in registrations.values():
        called = config.http(registration.id)
        names = tuple(str(m["name"]) for m in registration.models)
        key: KeyState = "not-needed" if called is None else _key(called)
        default = called.model if called is not None else names[0]
        found.append(Provider(registration.id, names, default, key, registration))
    return found


def _key(http: HttpProvider) -> KeyState:
    """`set`, `not-needed` (a server that takes none), or `missing` (its key isn't set)."""
    if http.has_key:
        return "set"
    return "not-needed" if http.usable else "missing"


def get(ctx: Context, provider_id: str) -> Provider:
    """One provider by id; 404 `provider-not-found`."""
    for provider in configured(ctx):
        if provider.id == provider_id:
            return provider
    raise NotFound("provider", provider_id)


def register(
    ctx: Context,
    metadata: dict[str, Any],
    adapter_id: str,
    secret_ref: dict[str, str] | None,
    adapter_config: dict[str, Any] | None,
) -> str:
    """Register a provider; 422 `provider-config-invalid` when kindgi dev can't call it, 409
    when its id is the function models' or registered already."""
    provider_id = str(metadata["id"])
    names = [str(m["name"]) for m in metadata.get("models", [])]
    found = problems(adapter_id, adapter_config, metadata.get("defaultModel"), names)
    if found:
        issues = [{"path": path, "message": message} for path, message in found]
        raise ProviderConfigInvalid(
            f"Provider {provider_id} ({adapter_id}): {found[0][1]}", issues=issues
        )
    if provider_id == FUNCTION_PROVIDER:
        raise Conflict(
            f"{FUNCTION_PROVIDER} is the pack's function models: register under another id.",
            code="provider-id-reserved",
        )
    registration = RegisteredProvider(
        provider_id, adapter_id, metadata, secret_ref, adapter_config, now_iso()
    )
    if not store.insert(ctx.db, ctx.tenant_id, registration):
        raise Conflict(
            f"A provider {provider_id} is registered: unregister it first.",
            code="provider-already-registered",
        ) from None
    return provider_id


def unregister(ctx: Context, provider_id: str) -> None:
    """Tombstone a registered provider; 409 for one the pack or the environment configures."""
    if store.unregister(ctx.db, ctx.tenant_id, provider_id, now_iso()):
        return
    get(ctx, provider_id)
    raise Conflict(
        f"{provider_id} isn't registered over the API: it comes from the pack's models file,"
        " [tool.kindgi-dev.providers] or the environment, so change it there.",
        code="provider-configured",
    )


def check(ctx: Context, provider_id: str) -> ProviderCheck:
    """The registration's problems, and a key that isn't in the environment."""
    provider = get(ctx, provider_id)
    registration = provider.registration
    if registration is None:
        return ProviderCheck(provider.id, CONFIGURED_ADAPTERS.get(provider.id, ""), True, [])
    names = [str(m["name"]) for m in registration.models]
    found = problems(
        registration.adapter_id, registration.adapter_config, registration.default_model, names
    )
    issues = [{"path": path, "message": message} for path, message in found]
    ref = registration.secret_ref
    if ref is not None and provider.key == "missing":
        issues.append(
            {
                "path": "/secret_ref",
                "message": f"{ref['name']} is not set in kindgi dev's environment.",
            }
        )
    return ProviderCheck(provider.id, registration.adapter_id, True, issues, ref)
