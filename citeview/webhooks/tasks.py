"""Webhook deliveries, sent by a worker: a receiver may take seconds to answer, or never.

Deliveries have a queue of their own, so that a receiver that is slow (each attempt may wait
``CITEVIEW_WEBHOOK_TIMEOUT_SECONDS``) holds only the workers given to it, never the dumps' reads
(docs/deploying.md, "Slow work and workers"). A worker that takes every queue runs them last: below the dumps'
work and below fetches, which an editor waits for on the page.
"""

from __future__ import annotations

from django.tasks import task
from django.tasks.base import DEFAULT_TASK_PRIORITY

WEBHOOK_QUEUE = "webhooks"  # declared in settings.TASKS["default"]["QUEUES"]
WEBHOOK_PRIORITY = DEFAULT_TASK_PRIORITY - 20  # below citeview.snapshots.tasks.SNAPSHOT_PRIORITY


@task(queue_name=WEBHOOK_QUEUE, priority=WEBHOOK_PRIORITY)
def deliver_webhook(delivery_id: int) -> str:
    """Send the webhook delivery ``delivery_id`` once; returns the state it is left in."""
    from citeview.webhooks.services import webhook_delivery_attempt  # services queue this task

    return webhook_delivery_attempt(pk=delivery_id)
