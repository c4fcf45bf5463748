from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SnapshotsConfig(AppConfig):
    name = "citeview.snapshots"
    verbose_name = _("Source snapshots")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from citeview.snapshots import signals  # noqa: F401  (connects the receivers)
