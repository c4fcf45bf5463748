from django.urls import path

from citeview.dumps import api

app_name = "api"
urlpatterns = [
    path("dumps", api.dumps_collection, name="dumps"),
    path("dumps/<int:pk>", api.dump_item, name="dump"),
]
