"""`GET /v1/providers`: which providers answer here, in the platform's `ProviderMetadata` shape."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ..services import providers
from .routing import Call, Endpoint
from .wire import WireModel

CONTEXT_WINDOW = 128_000
"""What a model's `contextWindow` says: kindgi dev doesn't know it and never truncates by it."""
FEATURES = ["tool-use", "structured-output"]


class ProviderCost(WireModel):
    """Cost per 1k tokens; kindgi dev doesn't price calls, so 0."""

    prompt_usd_per1k_tokens: float = Field(alias="promptUsdPer1kTokens")
    completion_usd_per1k_tokens: float = Field(alias="completionUsdPer1kTokens")


class ModelInfo(WireModel):
    """One model of a provider."""

    name: str
    context_window: int
    features: list[str]
    cost: ProviderCost


class ProviderMetadata(WireModel):
    """A provider: its models, default model, and in `labels.key` whether its key is set."""

    id: str
    region: str
    models: list[ModelInfo]
    default_model: str
    labels: dict[str, str]


class ProviderPage(WireModel):
    """Every provider, on one page."""

    data: list[ProviderMetadata]
    has_more: bool


def metadata(provider: providers.Provider) -> ProviderMetadata:
    free = ProviderCost(promptUsdPer1kTokens=0, completionUsdPer1kTokens=0)
    return ProviderMetadata(
        id=provider.id,
        region="local",
        models=[
            ModelInfo(name=name, context_window=CONTEXT_WINDOW, features=FEATURES, cost=free)
            for name in provider.models
        ],
        default_model=provider.default_model,
        labels={"key": provider.key},
    )


async def list_providers(call: Call[Any, Any]) -> ProviderPage:
    return ProviderPage(data=[metadata(p) for p in providers.configured(call.ctx)], has_more=False)


ENDPOINTS = [
    Endpoint(
        "GET",
        "/v1/providers",
        "providers.list",
        list_providers,
        "The providers that answer here: function models, and each usable HTTP provider.",
        response=ProviderPage,
        errors=(401,),
    ),
]
