"""API tokens: made, recognised and revoked. The key itself is never stored (see ``ApiToken``)."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import Any

from django.utils import timezone

from citeview.accounts.models import ApiToken

KEY_START = "cv_"  # says what the key is when it turns up in a log or a leaked file
PREFIX_LENGTH = 10
# Recording every use would write to the database on every API call; once a minute tells enough.
LAST_USED_PRECISION = timedelta(minutes=1)


def token_create(*, user: Any, name: str) -> tuple[ApiToken, str]:
    """A new token for ``user``, and its key: the only time the key exists outside the caller's hands."""
    key = KEY_START + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(user=user, name=name, prefix=key[:PREFIX_LENGTH], key_hash=key_hash(key))
    return token, key


def token_user(key: str) -> Any | None:
    """The active user whose token ``key`` is, or None; notes when the token was used."""
    token = ApiToken.objects.select_related("user").filter(key_hash=key_hash(key), user__is_active=True).first()
    if token is None:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_PRECISION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user


def token_revoke(*, user: Any, pk: int) -> bool:
    """Delete one of ``user``'s tokens; False if they have no such token."""
    deleted, _ = ApiToken.objects.filter(user=user, pk=pk).delete()
    return bool(deleted)


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", errors="surrogatepass")).hexdigest()
