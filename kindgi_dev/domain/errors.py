"""The errors kindgi dev answers with, each mapped once to the API's error envelope.

Like sqlite-utils, a class's docstring is its default message; `code` is the stable
kebab-case wire code and `status` the HTTP status the contract gives it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar


class KindgiError(Exception):
    """Something went wrong inside kindgi dev."""

    status: ClassVar[int] = 500
    code: ClassVar[str] = "internal-server-error"

    def __init__(
        self, message: str | None = None, *, code: str | None = None, **details: object
    ) -> None:
        self.message = message or (self.__doc__ or "").strip()
        self.wire_code = code or self.code
        self.details = {k: v for k, v in details.items() if v is not None}
        super().__init__(self.message)


class BadInput(KindgiError):
    """The request is not valid."""

    status = 400
    code = "bad-input"


class ValidationFailed(BadInput):
    """A field of the request is not valid."""

    code = "validation-failed"

    def __init__(
        self,
        field: str,
        reason: str,
        *,
        code: str | None = None,
        issues: Sequence[Mapping[str, object]] | None = None,
        **details: object,
    ) -> None:
        where = field or "<body>"
        super().__init__(
            f"{where}: {reason}",
            code=code,
            field=field,
            reason=reason,
            issues=issues or [{"path": field, "message": reason}],
            **details,
        )


class Unauthenticated(KindgiError):
    """A valid `Authorization: Bearer <token>` header is required."""

    status = 401
    code = "auth-missing"


class Forbidden(KindgiError):
    """You may not do this."""

    status = 403
    code = "permission-denied"


class NotFound(KindgiError):
    """No such resource."""

    status = 404
    code = "not-found"

    def __init__(self, kind: str, ident: str, *, id_field: str | None = None) -> None:
        label = kind.replace("-", " ")
        super().__init__(
            f"No {label} with id {ident}.",
            code=f"{kind}-not-found",
            **{id_field or kind.replace("-", "_") + "_id": ident},
        )


class NoRoute(KindgiError):
    """No route serves this path."""

    status = 404
    code = "not-found"


class MethodNotAllowed(KindgiError):
    """The path is served, but not for this method."""

    status = 405
    code = "method-not-allowed"


class Gone(KindgiError):
    """The resource is gone."""

    status = 410
    code = "gone"


class Conflict(KindgiError):
    """The request conflicts with the current state."""

    status = 409
    code = "conflict"


class RequestTooLarge(KindgiError):
    """The request body is larger than kindgi dev accepts."""

    status = 413
    code = "request-too-large"


class Unprocessable(KindgiError):
    """The request was understood but could not be carried out."""

    status = 422
    code = "unprocessable"


class NotInKindgiDev(KindgiError):
    """A deployed Kindgi runtime serves this; kindgi dev doesn't."""

    status = 501
    code = "not-in-kindgi-dev"


class RemoteFailed(KindgiError):
    """The other Kindgi runtime refused the request or didn't answer."""

    status = 502
    code = "remote-error"
