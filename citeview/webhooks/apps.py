from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WebhooksConfig(AppConfig):
    name = "citeview.webhooks"
    verbose_name = _("Webhooks")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from citeview.webhooks import receivers  # noqa: F401  (connects the receivers)
