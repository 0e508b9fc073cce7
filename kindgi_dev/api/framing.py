"""No page of this server may be framed: a page on another site (or another port of this
machine) that framed the logged-in console could have a person's clicks submit its forms.

Every answer carries `Content-Security-Policy: frame-ancestors 'none'` and, for browsers
that predate it, `X-Frame-Options: DENY`: one rule for the whole app, so no console page
(a login, a refusal, an error, a static file) is left out (`front.Front` adds them).
"""

from __future__ import annotations

HEADERS = (
    (b"content-security-policy", b"frame-ancestors 'none'"),
    (b"x-frame-options", b"DENY"),
)
