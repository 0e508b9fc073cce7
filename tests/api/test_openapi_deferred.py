"""The API's models are built at their first use (pydantic's `defer_build`), not at
import, and `/openapi.json` is the very same document either way."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import sys
from pydantic import BaseModel
from kindgi_dev.api import wire

if sys.argv[1] == "eager":
    for model in (wire.WireModel, wire.OpenModel):
        model.model_config["defer_build"] = False
from kindgi_dev.api import app as api
from kindgi_dev.api import openapi
from kindgi_dev.api.responses import dumps

declared = api.endpoints()
models = {m for e in declared for m in (e.body, e.query, e.response) if m is not None}
models = {m for m in models if issubclass(m, wire.WireModel)}
built = sum(1 for m in models if m.__pydantic_complete__)
print(len(models), built, file=sys.stderr)
sys.stdout.buffer.write(dumps(openapi.document(declared)))
"""


def _document(mode: str) -> tuple[bytes, list[int]]:
    done = subprocess.run([sys.executable, "-c", SCRIPT, mode], capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    counts = [int(word) for word in done.stderr.decode().split()[-2:]]
    return done.stdout, counts


def test_models_are_built_at_first_use_and_the_document_is_the_same_as_built_at_import() -> None:
    deferred, (models, built_deferred) = _document("deferred")
    eager, (same_models, built_eager) = _document("eager")
    assert models == same_models > 150
    assert built_deferred == 0
    assert built_eager > models * 3 // 4  # the lists' pages keep `WirePage`'s own config
    assert deferred == eager
    assert deferred.startswith(b'{"openapi":"3.1.0"')
