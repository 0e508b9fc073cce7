"""A keyset cursor's whole-number place: what it stands for, and the cursors refused."""

from __future__ import annotations

import pytest

from kindgi_dev.domain.errors import BadInput
from kindgi_dev.domain.json import JSON
from kindgi_dev.domain.paging import encode_cursor, whole_after


def test_no_cursor_and_an_empty_position_start_at_the_beginning() -> None:
    assert whole_after(None) is None
    assert whole_after("") is None
    assert whole_after(encode_cursor([])) is None


def test_a_cursor_stands_for_its_first_place() -> None:
    assert whole_after(encode_cursor([7])) == 7
    assert whole_after(encode_cursor([0, "id-3"])) == 0
    assert whole_after(encode_cursor([-1])) == -1


@pytest.mark.parametrize("place", ["7", 1.5, True, None, {"n": 1}, [1]])
def test_a_place_that_is_no_whole_number_is_refused(place: JSON) -> None:
    with pytest.raises(BadInput) as refused:
        whole_after(encode_cursor([place]))
    assert refused.value.details == {"field": "cursor"}
