from django.urls import path, re_path

from citeview.api import views

app_name = "api"
urlpatterns = [
    path("openapi.json", views.openapi, name="openapi"),
    path("dumps", views.dumps_collection, name="dumps"),
    path("dumps/<int:pk>", views.dump_item, name="dump"),
    path("dumps/<int:pk>/status", views.dump_status, name="dump_status"),
    path("dumps/<int:pk>/checks", views.dump_checks, name="checks"),
    path("dumps/<int:pk>/assignees", views.dump_assignees, name="assignees"),
    path("dumps/<int:pk>/report", views.dump_report_json, name="report"),
    path("dumps/<int:pk>/report.md", views.dump_report_markdown, name="report_md"),
    path("metrics", views.metrics, name="metrics"),
    path("plans", views.plans, name="plans"),
    path("plans/<int:pk>", views.plan_item, name="plan"),
    path("imports", views.imports, name="imports"),
    re_path(r"^(?P<path>.*)$", views.unknown_path),  # answered in the API's JSON, not with a page
]
