"""New ids for what the runtime records and for requests: UUIDs made many at a time from
one read of the OS's randomness."""

from __future__ import annotations

import os
import time


def new_ids(count: int) -> list[str]:
    """`count` new ids (random UUIDs, as `uuid4` makes) from one read of the OS's randomness.

    `uuid4` reads it once per id, letting go of the GIL for a microsecond. Between items
    of Python work that starves the event loop: a thread waiting for the GIL asks for it
    only when its 5 ms wait saw no hand-over, and each of those brief releases is one, so
    it gets the GIL only if it wakes inside one: reads served meanwhile waited 70-430 ms
    instead of 5."""
    raw = bytearray(os.urandom(16 * count))
    raw[6::16] = bytes(byte & 0x0F | 0x40 for byte in raw[6::16])  # version 4
    raw[8::16] = bytes(byte & 0x3F | 0x80 for byte in raw[8::16])  # RFC 4122's variant
    return _spelled(raw)


def ordered_ids(count: int) -> list[str]:
    """`count` new ids ordered by time: UUIDs of version 7 (RFC 9562), the Unix time in
    milliseconds first, then 74 random bits, from one read of the OS's randomness.

    An id index takes a new random id on a page of its own, so a group commit of random
    ids writes a page an id; ids of the same millisecond share the index's last page."""
    raw = bytearray(os.urandom(16 * count))
    stamp = (time.time_ns() // 1_000_000).to_bytes(6, "big")
    for start in range(0, len(raw), 16):
        raw[start : start + 6] = stamp
    raw[6::16] = bytes(byte & 0x0F | 0x70 for byte in raw[6::16])  # version 7
    raw[8::16] = bytes(byte & 0x3F | 0x80 for byte in raw[8::16])  # RFC 9562's variant
    return _spelled(raw)


def _spelled(raw: bytearray) -> list[str]:
    """Each 16 bytes of `raw` as a UUID's canonical text."""
    h = raw.hex()
    return [
        f"{h[i : i + 8]}-{h[i + 8 : i + 12]}-{h[i + 12 : i + 16]}-{h[i + 16 : i + 20]}-"
        f"{h[i + 20 : i + 32]}"
        for i in range(0, len(h), 32)
    ]
