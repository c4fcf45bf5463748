"""The one way a password is checked, paused like the login page: the admin's login and any other
caller of ``authenticate()`` are held to the same count, so no second door lets guessing go on."""

from __future__ import annotations

from typing import Any

from asgiref.sync import sync_to_async
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest

from citeview.accounts.throttle import client_address, seconds_paused


class PausingModelBackend(ModelBackend):
    """Django's ModelBackend, refusing without trying the password while the name or address is paused.
    PermissionDenied stops ``authenticate()`` at once; the failure it then reports is not counted
    again (see ``signals``)."""

    def authenticate(
        self, request: HttpRequest | None, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> Any:
        if _is_paused(request, username):
            raise PermissionDenied
        return super().authenticate(request, username=username, password=password, **kwargs)

    async def aauthenticate(
        self, request: HttpRequest | None, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> Any:
        if await sync_to_async(_is_paused)(request, username):
            raise PermissionDenied
        return await super().aauthenticate(request, username=username, password=password, **kwargs)


def _is_paused(request: HttpRequest | None, username: str | None) -> bool:
    address = client_address(request) if request is not None else None
    return bool(seconds_paused(username or "", address))
