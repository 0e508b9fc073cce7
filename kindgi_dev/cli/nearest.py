"""The subcommand a mistyped word was likely meant as, by the real CLI's rules: a word another
group spells differently (`create` for `add`), else one a typo away, never its opposite."""

from __future__ import annotations

from collections.abc import Sequence

SAME_MEANING = {
    "register": ("publish", "set", "create", "add"),
    "publish": ("register",),
    "create": ("register", "add", "set"),
    "add": ("register", "create", "set"),
    "delete": ("unregister", "remove", "revoke"),
    "remove": ("unregister", "revoke", "delete"),
    "rm": ("unregister", "remove", "delete"),
    "ls": ("list",),
    "show": ("get",),
    "describe": ("get",),
}


def nearest(word: str, names: Sequence[str]) -> str | None:
    """The name `word` most likely meant, or None when none is close: a typo of one edit
    for names of four letters or fewer, two for longer ones."""
    for alternative in SAME_MEANING.get(word, ()):
        if alternative in names:
            return alternative
    close = [
        (typo_distance(word, name), index, name)
        for index, name in enumerate(names)
        if name != f"un{word}" and word != f"un{name}"
    ]
    fits = [c for c in close if c[0] <= (1 if min(len(word), len(c[2])) <= 4 else 2)]
    return min(fits)[2] if fits else None


def typo_distance(a: str, b: str) -> int:
    """Edits from `a` to `b`, swapping two neighbouring letters counting as one."""
    rows = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
    return rows[len(a)][len(b)]
