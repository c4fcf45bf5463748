"""Webhook deliveries, sent by a worker: a receiver may take seconds to answer, or never."""

from __future__ import annotations

from django.tasks import task


@task
def deliver_webhook(delivery_id: int) -> str:
    """Send the webhook delivery ``delivery_id`` once; returns the state it is left in."""
    from citeview.webhooks.services import webhook_delivery_attempt  # services queue this task

    return webhook_delivery_attempt(pk=delivery_id)
