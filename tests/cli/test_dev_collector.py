"""`kindgi dev` pauses the cycle collector only while it imports and builds the app."""

from __future__ import annotations

import gc

from kindgi_dev.cli.dev import collector_paused


def test_the_collector_is_off_while_the_app_is_built_and_on_again_after() -> None:
    assert gc.isenabled()
    with collector_paused():
        inside = gc.isenabled()
    assert not inside
    assert gc.isenabled()
