from typing import Any

from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.dispatch import receiver

from citeview.accounts.throttle import client_address, forget_failures, record_failure, seconds_paused


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
