from django.contrib import admin

from citeview.dumps.models import Dump


@admin.register(Dump)
class DumpAdmin(admin.ModelAdmin):
    list_display = ("__str__", "apis", "status", "citation_count", "unresolved_count", "uploaded_by", "created_at")
    list_filter = ("status", "apis")
    search_fields = ("filename", "headline", "sha256")
    exclude = ("raw", "result", "rendered")
    readonly_fields = (
        "sha256",
        "size",
        "filename",
        "uploaded_by",
        *(f for f in Dump.DERIVED_FIELDS if f not in ("raw", "result", "rendered")),
    )
