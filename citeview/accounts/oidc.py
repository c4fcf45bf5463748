"""Signing in through the company's identity provider (OpenID Connect, with mozilla-django-oidc). Off
until ``OIDC_RP_CLIENT_ID`` and the provider's endpoints are set; local accounts keep working beside it.

A claim of the provider (``CITEVIEW_OIDC_ROLES_CLAIM``, ``groups`` by default) names the user's
groups there; ``CITEVIEW_OIDC_ROLE_GROUPS`` maps them to citeview's roles (editor, reviewer, lead) and
to staff. The mapping is applied at every sign-in, so a role changed at the provider holds from the
next one; a user none of whose groups maps gets no role, and the pages say so.

A sign-in is matched by the ID token's issuer and subject (``accounts.OidcIdentity``), stored at the
subject's first sign-in; a user name or email changed at the provider is followed, never used to find
another account (issue 42, finding 8). An account made before subjects were stored is not taken by its
name unless staff link it (the admin, or ``CITEVIEW_OIDC_LINK_EARLIER_ACCOUNTS`` for the upgrade)."""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import SuspiciousOperation
from django.db import IntegrityError, transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from django.views import View
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.views import OIDCAuthenticationCallbackView, OIDCAuthenticationRequestView

from citeview.accounts import roles
from citeview.accounts.models import OidcIdentity

