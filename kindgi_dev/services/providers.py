"""The providers that can answer here: the pack's function models and the usable HTTP ones."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..runtime.providers.function import PROVIDER_ID as FUNCTION_PROVIDER
from ..runtime.providers.function import ModelsFileError
from .context import Context
from .models import function_models, provider_config

KeyState = Literal["set", "not-needed"]


@dataclass(frozen=True)
class Provider:
    """One provider kindgi dev may call, its models, and whether its key is set."""

    id: str
    models: tuple[str, ...]
    default_model: str
    key: KeyState


def configured(ctx: Context) -> list[Provider]:
    """Function models first (when the file has any), then each usable HTTP provider."""
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
    for http in (config.openai, config.anthropic):
        if http.usable:
            key: KeyState = "set" if http.has_key else "not-needed"
            found.append(Provider(http.id, (http.model,), http.model, key))
    return found
