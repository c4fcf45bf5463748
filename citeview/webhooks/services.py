"""Webhook deliveries: a message for each active endpoint that wants the event, sent through the
task queue, signed as Standard Webhooks signs (the ``standardwebhooks`` package), tried again after
each wait of ``CITEVIEW_WEBHOOK_RETRY_SECONDS`` while it fails, and given up after the last one.
Every attempt is written to the delivery's row: the admin's delivery log."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from standardwebhooks.webhooks import Webhook

from citeview.snapshots.fetch import FetchError, post
from citeview.webhooks.events import message
from citeview.webhooks.models import DeliveryState, WebhookDelivery, WebhookEndpoint
from citeview.webhooks.tasks import deliver_webhook

# A refusal that no second try changes: the endpoint's address itself is refused or invalid.
REFUSED_FOR_GOOD = frozenset({"invalid_url", "scheme", "credentials", "no_host", "forbidden_address", "forbidden_port"})
# What is kept of a failure's words in the log.
ERROR_CHARS = 500


def deliveries_queue(event: str, data_for: Callable[[WebhookEndpoint], dict[str, Any] | None]) -> list[WebhookDelivery]:
    """A delivery of ``event`` to each active endpoint that wants it, its data made for that endpoint
    (``data_for`` says None when what the event was about is gone), each queued to be sent."""
    endpoints = [e for e in WebhookEndpoint.objects.filter(active=True) if event in e.events]
    deliveries = []
    now = timezone.now()
    for endpoint in endpoints:
        data = data_for(endpoint)
        if data is None:
            continue
        body = json.dumps(message(event, data, now), ensure_ascii=False, separators=(",", ":"))
        deliveries.append(
            WebhookDelivery.objects.create(
                endpoint=endpoint, event=event, message_id=f"msg_{uuid.uuid4().hex}", body=body
            )
        )
    for delivery in deliveries:
        transaction.on_commit(_enqueuer(delivery.pk))
    return deliveries


def _enqueuer(pk: int) -> Callable[[], None]:
    def enqueue() -> None:
        deliver_webhook.enqueue(pk)

    return enqueue


def webhook_delivery_attempt(*, pk: int) -> str:
    """Send the delivery ``pk`` once, and write how it went: delivered on a 2xx answer; otherwise
    queued again after the next wait, or given up after the last wait or when the address is refused.
    A delivery delivered or given up already is left alone. Returns the state it is left in."""
    delivery = WebhookDelivery.objects.select_related("endpoint").filter(pk=pk).first()
    if delivery is None:
        return "gone"
    if delivery.state in (DeliveryState.DELIVERED, DeliveryState.FAILED):
        return str(delivery.state)
    status, error, for_good = _sent(delivery)
    delivery.attempts += 1
    delivery.last_status = status
    delivery.last_error = error[:ERROR_CHARS]
    waits = settings.CITEVIEW_WEBHOOK_RETRY_SECONDS
    if not error:
        delivery.state, delivery.delivered_at, delivery.next_attempt_at = DeliveryState.DELIVERED, timezone.now(), None
    elif for_good or delivery.attempts > len(waits):
        delivery.state, delivery.next_attempt_at = DeliveryState.FAILED, None
    else:
        delivery.state = DeliveryState.RETRYING
        delivery.next_attempt_at = timezone.now() + timedelta(seconds=waits[delivery.attempts - 1])
    delivery.save(update_fields=["attempts", "last_status", "last_error", "state", "delivered_at", "next_attempt_at"])
    if delivery.state == DeliveryState.RETRYING:
        _queue_again(delivery)
    return str(delivery.state)


def _sent(delivery: WebhookDelivery) -> tuple[int | None, str, bool]:
    """The answer's status, the failure in words ("" when delivered), and whether it is for good."""
    body = delivery.body.encode("utf-8")
    now = timezone.now()
    headers = {
        "Content-Type": "application/json",
        "webhook-id": delivery.message_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": Webhook(delivery.endpoint.secret).sign(delivery.message_id, now, body),
    }
    try:
        status = post(
            delivery.endpoint.url,
            body,
            headers,
            allow_networks=settings.CITEVIEW_WEBHOOK_ALLOW_NETWORKS,
            total_timeout=settings.CITEVIEW_WEBHOOK_TIMEOUT_SECONDS,
        )
    except FetchError as refused:
        return refused.status, refused.message, refused.code in REFUSED_FOR_GOOD
    return status, "" if 200 <= status < 300 else f"HTTP {status}", False


def _queue_again(delivery: WebhookDelivery) -> None:
    """The next attempt, after its wait where the queue can wait (a deployment's); at once otherwise."""
    if deliver_webhook.get_backend().supports_defer and delivery.next_attempt_at is not None:
        deliver_webhook.using(run_after=delivery.next_attempt_at).enqueue(delivery.pk)
    else:
        deliver_webhook.enqueue(delivery.pk)


def webhook_send_again(*, delivery: WebhookDelivery) -> WebhookDelivery:
    """Send a given-up delivery again (the admin's action), as a new series of attempts."""
    WebhookDelivery.objects.filter(pk=delivery.pk).update(
        state=DeliveryState.PENDING, attempts=0, next_attempt_at=None, last_error=""
    )
    transaction.on_commit(_enqueuer(delivery.pk))
    delivery.refresh_from_db()
    return delivery
