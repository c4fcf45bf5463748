"""A dump's own addresses: the import and the raw bytes. ``citeview/urls.py`` names them ``dumps:``
beside the list and the viewer (``citeview.pages``), as links have always called them."""

from django.urls import path

from citeview.dumps import views

urlpatterns = [
    path("imports/", views.bulk_import, name="import"),
    path("imports/<int:pk>/", views.import_progress_page, name="import_progress"),
    path("imports/<int:pk>/rows", views.import_progress_rows, name="import_progress_rows"),
    path("dumps/<int:pk>/raw", views.dump_raw, name="raw"),
    path("dumps/<int:pk>/reading", views.dump_reading, name="reading"),
    path("dumps/<int:pk>/read-again", views.dump_read_again, name="read_again"),
]
