from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.urls import include, path
from django.views.decorators.csrf import csrf_protect
from django.views.i18n import set_language

from citeview.accounts.views import LoginView

urlpatterns = [
    path("", include("citeview.dumps.urls")),
    path("", include("citeview.review.urls")),
    path("api/", include("citeview.dumps.api_urls")),
    path("accounts/login/", LoginView.as_view(), name="login"),
    path("accounts/logout/", csrf_protect(auth_views.LogoutView.as_view()), name="logout"),
    path("admin/", admin.site.urls),
    # The language switch works before logging in too.
    path("i18n/setlang/", login_not_required(set_language), name="set_language"),
]
