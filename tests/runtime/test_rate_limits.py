"""Rate limits: a 429 is sent again after the wait the provider asks for, and no more than a
set number of requests are in flight to one model server at once."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from itertools import pairwise
from typing import Any

import httpx
import pytest
from stubs.anthropic_stub import AnthropicStub
from stubs.openai_stub import OpenAIStub
from stubs.serve import ScriptedServer

from kindgi_dev.models import Message, Turn
from kindgi_dev.runtime.providers import ModelError, base
from kindgi_dev.runtime.providers.anthropic import AnthropicAdapter
from kindgi_dev.runtime.providers.openai import OpenAIAdapter

LIMITED = {"error": {"message": "Rate limit reached for requests", "type": "rate_limit"}}
TURN = Turn("acme.a", "1.0.0", "Be brief.", (Message("user", "Hi"),), ())


def gaps(stub: ScriptedServer) -> list[float]:
    """Seconds between one request reaching the stub and the next."""
    times = [request.at for request in stub.requests]
    return [later - earlier for earlier, later in pairwise(times)]


def test_openai_waits_as_retry_after_ms_asks_then_answers(openai_stub: OpenAIStub) -> None:
    openai_stub.queue(LIMITED, status=429, headers={"retry-after-ms": "300"})
    openai_stub.queue_text("Hello.")
    adapter = OpenAIAdapter(api_key="sk-test", base_url=openai_stub.base_url)
    reply = asyncio.run(adapter.next_step(TURN))
    assert reply.text == "Hello."
    assert len(openai_stub.requests) == 2
    assert gaps(openai_stub)[0] >= 0.3


def test_anthropic_waits_as_retry_after_seconds_ask_then_answers(
    anthropic_stub: AnthropicStub,
) -> None:
    anthropic_stub.queue(LIMITED, status=429, headers={"retry-after": "1"})
    anthropic_stub.queue_text("Hello.")
    adapter = AnthropicAdapter(api_key="sk-ant-test", base_url=anthropic_stub.url)
    reply = asyncio.run(adapter.next_step(TURN))
    assert reply.text == "Hello."
    assert len(anthropic_stub.requests) == 2
    assert gaps(anthropic_stub)[0] >= 1.0


def test_a_provider_that_stays_limited_fails_the_call_with_its_words(
    openai_stub: OpenAIStub,
) -> None:
    for _ in range(base.RATE_LIMIT_RETRIES + 1):
        openai_stub.queue(LIMITED, status=429, headers={"retry-after-ms": "10"})
    openai_stub.queue_text("never asked for")
    adapter = OpenAIAdapter(api_key="sk-test", base_url=openai_stub.base_url)
    with pytest.raises(ModelError) as raised:
        asyncio.run(adapter.next_step(TURN))
    assert (raised.value.status, raised.value.message) == (429, "Rate limit reached for requests")
    assert len(openai_stub.requests) == base.RATE_LIMIT_RETRIES + 1


def test_a_wait_longer_than_a_minute_fails_at_once(anthropic_stub: AnthropicStub) -> None:
    anthropic_stub.queue(LIMITED, status=429, headers={"retry-after": "120"})
    adapter = AnthropicAdapter(api_key="sk-ant-test", base_url=anthropic_stub.url)
    with pytest.raises(ModelError, match="asked to wait 120 s") as raised:
        asyncio.run(adapter.next_step(TURN))
    assert raised.value.status == 429 and len(anthropic_stub.requests) == 1


@pytest.mark.parametrize(
    ("headers", "attempt", "seconds"),
    [
        ({"retry-after": "7"}, 0, 7.0),
        ({"retry-after-ms": "250", "retry-after": "7"}, 0, 0.25),
        ({}, 0, 0.5),
        ({}, 3, 4.0),
        ({"retry-after": "soon"}, 1, 1.0),
    ],
)
def test_the_wait_a_429_asks_for(headers: dict[str, str], attempt: int, seconds: float) -> None:
    assert base.retry_after(headers, attempt) == seconds


def test_a_retry_after_date_is_the_time_until_then() -> None:
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    assert 28 <= base.retry_after({"retry-after": later}, 0) <= 30


def test_requests_in_flight_to_one_server_are_capped(
    openai_stub: OpenAIStub, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(base, "IN_FLIGHT_PER_PROVIDER", 3)
    for _ in range(10):
        openai_stub.queue({"choices": [{"message": {"role": "assistant", "content": "Hi."}}]},
                          delay_s=0.1)  # fmt: skip

    async def ask_all() -> list[Any]:
        async with httpx.AsyncClient() as client:
            adapter = OpenAIAdapter(api_key="sk-test", base_url=openai_stub.base_url,
                                    client=client)  # fmt: skip
            return await asyncio.gather(*(adapter.next_step(TURN) for _ in range(10)))

    replies = asyncio.run(ask_all())
    assert [reply.text for reply in replies] == ["Hi."] * 10
    assert openai_stub.most_in_flight == 3
