"""The list and the viewer, with the viewer's normalised JSON and Search Suggestions frame: pages
composed over dumps and review."""

from django.urls import path

from citeview.pages import views

app_name = "pages"
urlpatterns = [
    path("", views.home, name="home"),
    path("dumps/<int:pk>/", views.dump_detail, name="detail"),
    path("dumps/<int:pk>/normalized.json", views.dump_normalized, name="normalized"),
    path("dumps/<int:pk>/responses/<int:index>/search-suggestions", views.dump_suggestions, name="suggestions"),
]
