"""`/v1/providers`: which providers answer here, in the platform's `ProviderMetadata` shape;
registering one over the API, reading, checking and unregistering it."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, WithJsonSchema, field_validator

from ..domain.bounds import MAX_NUMBER
from ..domain.capabilities import FEATURES, of_provider
from ..domain.json import JSON, JSONObject
from ..services import providers
from .capabilities import CapabilityDescriptor, capability
from .endpoint import Call, Endpoint, NoBody, NoQuery
from .wire import WHOLE, JsonObject, Number, OpenModel, WireModel, WirePage

JSON_VALUE = "#/components/schemas/JsonValue"
Price = Annotated[int | float, Field(ge=0), WithJsonSchema({"type": "number", "minimum": 0})]
"""USD per 1k tokens, never below 0, as the schema says (its 64-bit maximum, as every
body number's, comes from `limits` and the document)."""

Feature = Annotated[str, WithJsonSchema({"type": "string", "enum": list(FEATURES)})]
"""A model's feature, one of the platform's names (the schema lists them, as the server
refuses any other)."""

CONTEXT_WINDOW = 128_000
"""What a configured model's `contextWindow` says: kindgi dev doesn't know it and never
truncates by it."""


OPEN = ConfigDict(json_schema_extra={"additionalProperties": {"$ref": JSON_VALUE}})
"""An open part of a registration: fields kindgi dev doesn't read pass, as JSON values."""


class ProviderCost(OpenModel):
    """USD per 1k tokens (a configured provider's are 0: kindgi dev doesn't know its prices)."""

    model_config = OPEN

    prompt_usd_per1k_tokens: Price = Field(alias="promptUsdPer1kTokens")
    completion_usd_per1k_tokens: Price = Field(alias="completionUsdPer1kTokens")


class ModelInfo(OpenModel):
    """One model of a provider."""

    name: str = Field(min_length=1, max_length=200)
    model_config = OPEN

    context_window: Annotated[int, Field(ge=1, le=MAX_NUMBER), WHOLE]
    features: list[Feature] = Field(max_length=len(FEATURES))
    cost: ProviderCost

    @field_validator("features")
    @classmethod
    def _known(cls, features: list[str]) -> list[str]:
        unknown = [f for f in features if f not in FEATURES]
        if unknown:
            raise ValueError(f"{unknown[0]} is not a feature: {', '.join(FEATURES)}")
        return features


class ProviderMetadata(OpenModel):
    """A provider: its models, default model, and in `labels.key` whether its key is set."""

    id: str = Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    region: str = Field(min_length=1, max_length=200)
    models: list[ModelInfo] = Field(min_length=1, max_length=200)
    default_model: str | None = None
    model_config = OPEN

    labels: JsonObject | None = None

    @field_validator("models")
    @classmethod
    def _unique(cls, models: list[ModelInfo]) -> list[ModelInfo]:
        names = [m.name for m in models]
        twice = next((name for name in names if names.count(name) > 1), None)
        if twice is not None:
            raise ValueError(f"model {twice} is given twice: each model's name is unique")
        return models


class SecretRef(WireModel):
    """The secret that holds the key: in kindgi dev, the environment variable `name`."""

    env_name: str = Field(min_length=1, max_length=200)
    name: str = Field(min_length=1, max_length=200)


class RegisterProviderBody(WireModel):
    """A registration: the provider's metadata, the adapter that calls it, where its key is."""

    metadata: ProviderMetadata
    adapter_id: str = Field(alias="adapter_id", min_length=1, max_length=200)
    secret_ref: SecretRef | None = Field(default=None, alias="secret_ref")
    adapter_config: dict[str, str | bool | Number] | None = Field(
        default=None, alias="adapter_config"
    )
    send_traceparent: bool | None = Field(default=None, alias="send_traceparent")


class ProviderQuery(WireModel):
    """`feature` keeps providers with a model that has it; every provider fits one page."""

    limit: int | None = None
    cursor: str | None = None
    feature: str | None = None


class ProviderPage(WirePage[ProviderMetadata]):
    """Every provider, on one page."""


class ProviderResult(WireModel):
    """A registration's id."""

    provider_id: str


class UnregisterProviderResult(WireModel):
    """A provider unregistered."""

    provider_id: str
    unregistered: Literal[True]


class ProviderCapabilities(WireModel):
    """The capabilities a provider's models have."""

    data: list[CapabilityDescriptor]


class CheckIssue(WireModel):
    """One problem, at its JSON pointer into the registration."""

    path: str
    message: str


class ProviderCheckAnswer(WireModel):
    """What would keep kindgi dev from calling a provider."""

    provider_id: str
    adapter_id: str
    checked: bool
    issues: list[CheckIssue]
    secret_ref: SecretRef | None = None


def metadata(provider: providers.Provider) -> JSONObject:
    """A provider's wire metadata: as registered, or made for a configured one."""
    if provider.registration is not None:
        given = dict(provider.registration.metadata)
        labels = given.get("labels")
        return {
            **given,
            "labels": {**(labels if isinstance(labels, dict) else {}), "key": provider.key},
        }
    free: JSONObject = {"promptUsdPer1kTokens": 0, "completionUsdPer1kTokens": 0}
    return {
        "id": provider.id,
        "region": "local",
        "models": [
            {
                "name": name,
                "contextWindow": CONTEXT_WINDOW,
                "features": list(providers.CONFIGURED_FEATURES),
                "cost": free,
            }
            for name in provider.models
        ],
        "defaultModel": provider.default_model,
        "labels": {"key": provider.key},
    }


async def list_providers(call: Call[NoBody, ProviderQuery]) -> JSONObject:
    wanted = call.query.feature
    found: list[JSON] = [
        metadata(p)
        for p in providers.configured(call.ctx)
        if wanted is None or any(wanted in features for _, features in p.features().models)
    ]
    return {"data": found, "has_more": False}


async def register(call: Call[RegisterProviderBody, NoQuery]) -> dict[str, str]:
    body = call.body
    provider_id = providers.register(
        call.ctx,
        body.metadata.model_dump(by_alias=True, exclude_unset=True, mode="json"),
        body.adapter_id,
        None if body.secret_ref is None else body.secret_ref.model_dump(by_alias=True),
        body.adapter_config,
    )
    return {"provider_id": provider_id}


async def get(call: Call[NoBody, NoQuery]) -> JSONObject:
    return metadata(providers.get(call.ctx, call.path["providerId"]))


async def capabilities(call: Call[NoBody, NoQuery]) -> dict[str, object]:
    provider = providers.get(call.ctx, call.path["providerId"])
    return {"data": [capability(c) for c in of_provider(provider.features())]}


async def check(call: Call[NoBody, NoQuery]) -> providers.ProviderCheck:
    return providers.check(call.ctx, call.path["providerId"])


async def unregister(call: Call[NoBody, NoQuery]) -> JSONObject:
    provider_id = call.path["providerId"]
    providers.unregister(call.ctx, provider_id)
    return {"provider_id": provider_id, "unregistered": True}


ENDPOINTS = [
    Endpoint(
        "GET",
        "/v1/providers",
        "providers.list",
        list_providers,
        "The providers that answer here: function models, each usable HTTP provider, and"
        " those registered over the API.",
        query=ProviderQuery,
        response=ProviderPage,
        errors=(400, 401),
    ),
    Endpoint(
        "POST",
        "/v1/providers",
        "providers.register",
        register,
        "Register a model provider that kindgi dev calls like a configured one.",
        body=RegisterProviderBody,
        response=ProviderResult,
        status=201,
        errors=(400, 401, 409, 413, 422),
    ),
    Endpoint(
        "GET",
        "/v1/providers/{providerId}",
        "providers.get",
        get,
        "One provider.",
        response=ProviderMetadata,
        errors=(401, 404),
    ),
    Endpoint(
        "GET",
        "/v1/providers/{providerId}/capabilities",
        "providers.capabilities",
        capabilities,
        "The capabilities a provider's models have.",
        response=ProviderCapabilities,
        errors=(401, 404),
    ),
    Endpoint(
        "GET",
        "/v1/providers/{providerId}/check",
        "providers.check",
        check,
        "What would keep kindgi dev from calling a provider.",
        response=ProviderCheckAnswer,
        errors=(401, 404),
    ),
    Endpoint(
        "POST",
        "/v1/providers/{providerId}/unregister",
        "providers.unregister",
        unregister,
        "Unregister a provider registered over the API.",
        response=UnregisterProviderResult,
        errors=(401, 404, 409),
    ),
]
