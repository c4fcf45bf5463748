from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from citeview.dumps.models import Assignment, Dump, Tag
from citeview.dumps.services import dump_changed


@admin.register(Tag)
class TagAdmin(admin.ModelAdmin):
    search_fields = ("name",)


class AssignmentInline(admin.TabularInline):
    """Read here; assigned on the dump's page, the list or the API, which say when an editor assigned
    could already read the verdicts (``citeview.review.services.editors_assign``)."""

    model = Assignment
    fk_name = "dump"
    extra = 0
    can_delete = False
    readonly_fields = ("editor", "assigned_by", "assigned_at")

    def has_add_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False


@admin.register(Dump)
class DumpAdmin(admin.ModelAdmin):
    list_display = ("__str__", "apis", "status", "citation_count", "unresolved_count", "assigned", "created_at")
    list_filter = ("status", "providers", "tags")
    search_fields = ("title", "filename", "headline", "sha256")
    exclude = ("result", "rendered", "search_text")
    filter_horizontal = ("tags",)
    inlines = [AssignmentInline]
    readonly_fields = (
        "sha256",
        "size",
        "request_sha256",
        "filename",
        "uploaded_by",
        "request_attached_by",
        "request_attached_at",
        "checks_needed",
        "checked_item_count",
        "complete_item_count",
        *(f for f in Dump.DERIVED_FIELDS if f not in ("result", "rendered", "search_text")),
    )

    def get_queryset(self, request):  # type: ignore[no-untyped-def]
        return super().get_queryset(request).prefetch_related("assignees")

    @admin.display(description=_("assigned to"))
    def assigned(self, dump: Dump) -> str:
        return ", ".join(editor.get_username() for editor in dump.assignees.all())

    def save_related(self, request, form, formsets, change) -> None:  # type: ignore[no-untyped-def]
        super().save_related(request, form, formsets, change)
        dump_changed(dump=form.instance)  # the pages' kept fragments show the title and tags
