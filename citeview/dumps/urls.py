from django.urls import path

from citeview.dumps import views

app_name = "dumps"
urlpatterns = [
    path("", views.home, name="home"),
    path("imports/", views.bulk_import, name="import"),
    path("dumps/<int:pk>/", views.dump_detail, name="detail"),
    path("dumps/<int:pk>/normalized.json", views.dump_normalized, name="normalized"),
    path("dumps/<int:pk>/raw", views.dump_raw, name="raw"),
    path("dumps/<int:pk>/responses/<int:index>/search-suggestions", views.dump_suggestions, name="suggestions"),
]
