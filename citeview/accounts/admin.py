from typing import Any

from django.contrib import admin
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from citeview.accounts.models import ApiToken, OidcIdentity


class TokenExpiryFilter(admin.SimpleListFilter):
    title = _("expiry")
    parameter_name = "state"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("valid", _("not expired")), ("expired", _("expired")), ("never", _("never expires"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> QuerySet[ApiToken]:
        now = timezone.now()  # expired from the instant of expires_at on, as ApiToken.is_expired
        if self.value() == "valid":
            return queryset.filter(Q(expires_at=None) | Q(expires_at__gt=now))
        if self.value() == "expired":
            return queryset.filter(expires_at__lte=now)
        if self.value() == "never":
            return queryset.filter(expires_at=None)
        return queryset


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Staff see and revoke (delete) tokens here. Nobody adds one (its key is shown only once, on its
    owner's account page) or edits one, and the key's hash is never shown."""

    list_display = ("name", "user", "prefix", "created_at", "expires_at", "last_used_at")
    list_filter = (TokenExpiryFilter, "created_at", "last_used_at")
    list_select_related = ("user",)
    search_fields = ("user__username", "name")
    fields = ("user", "name", "prefix", "created_at", "expires_at", "last_used_at")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: ApiToken | None = None) -> bool:
        return False


@admin.register(OidcIdentity)
class OidcIdentityAdmin(admin.ModelAdmin):
    """Which account each of the provider's subjects signs in to. Staff link an account made before
    subjects were stored to the subject the log names (a refused first sign-in says it). A deleted
    link leaves the account linked to no subject, as one from before subjects were stored: the
    subject's next sign-in is refused unless a setting lets its user name take the account
    (``_unlinked_account_to_take``), so leave ``CITEVIEW_OIDC_LINK_EARLIER_ACCOUNTS`` off once the
    upgrade is done. A link is never edited in place: a subject moved to another account would open it."""

    list_display = ("user", "subject", "issuer", "linked_at")
    list_select_related = ("user",)
    search_fields = ("user__username", "subject")
    raw_id_fields = ("user",)
    fields = ("user", "issuer", "subject", "linked_at")
    readonly_fields = ("linked_at",)

    def has_change_permission(self, request: HttpRequest, obj: OidcIdentity | None = None) -> bool:
        return False
