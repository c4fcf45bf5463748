from django.urls import path

from citeview.review import exports, plan_exports, plan_views, snapshot_views, views

app_name = "review"
urlpatterns = [
    path("dumps/<int:pk>/check/", views.check_start, name="start"),
    # Before an item's address: "undo" and "not-claims" are no item's key, but would read as one.
    path("dumps/<int:pk>/check/undo/", views.undo_last_save, name="undo"),
    path("dumps/<int:pk>/check/not-claims/", views.mark_not_claims, name="not_claims"),
    path("dumps/<int:pk>/check/<slug:key>/", views.check_item, name="item"),
    path("dumps/<int:pk>/check/<slug:key>/settle/", views.settle_item, name="settle"),
    path("dumps/<int:pk>/check/<slug:key>/snapshot/", snapshot_views.snapshot_take, name="snapshot"),
    path("dumps/<int:pk>/check/<slug:key>/snapshot/status", snapshot_views.snapshot_status, name="snapshot_status"),
    path("dumps/<int:pk>/checked/", views.check_done, name="done"),
    path("dumps/<int:pk>/problems/", views.problems, name="problems"),
    path("dumps/<int:pk>/assign/", views.assign, name="assign"),
    path("dumps/assign/", views.assign_many, name="assign_many"),
    path("queue/", views.queue, name="queue"),
    path("settle/", views.settle_queue, name="settle_queue"),
    path("plans/", plan_views.plan_list, name="plans"),
    path("plans/new/", plan_views.plan_new, name="plan_new"),
    path("plans/<int:pk>/", plan_views.plan_detail, name="plan"),
    path("plans/<int:pk>/check/", plan_views.plan_check_start, name="plan_check"),
    path("dumps/<int:pk>/comments/", views.comment_create, name="comment"),
    path("dumps/<int:pk>/report/", exports.report_page, name="report"),
    path("dumps/<int:pk>/report.md", exports.report_md, name="report_md"),
    path("dumps/<int:pk>/report.json", exports.report_json, name="report_json"),
    path("figures/", exports.figures_page, name="figures"),
    path("figures.json", exports.figures_json, name="figures_json"),
    path("verdicts.csv", exports.verdicts_csv, name="verdicts_csv"),
    path("verdicts.jsonl", exports.verdicts_jsonl, name="verdicts_jsonl"),
    # A check plan's estimates to take away (the plan's pages are ``plan_views``).
    path("plans/<int:pk>/report.md", plan_exports.plan_report_md, name="plan_report_md"),
    path("plans/<int:pk>/report.json", plan_exports.plan_report_json, name="plan_report_json"),
    path("plans/<int:pk>/estimates.csv", plan_exports.plan_estimates_csv, name="plan_estimates_csv"),
    path("plans/<int:pk>/estimates.json", plan_exports.plan_estimates_json, name="plan_estimates_json"),
]
