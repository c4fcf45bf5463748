from __future__ import annotations

from datetime import timedelta
from typing import Any, cast

from django import forms
from django.conf import settings
from django.contrib import auth, messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST

from citeview.accounts import roles
from citeview.accounts.models import ApiToken
from citeview.accounts.oidc import oidc_enabled, provider_logout_url
from citeview.accounts.throttle import client_address, seconds_paused
from citeview.accounts.tokens import DEFAULT_LIFETIME, token_create, token_revoke


class LoginView(auth_views.LoginView):
    """Django's login, paused for a while after repeated failures (HTTP 429, saying for how long). The
    backend refuses a paused login on every other way in too (``backends``). Where the company's
    identity provider is configured, the page offers it beside the password (``oidc``)."""

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        if oidc_enabled():
            context["oidc_name"] = settings.CITEVIEW_OIDC_NAME
            context["oidc_offered"] = True
            context["oidc_failed"] = self.request.GET.get("sign_in") == "failed"
        return context

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        wait = seconds_paused(request.POST.get("username", ""), client_address(request))
        if not wait:
            return super().post(request, *args, **kwargs)
        # The password is not even tried while paused: guessing on gains nothing.
        form = self.get_form_class()(request, initial={"username": request.POST.get("username", "")})
        minutes = (wait + 59) // 60
        message = ngettext(
            "Too many failed logins. Try again in %(minutes)d minute.",
            "Too many failed logins. Try again in %(minutes)d minutes.",
            minutes,
        ) % {"minutes": minutes}
        context = self.get_context_data(form=form, paused_message=message)
        response = self.render_to_response(context, status=429)
        response["Retry-After"] = str(wait)
        return response


class TokenForm(forms.Form):
    # What a new token may last, by the value the form sends; None never expires.
    LIFETIMES = {"30": timedelta(days=30), "90": DEFAULT_LIFETIME, "365": timedelta(days=365), "never": None}
    DEFAULT = "90"

    name = forms.CharField(
        label=_("What the token is for"),
        max_length=100,
        help_text=_("For example: nightly batch, or the name of a script"),
    )
    lifetime = forms.ChoiceField(
        label=_("Valid for"),
        choices=[("30", _("30 days")), ("90", _("90 days")), ("365", _("1 year")), ("never", _("Never expires"))],
        initial=DEFAULT,
        required=False,  # a post without it gets the default
    )

    def clean_lifetime(self) -> timedelta | None:
        return self.LIFETIMES[self.cleaned_data["lifetime"] or self.DEFAULT]


# Where a new token's key waits in the session for the one page that shows it.
NEW_KEY_SESSION = "citeview_new_token_key"


@require_http_methods(["GET", "POST"])
def account_page(request: HttpRequest) -> HttpResponse:
    """The user's role and API tokens. A token is made by a post, which redirects here, so reloading
    the page never makes another; its key waits in the session for that next page, which shows it
    once and forgets it (it is never in a URL)."""
    form = TokenForm(request.POST if request.method == "POST" else None)
    if form.is_valid():
        _token, key = token_create(
            user=request.user, name=form.cleaned_data["name"], lifetime=form.cleaned_data["lifetime"]
        )
        request.session[NEW_KEY_SESSION] = key
        return redirect("account")
    context = {
        "form": form,
        "tokens": ApiToken.objects.filter(user=cast(User, request.user)),  # signed in: LoginRequiredMiddleware
        "new_key": request.session.pop(NEW_KEY_SESSION, None) if request.method == "GET" else None,
        "role": roles.role_name(request.user),
    }
    response = render(request, "accounts/account.html", context, status=400 if form.errors else 200)
    response["Cache-Control"] = "no-store"  # the key must not stay in a cache
    return response


@require_POST
def token_revoke_view(request: HttpRequest, pk: int) -> HttpResponse:
    if not token_revoke(user=request.user, pk=pk):
        raise Http404("You have no such token.")
    messages.success(request, _("The token is revoked: the API refuses it from now on."))
    return redirect("account")


SIGNED_OUT = _("You are logged out. The drafts of checks this browser kept are removed.")
FORGET_DRAFTS = "cv-signed-out"  # a message's tag: the page showing it removes the drafts


@login_not_required
@require_POST
def logout_view(request: HttpRequest) -> HttpResponse:
    """Sign out: citeview's session ends, and the provider's too where the user signed in through one
    that can end it (``oidc.provider_logout_url``, read before the session ends). The way to the
    provider is a page that goes on by itself, not a redirect: the Content-Security-Policy's
    form-action lets a form's answer redirect to citeview alone. Either page removes the drafts of
    checks this browser keeps, everyone's: the next person at a shared machine must not read them."""
    where = provider_logout_url(request)
    auth.logout(request)
    if where is None:
        # The page it leads to removes the check drafts kept in this browser (check.js, by the tag);
        # the page on the way to the provider does the same.
        messages.info(request, SIGNED_OUT, extra_tags=FORGET_DRAFTS)
        return redirect(settings.LOGOUT_REDIRECT_URL)
    return render(request, "registration/signing_out.html", {"provider_logout_url": where})
