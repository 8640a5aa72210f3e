"""Errors that carry a user-facing message; the API maps each to a status code."""

from __future__ import annotations


class MarginaliaError(Exception):
    """Base: the message is safe and useful to show to a user."""

    code = "error"
    status_code = 400
    user_facing = True

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class NotFoundError(MarginaliaError):
    code = "not_found"
    status_code = 404


class ConflictError(MarginaliaError):
    code = "conflict"
    status_code = 409


class ValidationFailed(MarginaliaError):
    code = "invalid_request"
    status_code = 422


class PayloadTooLarge(MarginaliaError):
    code = "payload_too_large"
    status_code = 413


class UnsupportedMedia(MarginaliaError):
    code = "unsupported_media_type"
    status_code = 415


class ServiceUnavailable(MarginaliaError):
    code = "service_unavailable"
    status_code = 503


class Unauthorized(MarginaliaError):
    """No valid credentials (accounts mode): sign in or send an API token."""

    code = "unauthorized"
    status_code = 401


class Forbidden(MarginaliaError):
    """Signed in and allowed to see the resource, but not to change it (a reader)."""

    code = "forbidden"
    status_code = 403


class TooManyRequests(MarginaliaError):
    """Too many attempts (sign-in back-off): try again after ``retry_after_s`` seconds,
    sent as ``Retry-After``."""

    code = "too_many_attempts"
    status_code = 429

    def __init__(self, detail: str, retry_after_s: int) -> None:
        super().__init__(detail)
        self.retry_after_s = retry_after_s
