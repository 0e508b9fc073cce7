"""Acme's help centre, bundled with the pack, and a keyword search over it.

A stand-in for a real search service: each article has weighted keywords, a query scores
the sum of the weights of the keywords it contains, and ties go to the lower article id.
So the same query always gives the same articles in the same order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Article:
    """One help article and the words it is found by."""

    id: str
    title: str
    keywords: dict[str, int]


ARTICLES: tuple[Article, ...] = (
    Article("kb-101", "Reset your password", {"password": 3, "forgot": 2, "reset": 2, "sign": 1}),
    Article("kb-102", "Change the email on your account", {"email": 3, "account": 1, "sign": 1}),
    Article("kb-103", "Turn on two-step sign-in", {"two": 2, "step": 2, "code": 2, "sign": 1}),
    Article("kb-104", "Delete your account", {"delete": 3, "close": 2, "account": 1}),
    Article(
        "kb-201",
        "Request a refund",
        {"refund": 3, "money": 2, "back": 1, "charged": 1, "arrived": 1},
    ),
    Article("kb-202", "Update your payment method", {"payment": 3, "card": 2, "charged": 1}),
    Article("kb-203", "Cancel an order", {"cancel": 3, "order": 2}),
    Article("kb-204", "Download an invoice", {"invoice": 3, "receipt": 2, "download": 1}),
    Article(
        "kb-301",
        "Track your package",
        {"package": 3, "track": 2, "where": 1, "arrived": 1, "delivery": 1},
    ),
    Article("kb-302", "Change the delivery address", {"address": 3, "delivery": 2}),
    Article("kb-303", "Return an item", {"return": 3, "package": 2, "send": 1}),
    Article("kb-304", "Choose a delivery speed", {"speed": 3, "express": 2, "delivery": 1}),
)

_WORD = re.compile(r"[a-z0-9']+")


def search(query: str, limit: int = 5) -> list[tuple[Article, int]]:
    """The articles `query` finds with their scores, best first, at most `limit`."""
    words = set(_WORD.findall(query.lower()))
    scored = [
        (article, sum(weight for word, weight in article.keywords.items() if word in words))
        for article in ARTICLES
    ]
    found = sorted((pair for pair in scored if pair[1] > 0), key=lambda p: (-p[1], p[0].id))
    return found[:limit]
