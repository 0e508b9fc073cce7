"""A body is parsed once (#29 point 2): validated from its own bytes, not written out again
as JSON first, and its numbers walked only when one of them could be out of bounds.

The walk is skipped only when no number outside the body's strings has an exponent or 19
digits in a row; every number at the 64-bit bounds is still judged as before.
"""

from __future__ import annotations

import json

import pytest

from kindgi_dev.api import limits, wire
from kindgi_dev.api.corrections import CreateCorrectionBody
from kindgi_dev.domain.errors import BadInput

BOUNDS = [
    ("9223372036854775807", None),
    ("-9223372036854775808", None),
    ("9223372036854775808", "x: integers must fit in 64 bits."),
    ("-9223372036854775809", "x: integers must fit in 64 bits."),
    ("123456789012345678.5", None),
    ("99999999999999999999.0", "x: numbers must fit in 64 bits."),
    ("1e2", None),
    ("1e19", "x: numbers must fit in 64 bits."),
    ("-2E400", "x: numbers must be finite."),
    ('"1e999 and 99999999999999999999"', None),
]


@pytest.mark.parametrize(("number", "refusal"), BOUNDS)
def test_numbers_at_the_bounds_are_judged_as_the_walk_judges_them(
    number: str, refusal: str | None
) -> None:
    raw = f'{{"x": {number}, "y": [1, 2.5, true, false, null]}}'.encode()
    if refusal is None:
        assert limits.load(raw) == json.loads(raw)
        return
    with pytest.raises(BadInput) as refused:
        limits.load(raw)
    assert refused.value.message == refusal


def test_a_body_is_validated_from_its_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    def written_again(value: object) -> str:
        raise AssertionError("the body was written out as JSON again")

    monkeypatch.setattr(wire.json, "dumps", written_again)
    raw = (
        b'{"runId":"r-1","participantId":"p-1","items":[{"key":"kb-101",'
        b'"pointer":"/output/articles/0","rank":0,"verdict":"right"}]}'
    )
    body = wire.parse_body(CreateCorrectionBody, raw)
    assert (body.run_id, body.participant_id, body.items[0].key) == ("r-1", "p-1", "kb-101")
    with pytest.raises(BadInput) as refused:
        wire.parse_body(CreateCorrectionBody, raw.replace(b'"rank":0', b'"rank":false'))
    assert refused.value.details["issues"][0]["path"] == "items/0/rank"
