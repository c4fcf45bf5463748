from __future__ import annotations

from typing import Any

from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse
from django.utils.translation import ngettext

from citeview.accounts.throttle import client_address, seconds_paused


class LoginView(auth_views.LoginView):
    """Django's login, paused for a while after repeated failures (HTTP 429, saying for how long)."""

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
