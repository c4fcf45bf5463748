"""Who is calling the API: a bearer token, or the browser session, and the one shape of its errors."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_not_required
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse

from citeview.accounts import roles
from citeview.accounts.tokens import TokenExpired, key_hash, token_user
from citeview.api.rates import api_rate_refusal, counted_in_its_commit

API_PREFIX = "/api/"
# Which token a request came with (its key's digest), for the token's rate budget.
_TOKEN_ATTRIBUTE = "citeview_api_token"


class BearerTokenMiddleware:
    """``Authorization: Bearer <key>`` on the API: the request acts as the key's user, without the
    session and without the CSRF check, since a browser never sends that header to another site by
    itself. A key that is wrong or expired is refused, never ignored in favour of the session."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        header = request.headers.get("Authorization")
        # The OpenAPI document is public: read whatever credentials come with it.
        if header is None or not request.path.startswith(API_PREFIX) or request.path == reverse("api:openapi"):
            return self.get_response(request)
        scheme, _space, key = header.strip().partition(" ")
        if scheme.lower() != "bearer" or not key.strip():
            return api_error(401, "invalid_token", "Send the token as: Authorization: Bearer <token>.")
        try:
            user = token_user(key.strip())
        except TokenExpired as expired:
            when = expired.expired_at.astimezone(UTC).isoformat()
            message = f"This token expired on {when}: make a new one on the account page (/accounts/)."
            return api_error(401, "token_expired", message, expired_at=when)
        if user is None:
            return api_error(401, "invalid_token", "This token is not valid: it may have been revoked.")
        request.user = user
        setattr(request, _TOKEN_ATTRIBUTE, key_hash(key.strip()))
        request._dont_enforce_csrf_checks = True  # type: ignore[attr-defined]  # the flag CsrfViewMiddleware reads; not in the stubs
        return self.get_response(request)


def api_endpoint(
    permissions: dict[str, str], count_in_its_commit: bool = False
) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """An API view: each allowed method with the permission it needs. Answers 401, 429, 405 and 403 as
    JSON, never with the login page. With ``count_in_its_commit``, a write is counted against its rate
    in the commit of what it writes where that saves a sync to disk (``counted_in_its_commit``): for a
    view whose writes are one short transaction, never for one that commits as it goes (an import)."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @login_not_required
        @wraps(view)
        def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not request.user.is_authenticated:
                return api_error(401, "not_authenticated", "Send an API token (Authorization: Bearer) or log in.")
            if not (count_in_its_commit and counted_in_its_commit(request)):
                return _answered(request, view, permissions, *args, **kwargs)
            request.body  # noqa: B018 (read before the write lock is taken: a slow client never holds it)
            with transaction.atomic():
                return _answered(request, view, permissions, *args, **kwargs)

        return checked

    return decorate


def _answered(
    request: HttpRequest, view: Callable[..., HttpResponse], permissions: dict[str, str], *args: Any, **kwargs: Any
) -> HttpResponse:
    if refusal := api_rate_refusal(request, getattr(request, _TOKEN_ATTRIBUTE, None)):
        response = api_error(429, "too_many_requests", refusal.message, retry_after=refusal.retry_after)
        response["Retry-After"] = str(refusal.retry_after)
        return response
    permission = permissions.get(request.method or "")
    if permission is None:
        allowed = ", ".join(permissions)
        return api_error(405, "method_not_allowed", f"Use {allowed}.", allow=allowed)
    if not request.user.has_perm(permission):
        return api_error(403, "forbidden", _forbidden_message(request.user))
    return view(request, *args, **kwargs)


def _forbidden_message(user: Any) -> str:
    if roles.role_name(user) is None:
        return "This account has no role yet: ask staff to make it a reviewer or an editor."
    return "Only editors may do this; this account is a reviewer."


def api_error(status: int, code: str, message: str, allow: str | None = None, **extra: Any) -> JsonResponse:
    response = JsonResponse({"error": {"code": code, "message": message, **extra}}, status=status)
    if allow:
        response["Allow"] = allow
    if status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="citeview"'
    return response
