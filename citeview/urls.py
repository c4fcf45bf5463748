from django.contrib import admin
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.urls import include, path
from django.views.decorators.csrf import csrf_protect
from django.views.decorators.http import require_GET
from django.views.i18n import set_language

from citeview.accounts.oidc import CallbackView, SignInView
from citeview.accounts.views import LoginView, account_page, logout_view, token_revoke_view


@login_not_required
@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    """For load balancers and monitoring (and the ceiling ``make bench`` compares pages with): no
    database, no session, just proof that the app answers."""
    return HttpResponse("ok", content_type="text/plain; charset=utf-8")


urlpatterns = [
    path("healthz", healthz, name="healthz"),
    # Each app names its own pages: pages: (the list and the viewer), dumps:, review:.
    path("", include("citeview.pages.urls")),
    path("", include("citeview.dumps.urls")),
    path("", include("citeview.review.urls")),
    path("api/", include("citeview.api.urls")),
    path("accounts/login/", LoginView.as_view(), name="login"),
    path("accounts/", account_page, name="account"),
    path("accounts/tokens/<int:pk>/revoke", token_revoke_view, name="token_revoke"),
    path("accounts/logout/", csrf_protect(logout_view), name="logout"),
    # Signing in through the company's identity provider (404 while it is not configured).
    path("oidc/authenticate/", login_not_required(SignInView.as_view()), name="oidc_authentication_init"),
    path("oidc/callback/", login_not_required(CallbackView.as_view()), name="oidc_authentication_callback"),
    path("admin/", admin.site.urls),
    # The language switch works before logging in too.
    path("i18n/setlang/", login_not_required(set_language), name="set_language"),
]
