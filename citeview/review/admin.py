from django.contrib import admin

from citeview.dumps.services import dump_changed
from citeview.review.models import Check, CheckRevision, Comment


class CheckRevisionInline(admin.TabularInline):
    model = CheckRevision
    extra = 0
    can_delete = False
    readonly_fields = ("editor", "created_at", "item_version", "before", "after", "is_undo", "undoes", "not_blind")

    def has_add_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False


@admin.register(Check)
class CheckAdmin(admin.ModelAdmin):
    """Checks and settlements are read here, never edited or deleted: every change goes through the check
    panel and its revisions."""

    list_display = ("dump", "item_key", "kind", "editor", "verdict", "is_settlement", "updated_at")
    list_filter = ("kind", "verdict", "is_settlement", "provider")
    search_fields = ("statement_text", "source_url", "note", "editor__username")
    inlines = [CheckRevisionInline]

    def get_queryset(self, request):  # type: ignore[no-untyped-def]
        return Check.rows.all()  # the settlements too (``Check.objects`` is the editors' own checks)

    def has_change_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False

    def has_add_permission(self, request) -> bool:  # type: ignore[no-untyped-def]
        return False

    # The history of checks is append-only (``review.models.KeptQuerySet``): no one deletes a check,
    # a settlement or a revision, staff included.
    def has_delete_permission(self, request, obj=None) -> bool:  # type: ignore[no-untyped-def]
        return False


@admin.register(Comment)
class CommentAdmin(admin.ModelAdmin):
    list_display = ("dump", "item_key", "author", "created_at")
    search_fields = ("text", "author__username")

    # The viewer keeps its comments panel (citeview.dumps.kept_fragments): an edit here must show at once.
    def save_model(self, request, obj, form, change) -> None:  # type: ignore[no-untyped-def]
        super().save_model(request, obj, form, change)
        dump_changed(dump=obj.dump)

    def delete_model(self, request, obj) -> None:  # type: ignore[no-untyped-def]
        super().delete_model(request, obj)
        dump_changed(dump=obj.dump)

    def delete_queryset(self, request, queryset) -> None:  # type: ignore[no-untyped-def]
        dumps = {comment.dump for comment in queryset.select_related("dump")}
        super().delete_queryset(request, queryset)
        for dump in dumps:
            dump_changed(dump=dump)
