"""The features an agent can require (`needs: [{feature}]`), what each means, and which of the
providers' models have it: `GET /v1/capabilities` and a provider's capabilities."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

FEATURES: dict[str, str] = {
    "structured-output": "Answers with JSON that matches a schema (a typed answer).",
    "vision": "Reads images given in the input.",
    "audio-input": "Listens to audio given in the input.",
    "audio-output": "Answers with audio.",
    "tool-use": "Calls tools: asks for a tool call and reads its result.",
    "parallel-tool-use": "Asks for several tool calls in one step.",
    "thinking": "Thinks before it answers, as its provider allows.",
    "long-context": "Takes long inputs: a context window of more than 200,000 tokens.",
    "code-execution": "Runs code its provider hosts.",
    "web-search": "Searches the web through its provider.",
    "file-search": "Searches files its provider keeps.",
    "streaming": "Streams its answer as it writes it.",
    "batch": "Answers in its provider's batch mode, later and for less.",
}
"""The framework's features, as the client 0.1.10 names them, each in a sentence."""


@dataclass(frozen=True)
class ProviderModels:
    """A provider and, per model, the features it has."""

    provider_id: str
    models: Sequence[tuple[str, Sequence[str]]]


@dataclass(frozen=True)
class CapabilityProvider:
    """A provider with models that have a feature, and those models."""

    provider_id: str
    models: list[str]


@dataclass(frozen=True)
class Capability:
    """One feature: its id (`feature:<feature>`), what it means, the models that have it."""

    id: str
    feature: str
    description: str
    providers: list[CapabilityProvider]
    kind: str = "llm-inference"


def capability_id(feature: str) -> str:
    """The id of a feature's capability."""
    return f"feature:{feature}"


def catalog(providers: Iterable[ProviderModels], prefix: str = "") -> list[Capability]:
    """Every feature starting with `prefix`, in the catalog's order, with its providers."""
    listed = list(providers)
    return [
        Capability(capability_id(feature), feature, description, _having(listed, feature))
        for feature, description in FEATURES.items()
        if feature.startswith(prefix)
    ]


def of_provider(provider: ProviderModels) -> list[Capability]:
    """The features some model of `provider` has, each naming only that provider."""
    return [c for c in catalog([provider]) if c.providers]


def _having(providers: Sequence[ProviderModels], feature: str) -> list[CapabilityProvider]:
    found = []
    for provider in providers:
        models = [name for name, features in provider.models if feature in features]
        if models:
            found.append(CapabilityProvider(provider.provider_id, models))
    return found
