from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.decorators.csrf import csrf_protect

urlpatterns = [
    path("", include("citeview.dumps.urls")),
    path("api/", include("citeview.dumps.api_urls")),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", csrf_protect(auth_views.LogoutView.as_view()), name="logout"),
    path("admin/", admin.site.urls),
]
