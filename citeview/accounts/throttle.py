"""Pausing logins after repeated failures: per user name (guessing one password) and, more loosely,
per address (trying many names)."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.http import HttpRequest
from django.utils import timezone

from citeview.accounts.models import LoginFailure


def client_address(request: HttpRequest) -> str | None:
    """The visitor's address. Behind our TLS proxy it is the last X-Forwarded-For entry, the one the
    proxy itself added; earlier entries come from the client and prove nothing."""
    if settings.SECURE_PROXY_SSL_HEADER:
        forwarded = request.headers.get("X-Forwarded-For", "")
        if forwarded.strip():
            return forwarded.split(",")[-1].strip() or None
    return request.META.get("REMOTE_ADDR") or None


def seconds_paused(username: str, address: str | None) -> int:
    """How long logins for this name or from this address are paused; 0 when they are not."""
    since = timezone.now() - timedelta(seconds=settings.LOGIN_PAUSE_SECONDS)
    recent = LoginFailure.objects.filter(created_at__gte=since)
    counts = (
        (recent.filter(username=username.casefold()), settings.LOGIN_FAILURES_PER_NAME),
        (recent.filter(address=address) if address else recent.none(), settings.LOGIN_FAILURES_PER_ADDRESS),
    )
    waits = []
    for failures, limit in counts:
        times = list(failures.order_by("-created_at").values_list("created_at", flat=True)[:limit])
        if len(times) >= limit:
            waits.append((times[-1] + timedelta(seconds=settings.LOGIN_PAUSE_SECONDS) - timezone.now()).total_seconds())
    return max(0, int(max(waits, default=0)) + 1) if waits else 0


def record_failure(username: str, address: str | None) -> None:
    LoginFailure.objects.create(username=username.casefold(), address=address)


def forget_failures(username: str) -> None:
    LoginFailure.objects.filter(username=username.casefold()).delete()
