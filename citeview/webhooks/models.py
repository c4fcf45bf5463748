"""Webhooks (Standard Webhooks): the endpoints staff register, each with its secret and the events it
wants, and every delivery made to them, with its attempts, for the admin's delivery log."""

from __future__ import annotations

import base64
import secrets

from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

# Each event a pipeline can ask for, with what it says.
EVENTS = (
    ("dump.stored", _("A dump is stored and read, ready to check")),
    ("dump.read_failed", _("A stored dump could not be read")),
    ("check.saved", _("An editor saved a check")),
    ("dump.fully_checked", _("Every item of a dump has the independent checks it needs")),
    ("disagreement.settled", _("A lead settled a disagreement between editors")),
)
EVENT_NAMES = tuple(name for name, _label in EVENTS)


def new_secret() -> str:
    """A signing secret as Standard Webhooks writes one: ``whsec_`` and 32 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


class WebhookEndpoint(models.Model):
    url = models.URLField(
        _("URL"), max_length=2000, help_text=_("http or https; posted to under the fetcher's address rules.")
    )
    description = models.CharField(_("description"), max_length=200, blank=True)
    secret = models.CharField(_("signing secret"), max_length=100, default=new_secret, editable=False)
    events = models.JSONField(_("events"), default=list)
    # Blind first: a check.saved payload names the item and the editor, and carries the verdict only
    # to an endpoint for reviewers (who read every verdict in citeview too).
    for_reviewers = models.BooleanField(
        _("for reviewers"), default=False, help_text=_("Send each check's verdict; otherwise only which item and who.")
    )
    active = models.BooleanField(_("active"), default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("webhook endpoint")
        verbose_name_plural = _("webhook endpoints")

    def __str__(self) -> str:
        return self.description or self.url


class DeliveryState(models.TextChoices):
    PENDING = "pending", _("waiting to be sent")
    RETRYING = "retrying", _("failed, to be tried again")
    SENDING = "sending", _("being sent")
    DELIVERED = "delivered", _("delivered")
    FAILED = "failed", _("given up")
    DROPPED = "dropped", _("dropped")


# Waiting for a worker: these alone count towards an endpoint's cap, and these alone may be dropped
# (one being sent never is).
WAITING_STATES = (DeliveryState.PENDING, DeliveryState.RETRYING)


class WebhookDelivery(models.Model):
    """One event for one endpoint: its message (the body as signed, its id for the receiver to drop
    a repeat) and how sending it went."""

    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=40)
    message_id = models.CharField(max_length=40, unique=True)
    body = models.TextField()  # the JSON as sent and signed
    state = models.CharField(max_length=10, choices=DeliveryState.choices, default=DeliveryState.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    last_status = models.PositiveIntegerField(null=True, blank=True)  # the HTTP status of the last answer
    last_error = models.TextField(blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    # The cap on waiting deliveries for its endpoint (CITEVIEW_WEBHOOK_WAITING_PER_ENDPOINT) that it was
    # dropped past, for the log to say; None for a delivery never dropped.
    dropped_past = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        verbose_name = _("webhook delivery")
        verbose_name_plural = _("webhook deliveries")
        ordering = ("-created_at", "-id")
        # Each new delivery counts its endpoint's waiting ones (the cap): only those, however long the log.
        indexes = [
            models.Index(
                fields=["endpoint", "-id"],
                condition=models.Q(state__in=["pending", "retrying"]),
                name="webhooks_delivery_waiting",
            )
        ]

    def __str__(self) -> str:
        return f"{self.event} → {self.endpoint}"

    def state_said(self) -> str:
        """Its state in the reader's language; a dropped one says why."""
        if self.state == DeliveryState.DROPPED and self.dropped_past is not None:
            return gettext("dropped: more than %(cap)d waiting for this endpoint") % {"cap": self.dropped_past}
        return str(self.get_state_display())
