"""API tokens: made, recognised, expired and revoked. The key itself is never stored (see ``ApiToken``)."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone
from django.utils.crypto import constant_time_compare

from citeview.accounts.models import ApiToken

KEY_START = "cv_"  # says what the key is when it turns up in a log or a leaked file
PREFIX_LENGTH = 10
# Recording every use would write to the database on every API call; once a minute tells enough.
LAST_USED_PRECISION = timedelta(minutes=1)
DEFAULT_LIFETIME = timedelta(days=90)


class TokenExpired(Exception):
    """The token was good, until ``expired_at``."""

    def __init__(self, expired_at: datetime) -> None:
        super().__init__(expired_at)
        self.expired_at = expired_at


def token_create(*, user: Any, name: str, lifetime: timedelta | None = DEFAULT_LIFETIME) -> tuple[ApiToken, str]:
    """A new token for ``user``, and its key: the only time the key exists outside the caller's hands.
    It expires after ``lifetime``; None: never."""
    key = KEY_START + secrets.token_urlsafe(32)
    expires_at = timezone.now() + lifetime if lifetime is not None else None
    token = ApiToken.objects.create(
        user=user,
        name=name,
        prefix=key[:PREFIX_LENGTH],
        key_hash=key_hash(key),
        expires_at=expires_at,
        password_digest=password_digest(user.password),
    )
    return token, key


def token_user(key: str) -> Any | None:
    """The active user whose token ``key`` is, or None; notes when the token was used. Raises
    TokenExpired for an expired token, so that the caller can say why it is refused. A token made
    under another password than its user's now is revoked here, whatever path changed the password."""
    token = ApiToken.objects.select_related("user").filter(key_hash=key_hash(key), user__is_active=True).first()
    if token is None:
        return None
    if not constant_time_compare(token.password_digest, password_digest(token.user.password)):
        token.delete()
        return None
    if token.is_expired and token.expires_at is not None:
        raise TokenExpired(token.expires_at)
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_PRECISION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token.user


def token_revoke(*, user: Any, pk: int) -> bool:
    """Delete one of ``user``'s tokens; False if they have no such token."""
    deleted, _ = ApiToken.objects.filter(user=user, pk=pk).delete()
    return bool(deleted)


def token_revoke_all(*, user: Any) -> int:
    """Delete every token of ``user``'s: their password changed, or the account was deactivated."""
    deleted, _ = ApiToken.objects.filter(user=user).delete()
    return deleted


def token_restamp_all(*, user: Any) -> None:
    """``user``'s password is the same, stored anew (re-hashed at login): their tokens stay, under it."""
    ApiToken.objects.filter(user=user).update(password_digest=password_digest(user.password))


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", errors="surrogatepass")).hexdigest()


def password_digest(password_hash: str) -> str:
    """What a token keeps of its user's stored password hash, to tell when it changes. Not keyed by
    SECRET_KEY, on purpose: the hash it is made from is salted and slow, so the digest tells nothing
    the user's own row does not, and a key would end every token whenever SECRET_KEY changes (a
    rotation, or `make dev` and `make run`, which serve with different keys)."""
    return hashlib.sha256(f"citeview-api-token-password:{password_hash}".encode()).hexdigest()
