"""Signing in through the company's identity provider (OpenID Connect, with mozilla-django-oidc). Off
until ``OIDC_RP_CLIENT_ID`` and the provider's endpoints are set; local accounts keep working beside it.

A claim of the provider (``CITEVIEW_OIDC_ROLES_CLAIM``, ``groups`` by default) names the user's
groups there; ``CITEVIEW_OIDC_ROLE_GROUPS`` maps them to citeview's roles (editor, reviewer, lead) and
to staff. The mapping is applied at every sign-in, so a role changed at the provider holds from the
next one; a user none of whose groups maps gets no role, and the pages say so."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.views import View
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.views import OIDCAuthenticationCallbackView, OIDCAuthenticationRequestView

from citeview.accounts import roles

STAFF = "staff"
# The session's mark of a sign-in through the provider (its pages then speak of the provider's groups).
SIGNED_IN_THROUGH_PROVIDER = "citeview_oidc"


def oidc_enabled() -> bool:
    return bool(settings.OIDC_RP_CLIENT_ID and settings.OIDC_OP_AUTHORIZATION_ENDPOINT)


def mapped_roles(claims: dict[str, Any]) -> set[str]:
    """The roles (and ``staff``) the provider's groups map to, by ``CITEVIEW_OIDC_ROLE_GROUPS``."""
    given = claims.get(settings.CITEVIEW_OIDC_ROLES_CLAIM)
    groups = {given} if isinstance(given, str) else {str(g) for g in given} if isinstance(given, list) else set()
    return {role for role, names in settings.CITEVIEW_OIDC_ROLE_GROUPS.items() if groups & set(names)}


class RoleMappingBackend(OIDCAuthenticationBackend):
    """mozilla-django-oidc's backend, off while the provider is not configured, matching a user by the
    provider's user name claim and giving them the roles their groups map to at every sign-in."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # The library's reads the provider's settings and refuses to be made without them.
        if oidc_enabled():
            super().__init__(*args, **kwargs)
        else:
            self.UserModel = get_user_model()

    def authenticate(self, request: HttpRequest | None, **kwargs: Any) -> Any:
        if not oidc_enabled():
            return None
        return super().authenticate(request, **kwargs)

    def get_userinfo(self, access_token: str, id_token: str, payload: dict[str, Any]) -> dict[str, Any]:
        """The user info endpoint's claims over the ID token's: Entra ID, for one, puts the groups and
        app roles in the ID token only."""
        return {**payload, **super().get_userinfo(access_token, id_token, payload)}

    def get_username(self, claims: dict[str, Any]) -> str:
        name = claims.get(settings.CITEVIEW_OIDC_USERNAME_CLAIM) or claims.get("email") or claims.get("sub")
        if not isinstance(name, str) or not name:
            raise SuspiciousOperation("The provider gave no user name")
        return name[:150]

    def verify_claims(self, claims: dict[str, Any]) -> bool:
        return bool(claims.get(settings.CITEVIEW_OIDC_USERNAME_CLAIM) or claims.get("email") or claims.get("sub"))

    def filter_users_by_claims(self, claims: dict[str, Any]) -> Any:
        """The account of the provider's user name. A local account (one with a password) is not taken
        over by a sign-in of the same name unless ``CITEVIEW_OIDC_LINK_LOCAL_ACCOUNTS`` says it is the
        same person: a name is not proof, and staff's own accounts are local ones."""
        users = self.UserModel.objects.filter(username=self.get_username(claims))
        if not settings.CITEVIEW_OIDC_LINK_LOCAL_ACCOUNTS and any(user.has_usable_password() for user in users):
            raise SuspiciousOperation("A local account has this user name")
        return users

    def create_user(self, claims: dict[str, Any]) -> Any:
        user = self.UserModel.objects.create_user(self.get_username(claims), email=claims.get("email") or "")
        user.set_unusable_password()  # signs in through the provider only
        user.save(update_fields=["password"])
        return self.update_user(user, claims)

    def update_user(self, user: Any, claims: dict[str, Any]) -> Any:
        granted = mapped_roles(claims)
        role_groups = Group.objects.filter(name__in=roles.ROLE_PERMISSIONS)
        user.groups.remove(*[group for group in role_groups if group.name not in granted])
        user.groups.add(*[group for group in role_groups if group.name in granted])
        if user.is_staff != (STAFF in granted):
            user.is_staff = STAFF in granted
            user.save(update_fields=["is_staff"])
        return user

    def store_tokens(self, access_token: str, id_token: str) -> None:
        super().store_tokens(access_token, id_token)
        self.request.session[SIGNED_IN_THROUGH_PROVIDER] = True


class SignInView(OIDCAuthenticationRequestView):
    """The way to the provider's sign-in; not there while the provider is not configured."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # The library's reads the provider's settings and refuses to be made without them.
        if oidc_enabled():
            super().__init__(*args, **kwargs)
        else:
            View.__init__(self, *args, **kwargs)

    def get(self, request: HttpRequest) -> HttpResponse:
        if not oidc_enabled():
            raise Http404("Signing in through an identity provider is not configured.")
        return super().get(request)  # type: ignore[no-any-return]


class CallbackView(OIDCAuthenticationCallbackView):
    """Where the provider sends the user back; not there while the provider is not configured."""

    def get(self, request: HttpRequest) -> HttpResponse:
        if not oidc_enabled():
            raise Http404("Signing in through an identity provider is not configured.")
        return super().get(request)  # type: ignore[no-any-return]


def provider_logout_url(request: HttpRequest) -> str | None:
    """Where signing out goes after citeview's own session ends: the provider's end-session endpoint
    (so the provider's session ends too), with the ID token and the way back to citeview's login, when
    the provider has one and the user signed in through it; None otherwise."""
    back = request.build_absolute_uri(reverse("login"))
    id_token = request.session.get("oidc_id_token")
    if not (settings.OIDC_OP_LOGOUT_ENDPOINT and id_token):
        return None
    query = urlencode(
        {"id_token_hint": id_token, "post_logout_redirect_uri": back, "client_id": settings.OIDC_RP_CLIENT_ID}
    )
    return f"{settings.OIDC_OP_LOGOUT_ENDPOINT}?{query}"
