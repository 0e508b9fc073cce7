"""Ids packed and made without building `uuid.UUID`s (#29): the same bytes and text as the
`uuid` module's, for every spelling an id may come in."""

from __future__ import annotations

import random
import time
import uuid

from kindgi_dev.ids import new_ids, ordered_ids
from kindgi_dev.store.ids import packed, unpacked


def packed_by_uuid(text: object) -> object:
    """What `packed` gave when it built a `uuid.UUID` of each id."""
    try:
        value = uuid.UUID(text)  # type: ignore[arg-type]
    except (ValueError, TypeError, AttributeError):
        return text
    return value.bytes if str(value) == text else text


def test_an_id_packs_as_the_uuid_module_packs_it_whatever_its_spelling() -> None:
    rng = random.Random(16)
    for _ in range(2000):
        made = str(uuid.UUID(int=rng.getrandbits(128)))
        spellings = [made, made.upper(), "{" + made + "}", "urn:uuid:" + made,
                     made.replace("-", ""), made[:-1], made + "0", made[:8] + "_" + made[9:],
                     "run-1", "", made[:35] + "g"]  # fmt: skip
        for text in spellings:
            assert packed(text) == packed_by_uuid(text), text
        assert unpacked(packed(made)) == made
    assert packed(b"\x00" * 16) == packed_by_uuid(b"\x00" * 16)  # type: ignore[arg-type]


def test_new_ids_are_random_uuids_of_version_4_spelled_canonically() -> None:
    ids = new_ids(5000)
    assert len(set(ids)) == 5000
    for text in ids:
        value = uuid.UUID(text)
        assert (value.version, value.variant, str(value)) == (4, uuid.RFC_4122, text)
    assert new_ids(0) == []


def test_ordered_ids_are_uuids_of_version_7_led_by_the_time_they_were_made() -> None:
    before = time.time_ns() // 1_000_000
    ids = ordered_ids(5000)
    after = time.time_ns() // 1_000_000
    later = ordered_ids(1)[0]
    assert len(set(ids)) == 5000
    for text in ids:
        value = uuid.UUID(text)
        assert (value.version, value.variant, str(value)) == (7, uuid.RFC_4122, text)
        assert before <= value.int >> 80 <= after
        assert text[:13] <= later[:13]  # an id made later sorts after, to the millisecond
    assert ordered_ids(0) == []
