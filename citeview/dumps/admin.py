from django.contrib import admin

from citeview.dumps.models import Dump, Tag
from citeview.dumps.services import dump_changed


@admin.register(Tag)
class TagAdmin(admin.ModelAdmin):
    search_fields = ("name",)


@admin.register(Dump)
class DumpAdmin(admin.ModelAdmin):
    list_display = ("__str__", "apis", "status", "citation_count", "unresolved_count", "assignee", "created_at")
    list_filter = ("status", "providers", "tags")
    search_fields = ("title", "filename", "headline", "sha256")
    exclude = ("result", "rendered", "search_text")
    filter_horizontal = ("tags",)
    readonly_fields = (
        "sha256",
        "size",
        "request_sha256",
        "filename",
        "uploaded_by",
        "request_attached_by",
        "request_attached_at",
        "checked_item_count",
        *(f for f in Dump.DERIVED_FIELDS if f not in ("result", "rendered", "search_text")),
    )

    def save_related(self, request, form, formsets, change) -> None:  # type: ignore[no-untyped-def]
        super().save_related(request, form, formsets, change)
        dump_changed(dump=form.instance)  # the pages' kept fragments show the title, tags and assignee
