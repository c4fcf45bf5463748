from typing import Any

from django.conf import settings
from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver

from citeview.accounts.throttle import client_address, forget_failures, record_failure, seconds_paused
from citeview.accounts.tokens import token_restamp_all, token_revoke_all


@receiver(user_login_failed, dispatch_uid="citeview-login-failed")
def _count_failure(sender: Any, credentials: dict[str, Any], request: Any = None, **kwargs: Any) -> None:
    username = str(credentials.get("username", ""))
    address = client_address(request) if request is not None else None
    # A try refused while paused tried no password: counting it would only lengthen the pause.
    if seconds_paused(username, address):
        return
    record_failure(username, address)


@receiver(user_logged_in, dispatch_uid="citeview-logged-in")
def _clear_failures(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    forget_failures(user.get_username())


# API tokens end with the credentials they were made under. Django sends no signal when a password
# changes, and the admin, `changepassword`, the password forms and scripts all end in a save of the
# user: so each save is compared with the stored row, before it is written, and the tokens are
# deleted once it is written (a save that fails revokes nothing). A password written without a save
# (`QuerySet.update`, SQL) is caught when a token is next used: it keeps a digest of the password it
# was made under (``tokens.token_user``).
REVOKE, RESTAMP = "revoke", "restamp"


@receiver(pre_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="citeview-tokens-credentials-change")
def _note_credentials_change(sender: Any, instance: Any, update_fields: Any = None, **kwargs: Any) -> None:
    instance._citeview_tokens = _credentials_change(sender, instance, update_fields)


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="citeview-tokens-revoke")
def _revoke_or_restamp_tokens(sender: Any, instance: Any, **kwargs: Any) -> None:
    change, instance._citeview_tokens = getattr(instance, "_citeview_tokens", None), None
    if change == REVOKE:
        token_revoke_all(user=instance)
    elif change == RESTAMP:
        token_restamp_all(user=instance)


def _credentials_change(user_model: Any, user: Any, update_fields: frozenset[str] | None) -> str | None:
    """What this save of ``user`` does to their tokens: REVOKE when it changes their password or
    deactivates them, RESTAMP when it stores the same password anew, None otherwise."""
    if user.pk is None or (update_fields is not None and not update_fields & {"password", "is_active"}):
        return None  # a new account has no tokens; a login's save writes only last_login
    stored = user_model._default_manager.filter(pk=user.pk).values("password", "is_active").first()
    if stored is None:
        return None
    if stored["is_active"] and not user.is_active:
        return REVOKE
    if stored["password"] == user.password:
        return None
    # When its owner logs in, Django re-hashes a password kept in an older format (check_password's
    # setter, after an upgrade of Django or PASSWORD_HASHERS): the same password, so the tokens
    # stay, under its new hash. That save writes the password alone and, unlike set_password(),
    # leaves no new password noted (``_password``, which Django's own password_changed() hook reads
    # the same way).
    rehashed = update_fields == frozenset({"password"}) and getattr(user, "_password", None) is None
    return RESTAMP if rehashed else REVOKE
