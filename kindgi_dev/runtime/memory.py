"""Give back to the system the memory a large job freed, so the process shrinks to idle again;
and pause the cycle collector while work makes many objects that outlive it.

Python and SQLite free their objects and pages into the C allocator, which keeps them; on
glibc `malloc_trim` returns the free pages. Elsewhere only the collection runs.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
from collections.abc import Callable, Iterator


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, or None where the C library has none. Looked up among the
    symbols the process has loaded, its C library's with them: `ctypes.util.find_library`
    ran `ldconfig -p` in a child process at every start to find the library's file."""
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    return trim


_TRIM = _malloc_trim()


def give_back() -> None:
    """Collect garbage, then hand the allocator's free pages back to the system."""
    gc.collect()
    if _TRIM is not None:
        _TRIM(0)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off for the block, on again after unless it was off before: a
    collection meanwhile would walk objects that are all still alive (the app's import and
    build at start: about a tenth of its time; a batch of corrections' records until they
    are written: about a tenth of its CPU)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
