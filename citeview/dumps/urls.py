"""The dumps app's addresses: the import, a dump's raw bytes, its reading by a worker, and its title,
tags and assignee. The list and the viewer are ``pages:``."""

from django.urls import path

from citeview.dumps import views

app_name = "dumps"
urlpatterns = [
    path("imports/", views.bulk_import, name="import"),
    path("imports/<int:pk>/", views.import_progress_page, name="import_progress"),
    path("imports/<int:pk>/rows", views.import_progress_rows, name="import_progress_rows"),
    path("dumps/<int:pk>/raw", views.dump_raw, name="raw"),
    path("dumps/<int:pk>/reading", views.dump_reading, name="reading"),
    path("dumps/<int:pk>/read-again", views.dump_read_again, name="read_again"),
    path("dumps/<int:pk>/details/", views.dump_details, name="details"),
]
