"""A dump's own addresses: the import and the raw bytes. ``citeview/urls.py`` names them ``dumps:``
beside the list and the viewer (``citeview.pages``), as links have always called them."""

from django.urls import path

from citeview.dumps import views

urlpatterns = [
    path("imports/", views.bulk_import, name="import"),
    path("dumps/<int:pk>/raw", views.dump_raw, name="raw"),
]
