"""Webhook deliveries: a message for each active endpoint that wants the event, sent through the
task queue, signed as Standard Webhooks signs (the ``standardwebhooks`` package), tried again after
each wait of ``CITEVIEW_WEBHOOK_RETRY_SECONDS`` while it fails, and given up after the last one.
Every attempt is written to the delivery's row: the admin's delivery log.

An endpoint has at most ``CITEVIEW_WEBHOOK_WAITING_PER_ENDPOINT`` deliveries waiting (pending, or
failed and to be tried again): a new one past it drops the oldest waiting, which are logged as
dropped and whose queued task then sends nothing. A delivery's state moves by conditional UPDATEs,
so that dropping one and a worker starting to send it cannot both happen: the drop takes only a
waiting delivery, and the worker takes one to *sending* only if it is not dropped."""

from __future__ import annotations

import json
import logging
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
from citeview.webhooks.models import WAITING_STATES, DeliveryState, WebhookDelivery, WebhookEndpoint
from citeview.webhooks.tasks import deliver_webhook

logger = logging.getLogger(__name__)

# A refusal that no second try changes: the endpoint's address itself is refused or invalid.
REFUSED_FOR_GOOD = frozenset({"invalid_url", "scheme", "credentials", "no_host", "forbidden_address", "forbidden_port"})
# What is kept of a failure's words in the log.
ERROR_CHARS = 500


def deliveries_queue(event: str, data_for: Callable[[WebhookEndpoint], dict[str, Any] | None]) -> list[WebhookDelivery]:
    """A delivery of ``event`` to each active endpoint that wants it, its data made for that endpoint
    (``data_for`` says None when what the event was about is gone), each queued to be sent; past an
    endpoint's cap, its oldest waiting deliveries are dropped."""
    # In the order of their ids, so that two events at once lock the endpoints in one order.
    endpoints = [e for e in WebhookEndpoint.objects.filter(active=True).order_by("pk") if event in e.events]
    deliveries = []
    now = timezone.now()
    for endpoint in endpoints:
        data = data_for(endpoint)
        if data is None:
            continue
        body = json.dumps(message(event, data, now), ensure_ascii=False, separators=(",", ":"))
        deliveries.append(_delivery_queue(endpoint, event, body))
    return deliveries


def _delivery_queue(endpoint: WebhookEndpoint, event: str, body: str) -> WebhookDelivery:
    """One delivery written, the endpoint held to its cap, and the delivery queued once that is kept.
    Events for one endpoint are written one at a time (its row locked on PostgreSQL; SQLite's
    IMMEDIATE transactions write one at a time anyway), so two at once count each other's."""
    with transaction.atomic():
        _endpoint_lock(endpoint.pk)
        delivery = WebhookDelivery.objects.create(
            endpoint=endpoint, event=event, message_id=f"msg_{uuid.uuid4().hex}", body=body
        )
        _waiting_past_cap_drop(endpoint.pk)
        transaction.on_commit(_enqueuer(delivery.pk))
    return delivery


def _endpoint_lock(endpoint_id: int) -> None:
    """Hold the endpoint's row until the transaction ends: whatever adds a waiting delivery to it
    takes this first, so that two at once never both count the cap as not reached."""
    list(WebhookEndpoint.objects.select_for_update().filter(pk=endpoint_id).values_list("pk", flat=True))


def _waiting_past_cap_drop(endpoint_id: int) -> int:
    """Drop the endpoint's oldest waiting deliveries beyond the newest ``CITEVIEW_WEBHOOK_WAITING_PER_ENDPOINT``
    (called holding ``_endpoint_lock``); returns how many. Only one still waiting is dropped: one a
    worker started sending meanwhile is not."""
    cap = settings.CITEVIEW_WEBHOOK_WAITING_PER_ENDPOINT
    waiting = WebhookDelivery.objects.filter(endpoint_id=endpoint_id, state__in=WAITING_STATES)
    past_cap = list(waiting.order_by("-id").values_list("pk", flat=True)[cap:])
    if not past_cap:
        return 0
    return waiting.filter(pk__in=past_cap).update(state=DeliveryState.DROPPED, next_attempt_at=None, dropped_past=cap)


def _enqueuer(pk: int) -> Callable[[], None]:
    def enqueue() -> None:
        deliver_webhook.enqueue(pk)

    return enqueue


def webhook_delivery_attempt(*, pk: int) -> str:
    """Send the delivery ``pk`` once, and write how it went: delivered on a 2xx answer; otherwise
    queued again after the next wait, or given up after the last wait or when the address is refused.
    A delivery delivered, given up or dropped already is left alone. Returns the state it is left in."""
    # Taken to *sending* only if it waits (or was being sent by a worker that died): a delivery
    # delivered, given up or dropped is left alone, and from now on it cannot be dropped.
    taken = WebhookDelivery.objects.filter(pk=pk, state__in=[*WAITING_STATES, DeliveryState.SENDING])
    if not taken.update(state=DeliveryState.SENDING):
        return str(WebhookDelivery.objects.filter(pk=pk).values_list("state", flat=True).first() or "gone")
    delivery = WebhookDelivery.objects.select_related("endpoint").get(pk=pk)
    try:
        status, error, for_good = _sent(delivery)
    except Exception as unforeseen:  # anything else (signing, a library's bug) fails this attempt, never the state
        logger.exception("Webhook delivery %s failed unexpectedly", pk)
        status, error, for_good = None, f"{type(unforeseen).__name__}: {unforeseen}", False
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
    with transaction.atomic():
        _endpoint_lock(delivery.endpoint_id)
        delivery.save(
            update_fields=["attempts", "last_status", "last_error", "state", "delivered_at", "next_attempt_at"]
        )
        # Waiting again, it counts towards the cap like a new delivery: past it, the oldest waiting
        # (perhaps this one) are dropped.
        if delivery.state == DeliveryState.RETRYING and _waiting_past_cap_drop(delivery.endpoint_id):
            delivery.refresh_from_db(fields=["state"])
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


def webhook_send_again(*, delivery: WebhookDelivery) -> bool:
    """Send a delivery again (the admin's action: one given up, dropped or delivered), as a new series
    of attempts, held to its endpoint's cap like a new one. One waiting or being sent is on its way
    already, and left as it is. Returns whether it was queued again."""
    with transaction.atomic():
        _endpoint_lock(delivery.endpoint_id)
        again = (
            WebhookDelivery.objects.filter(pk=delivery.pk)
            .exclude(state__in=[*WAITING_STATES, DeliveryState.SENDING])
            .update(state=DeliveryState.PENDING, attempts=0, next_attempt_at=None, last_error="", dropped_past=None)
        )
        if again:
            _waiting_past_cap_drop(delivery.endpoint_id)
            transaction.on_commit(_enqueuer(delivery.pk))
    delivery.refresh_from_db()
    return bool(again)
