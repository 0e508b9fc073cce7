"""What makes an answer reusable (`reuse: true`): the same agent content on the same frozen
case, read the same way, at the same repetition; and a judging verdict the same judge gave
on the same part and texts. Hashes only: pure, no I/O."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict

from .comparison import ReplayCase
from .expectations import Answer
from .json import JSON, JSONObject


def _hash(value: JSON) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def content_hash(manifest: JSONObject, model: str) -> str:
    """The agent's content: its manifest and what answers for it (`model`: a function
    model's source, or a provider's id and model name)."""
    return _hash({"manifest": manifest, "model": model})


def case_hash(case: ReplayCase, reads: str) -> str:
    """Everything a replay of the case reads, and how its tools are read: a case changed in
    any of these (or its corrections, which the judged answers rest on) reuses nothing."""
    return _hash({"case": asdict(case), "reads": reads})


def asked_hash(expected: Answer, recorded: str | None, answer: str | None) -> str:
    """A judging model's question: the case's answer part and both texts it compares."""
    return _hash({"expected": asdict(expected), "recorded": recorded, "answer": answer})
