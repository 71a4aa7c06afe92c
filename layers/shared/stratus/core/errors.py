"""API errors rendered as Mastodon renders them: `{"error": "..."}` with the right status.

OAuth endpoints add `error_description` (RFC 6749); validation failures may add `details`.
"""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    status = 400
    default_message = "Bad request"

    def __init__(self, message: str | None = None, *, headers: dict[str, str] | None = None,
                 extra: dict[str, Any] | None = None) -> None:
        self.message = message or self.default_message
        self.headers = headers or {}
        self.extra = extra or {}
        super().__init__(self.message)

    def body(self) -> dict[str, Any]:
        return {"error": self.message, **self.extra}


class BadRequest(ApiError):
    status = 400


class Unauthorized(ApiError):
    status = 401
    default_message = "The access token is invalid"


class Forbidden(ApiError):
    status = 403
    default_message = "This action is not allowed"


class NotFound(ApiError):
    status = 404
    default_message = "Record not found"


class PayloadTooLarge(ApiError):
    status = 413
    default_message = "Request entity too large"


class Conflict(ApiError):
    status = 409
    default_message = "Conflict during update, please try again"


class Unprocessable(ApiError):
    status = 422
    default_message = "Validation failed"


class TooManyRequests(ApiError):
    status = 429
    default_message = "Too many requests"


class ServiceUnavailable(ApiError):
    """A service we depend on failed (Mastodon's `service_unavailable`: Rack's status text)."""

    status = 503
    default_message = "Service Unavailable"


class Busy(TooManyRequests):
    """Too many concurrent changes to one item: safe to retry after a moment."""

    default_message = "This resource is busy; try again in a moment"

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message, headers={"Retry-After": "1"})


class OAuthError(ApiError):
    """RFC 6749 error: `error` is the code, `error_description` the human text."""

    def __init__(self, code: str, description: str, status: int = 400,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(code, headers=headers, extra={"error_description": description})
        self.status = status


# Attribute names Rails would not derive from the field name (Doorkeeper's locale).
LABELS = {"redirect_uri": "Redirect URI", "keywords.keyword": "Keywords keyword"}


class ValidationFailed(Unprocessable):
    """Mastodon's model validation error: `Validation failed: Name is too long` + `details`."""

    def __init__(self, details: dict[str, list[tuple[str, str]]]) -> None:
        # details: field -> [(ERR_CODE, description)]
        parts = []
        for field, errors in details.items():
            label = LABELS.get(field) or field.replace("_", " ").capitalize()
            parts.extend(f"{label} {description}" for _, description in errors)
        super().__init__(
            "Validation failed: " + ", ".join(parts),
            extra={"details": {field: [{"error": code, "description": description}
                                       for code, description in errors]
                               for field, errors in details.items()}},
        )


class Permanent(ValueError):
    """A job that running again cannot mend (jobs.messages.Poison: a message that is no job): a
    queue worker logs and drops it (observability.sqs_batch_handler), never retries it until it
    is dead-lettered."""
