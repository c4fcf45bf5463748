"""Staff register webhook endpoints here (the URL, the events, whether it is for reviewers; the
signing secret is made for them and shown to copy), and read the delivery log."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.text import format_lazy
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from citeview.snapshots.fetch import literal_refusal
from citeview.webhooks.models import EVENTS, DeliveryState, WebhookDelivery, WebhookEndpoint
from citeview.webhooks.services import webhook_send_again


class WebhookEndpointForm(forms.ModelForm):
    # Each by the type a receiver reads in its messages, and what it means.
    events = forms.MultipleChoiceField(
        label=_("events"),
        choices=[(name, format_lazy("{name} — {label}", name=name, label=label)) for name, label in EVENTS],
        widget=forms.CheckboxSelectMultiple,
        required=True,
    )

    class Meta:
        model = WebhookEndpoint
        fields = ("url", "description", "events", "for_reviewers", "active")

    def clean_url(self) -> str:
        """The address rules deliveries follow, said when the endpoint is saved rather than when its
        first delivery fails: the URL's form, and an address it writes that is not public (a host
        name's answer is checked at each delivery)."""
        url = str(self.cleaned_data["url"])
        if not url.lower().startswith(("http://", "https://")):
            raise forms.ValidationError(_("A webhook's URL starts with http:// or https://."))
        refused = literal_refusal(url, settings.CITEVIEW_WEBHOOK_ALLOW_NETWORKS)
        if refused is not None:
            raise forms.ValidationError(
                format_lazy(
                    "{refusal} {advice}",
                    refusal=refused.phrase.text(gettext),
                    advice=_("CITEVIEW_WEBHOOK_ALLOW_NETWORKS lets deliveries reach a network that is not public."),
                )
            )
        return url


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(admin.ModelAdmin):
    form = WebhookEndpointForm
    list_display = ("__str__", "url", "event_list", "for_reviewers", "active", "created_at")
    list_filter = ("active", "for_reviewers")
    readonly_fields = ("secret", "created_at")

    def get_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        fields = ("url", "description", "events", "for_reviewers", "active")
        # The secret is made on saving: shown once there is one, to copy into the receiver's settings.
        return (*fields, "secret", "created_at") if obj is not None else fields

    @admin.display(description=_("events"))
    def event_list(self, obj: WebhookEndpoint) -> str:
        return ", ".join(obj.events)


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    """The delivery log: read here, never edited; a delivery given up can be sent again."""

    list_display = (
        "created_at",
        "event",
        "endpoint",
        "state_said",
        "attempts",
        "last_status",
        "last_error",
        "next_attempt_at",
    )
    list_filter = ("state", "event", "endpoint")
    search_fields = ("message_id",)
    readonly_fields = (
        "endpoint",
        "event",
        "message_id",
        "state_said",
        "attempts",
        "last_status",
        "last_error",
        "next_attempt_at",
        "created_at",
        "delivered_at",
        "body",
    )
    actions = ["send_again"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description=_("state"), ordering="state")
    def state_said(self, obj: WebhookDelivery) -> str:
        return obj.state_said()

    @admin.action(description=_("Send the chosen deliveries again"))
    def send_again(self, request: HttpRequest, queryset: QuerySet[WebhookDelivery]) -> None:
        deliveries = list(queryset)
        count = sum(webhook_send_again(delivery=delivery) for delivery in deliveries)  # not those on their way
        message = ngettext(
            "%(n)d delivery is queued to be sent again.", "%(n)d deliveries are queued to be sent again.", count
        )
        self.message_user(request, message % {"n": count}, messages.SUCCESS)
        # More chosen than an endpoint may have waiting: the oldest of them are dropped at once.
        chosen = [delivery.pk for delivery in deliveries]
        dropped = WebhookDelivery.objects.filter(pk__in=chosen, state=DeliveryState.DROPPED).count()
        if dropped:
            said = ngettext(
                "%(n)d of them was dropped: more than %(cap)d waiting for its endpoint.",
                "%(n)d of them were dropped: more than %(cap)d waiting for their endpoint.",
                dropped,
            )
            cap = settings.CITEVIEW_WEBHOOK_WAITING_PER_ENDPOINT
            self.message_user(request, said % {"n": dropped, "cap": cap}, messages.WARNING)