logger = logging.getLogger(__name__)

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
    provider's issuer and subject (never by a name or an email a user may change there) and giving
    them the roles their groups map to at every sign-in."""

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
        """The user info endpoint's claims over the ID token's (Entra ID, for one, puts the groups and
        app roles in the ID token only), but the ID token's issuer and subject: those were signed. A
        user info answer about another subject is refused, as OpenID Connect Core 5.3.2 asks."""
        userinfo = super().get_userinfo(access_token, id_token, payload)
        if "sub" in userinfo and userinfo["sub"] != payload.get("sub"):
            raise SuspiciousOperation("The user info endpoint spoke of another subject than the ID token")
        signed = {name: payload[name] for name in ("iss", "sub") if name in payload}
        return {**payload, **userinfo, **signed}

    def get_username(self, claims: dict[str, Any]) -> str:
        name = claims.get(settings.CITEVIEW_OIDC_USERNAME_CLAIM) or claims.get("email") or claims.get("sub")
        if not isinstance(name, str) or not name:
            raise SuspiciousOperation("The provider gave no user name")
        return name[:150]

    def verify_claims(self, claims: dict[str, Any]) -> bool:
        named = bool(claims.get(settings.CITEVIEW_OIDC_USERNAME_CLAIM) or claims.get("email") or claims.get("sub"))
        return named and identity_of(claims) is not None

    def filter_users_by_claims(self, claims: dict[str, Any]) -> Any:
        """The account linked to the provider's issuer and subject; at a subject's first sign-in, the
        account it may take by its name (:func:`_unlinked_account_to_take`), or none (a new one is
        made). A name is never proof: an account linked to another subject is never taken."""
        issuer, subject = _identity(claims)
        linked = OidcIdentity.objects.filter(issuer=issuer, subject=subject).select_related("user").first()
        if linked is not None:
            return [linked.user]
        taken = _unlinked_account_to_take(self.UserModel, self.get_username(claims), issuer, subject)
        return [taken] if taken is not None else []

    def create_user(self, claims: dict[str, Any]) -> Any:
        """A new account for a subject's first sign-in, under the provider's user name when it is
        free, otherwise under that name and a number (``sakura-2``): another's name is never taken.
        Made with its link in one transaction: a first sign-in that loses a race for the name or the
        subject is refused whole (the person signs in again), never half made."""
        try:
            with transaction.atomic():
                username = free_username(self.UserModel, self.get_username(claims))
                user = self.UserModel.objects.create_user(username, email=_email(claims))
                user.set_unusable_password()  # signs in through the provider only
                user.save(update_fields=["password"])
                return self.update_user(user, claims)
        except IntegrityError:
            raise SuspiciousOperation("Another first sign-in took the name or the subject meanwhile") from None

    def update_user(self, user: Any, claims: dict[str, Any]) -> Any:
        _link(user, claims)
        _follow_renames(self.UserModel, user, self.get_username(claims), _email(claims))
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


# --- who a sign-in is -------------------------------------------------------------------------------

# What a stored issuer or subject may hold (OpenID Connect Core 2: a subject is at most 255 characters).
_MAX_IDENTITY_CHARS = 255


def identity_of(claims: dict[str, Any]) -> tuple[str, str] | None:
    """The (issuer, subject) a sign-in's claims name: the ID token's ``iss`` (``CITEVIEW_OIDC_ISSUER``
    when it has none, and a token of another issuer than that setting's is refused) and ``sub``."""
    expected = settings.CITEVIEW_OIDC_ISSUER
    issuer, subject = claims.get("iss") or expected, claims.get("sub")
    if expected and issuer != expected:
        return None
    for value in (issuer, subject):
        if not isinstance(value, str) or not value or len(value) > _MAX_IDENTITY_CHARS:
            return None
    return str(issuer), str(subject)


def _identity(claims: dict[str, Any]) -> tuple[str, str]:
    identity = identity_of(claims)
    if identity is None:  # verify_claims refused it already: never reached through the library
        raise SuspiciousOperation("The provider named no issuer and subject")
    return identity


def _email(claims: dict[str, Any]) -> str:
    email = claims.get("email")
    return email[:254] if isinstance(email, str) else ""


def _unlinked_account_to_take(user_model: Any, username: str, issuer: str, subject: str) -> Any:
    """The account of ``username`` a subject citeview has not seen may take at its first sign-in, or
    None when there is no account of that name (a new one is made). Only an account linked to no
    subject is taken, and only when a setting says its name is proof: a local one (with a password)
    by ``CITEVIEW_OIDC_LINK_LOCAL_ACCOUNTS``, one an earlier sign-in through the provider made before
    subjects were stored by ``CITEVIEW_OIDC_LINK_EARLIER_ACCOUNTS``. Any other is refused, and staff
    told in the log, rather than opened on a name anyone may give themselves at the provider."""
    user = user_model.objects.filter(username=username).select_related("oidc_identity").first()
    if user is None:
        return None
    if hasattr(user, "oidc_identity"):
        return None  # another subject's account: this one gets an account of its own
    local = user.has_usable_password()
    allowed = settings.CITEVIEW_OIDC_LINK_LOCAL_ACCOUNTS if local else settings.CITEVIEW_OIDC_LINK_EARLIER_ACCOUNTS
    if not allowed:
        logger.warning(
            "OIDC sign-in of subject %r of %s refused: the %s account %r of its user name is linked to no "
            "subject, and %s is off. Staff: if it is the same person, link the account to this issuer and "
            "subject in the admin (Identities at the provider), or turn the setting on for their sign-in.",
            subject,
            issuer,
            "local" if local else "earlier provider-made",
            username,
            "CITEVIEW_OIDC_LINK_LOCAL_ACCOUNTS" if local else "CITEVIEW_OIDC_LINK_EARLIER_ACCOUNTS",
        )
        raise SuspiciousOperation("An account of this user name is linked to no subject")
    logger.warning("OIDC subject %r of %s linked, by its user name, to the account %r", subject, issuer, username)
    return user


def _link(user: Any, claims: dict[str, Any]) -> None:
    """Store the sign-in's issuer and subject for ``user``, at its first sign-in. Two first sign-ins
    at once of one subject: the unique constraint lets one in, the other is refused."""
    issuer, subject = _identity(claims)
    try:
        with transaction.atomic():
            _, made = OidcIdentity.objects.get_or_create(user=user, defaults={"issuer": issuer, "subject": subject})
    except IntegrityError:
        raise SuspiciousOperation("This subject was linked to another account meanwhile") from None
    if not made and (user.oidc_identity.issuer, user.oidc_identity.subject) != (issuer, subject):
        raise SuspiciousOperation("The account is linked to another subject")  # never: found by its subject


def free_username(user_model: Any, wanted: str) -> str:
    """``wanted`` when no account has it (whatever its case), else it with the first free number."""
    for number in range(1, 1000):
        suffix = "" if number == 1 else f"-{number}"
        candidate = wanted[: 150 - len(suffix)] + suffix
        if not user_model.objects.filter(username__iexact=candidate).exists():
            return candidate
    raise SuspiciousOperation("No free user name near the provider's")


def _follow_renames(user_model: Any, user: Any, username: str, email: str) -> None:
    """A user name or email changed at the provider, followed: the email always; the user name when no
    other account has it (whatever its case), else the account keeps its own and staff are told."""
    changed = []
    if email and user.email != email:
        user.email = email
        changed.append("email")
    if user.username != username:
        taken = user_model.objects.filter(username__iexact=username).exclude(pk=user.pk).exists()
        if taken:
            logger.warning(
                "OIDC user %r is %r at the provider now, another account's name: the account keeps its own",
                user.username,
                username,
            )
        else:
            user.username = username
            changed.append("username")
    if changed:
        user.save(update_fields=changed)


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
