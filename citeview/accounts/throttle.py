"""Pausing logins after repeated failures: per user name (guessing one password) and, more loosely,
per address (trying many names)."""

from __future__ import annotations

import unicodedata
from datetime import timedelta
from ipaddress import IPv4Address, IPv6Address, ip_address

from django.conf import settings
from django.contrib.auth import get_user_model
from django.http import HttpRequest
from django.utils import timezone

from citeview.accounts.models import LoginFailure


def login_name(username: str) -> str:
    """The name a login is paused and counted under: the name Django's login form reads from what was
    typed, so that " ed3" and the full-width "ｅｄ３" are ed3. The form's field (UsernameField)
    strips surrounding whitespace and applies NFKC, but leaves a name longer than the user model
    allows as it is (it then refuses it before any password is tried).

    The result is stripped once more: NFKC turns a few marks into a space and a combining mark
    ("¨" becomes a space and U+0308). The pause is looked up from what was typed but counted from
    the name the form passed on, so reading a name twice must give the same name.

    Letter case is kept: user names are case-sensitive here. ModelBackend finds the user with an
    exact lookup (``get_by_natural_key``), and on SQLite and PostgreSQL that comparison, like the
    user model's unique constraint, tells "Ed3" from "ed3": they can be two accounts, and a guess
    at "ED3" can never log in as ed3."""
    name = username.strip()
    if len(name) > _user_name_max_length():
        return name
    return unicodedata.normalize("NFKC", name).strip()


def _user_name_max_length() -> int:
    user_model = get_user_model()
    field = user_model._meta.get_field(user_model.USERNAME_FIELD)
    return getattr(field, "max_length", None) or 254  # as the login form


def client_address(request: HttpRequest) -> str | None:
    """The visitor's address. X-Forwarded-For is believed only as far as proxies in TRUSTED_PROXIES
    wrote it: read from the right, each trusted hop's entry names the hop before it, and the first
    address that is no trusted proxy is the visitor. Entries left of it were written by the visitor
    and prove nothing. A request that does not come from a trusted proxy is its own REMOTE_ADDR,
    whatever headers it sends: a client that reaches the app server directly cannot pick an address."""
    peer = _address(request.META.get("REMOTE_ADDR", ""))
    if peer is None or not _is_trusted_proxy(peer):
        return str(peer) if peer else None
    client = peer
    for entry in reversed(request.headers.get("X-Forwarded-For", "").split(",")):
        hop = _address(entry)
        if hop is None:
            break  # no proxy writes this: nothing from here leftwards can be believed
        client = hop
        if not _is_trusted_proxy(hop):
            break
    return str(client)


def _address(text: str) -> IPv4Address | IPv6Address | None:
    # A link-local address's zone (fe80::1%eth0) names one of our own interfaces, not the visitor.
    try:
        address = ip_address(text.strip().partition("%")[0])
    except ValueError:
        return None
    # An IPv6 socket reports an IPv4 peer as ::ffff:a.b.c.d; it is the IPv4 address.
    if isinstance(address, IPv6Address) and address.ipv4_mapped:
        return address.ipv4_mapped
    return address


def _is_trusted_proxy(address: IPv4Address | IPv6Address) -> bool:
    return any(address in network for network in settings.TRUSTED_PROXIES)


def seconds_paused(username: str, address: str | None) -> int:
    """How long logins for this name or from this address are paused; 0 when they are not."""
    since = timezone.now() - timedelta(seconds=settings.LOGIN_PAUSE_SECONDS)
    recent = LoginFailure.objects.filter(created_at__gte=since)
    counts = (
        (recent.filter(username=login_name(username)), settings.LOGIN_FAILURES_PER_NAME),
        (recent.filter(address=address) if address else recent.none(), settings.LOGIN_FAILURES_PER_ADDRESS),
    )
    waits = []
    for failures, limit in counts:
        times = list(failures.order_by("-created_at").values_list("created_at", flat=True)[:limit])
        if len(times) >= limit:
            waits.append((times[-1] + timedelta(seconds=settings.LOGIN_PAUSE_SECONDS) - timezone.now()).total_seconds())
    return max(0, int(max(waits, default=0)) + 1) if waits else 0


def record_failure(username: str, address: str | None) -> None:
    LoginFailure.objects.create(username=login_name(username), address=address)


def forget_failures(username: str) -> None:
    LoginFailure.objects.filter(username=login_name(username)).delete()
