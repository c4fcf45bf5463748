from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


def _ensure_roles(sender: Any, **kwargs: Any) -> None:
    # A migration makes the roles; this remakes them after a database flush (as tests do), which
    # empties every table but runs no migration. The roles are the accounts app's, but they are made
    # here: review comes after dumps in INSTALLED_APPS, so the permissions they name exist by now.
    from django.contrib.auth.models import Group, Permission

    from citeview.accounts.roles import ensure_roles

    ensure_roles(Group, Permission)


class ReviewConfig(AppConfig):
    name = "citeview.review"
    verbose_name = _("Evidence review")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from citeview.dumps.signals import result_rebuilt
        from citeview.review.receivers import recount_rebuilt

        post_migrate.connect(_ensure_roles, sender=self, dispatch_uid="citeview-review-roles")
        result_rebuilt.connect(recount_rebuilt, dispatch_uid="citeview-review-recount-rebuilt")
