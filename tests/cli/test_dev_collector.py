"""`kindgi dev` pauses the cycle collector only while it imports and builds the app, then
keeps what it built out of the collector's walks."""

from __future__ import annotations

import gc

from kindgi_dev.cli.dev import FULL_COLLECTION_EVERY, collector_paused, settle_collector


def test_the_collector_is_off_while_the_app_is_built_and_on_again_after() -> None:
    assert gc.isenabled()
    with collector_paused():
        inside = gc.isenabled()
    assert not inside
    assert gc.isenabled()


def test_what_start_built_is_frozen_and_full_collections_are_rarer() -> None:
    """A full collection holds the GIL while it walks every object it tracks: the app's
    objects, frozen, are no longer walked, and full collections come a tenth as often."""
    threshold = gc.get_threshold()
    built = [[route] for route in range(1000)]
    try:
        settle_collector()
        walked = {id(o) for o in gc.get_objects()}
        assert all(gc.is_tracked(o) and id(o) not in walked for o in built)
        assert gc.get_freeze_count() >= len(built)
        assert gc.get_threshold() == (*threshold[:2], FULL_COLLECTION_EVERY)
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)
