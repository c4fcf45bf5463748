from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DumpsConfig(AppConfig):
    name = "citeview.dumps"
    verbose_name = _("Dumps")
