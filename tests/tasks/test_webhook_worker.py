"""Issue 33: a webhook delivery goes through the task queue to a real worker; a delivery the receiver
refuses is tried again after its wait (the queue holds the task until then), not at once."""

from __future__ import annotations

import pytest

from citeview.dumps.services import dump_ingest
from citeview.webhooks.models import DeliveryState, WebhookDelivery, WebhookEndpoint
from tests.conftest import own_fixture
from tests.review.test_settling import SEED
from tests.tasks.workers import start_worker, wait_for
from tests.webhooks.receiver import receiver

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_refused_delivery_is_sent_again_by_the_worker_after_its_wait(editor, database_queue, blob_folder):
    with receiver() as hooks:
        made = WebhookEndpoint.objects.create(url=hooks.url, events=["dump.stored"])
        hooks.secret, hooks.answers = made.secret, [500, 200]
        dump_ingest(raw=own_fixture(SEED), uploaded_by=editor, filename=SEED)
        assert WebhookDelivery.objects.get().state == DeliveryState.PENDING  # queued, for a worker
        worker = start_worker(
            "webhooks-1",
            blob_folder,
            CITEVIEW_WEBHOOK_ALLOW_NETWORKS="127.0.0.1/32",
            CITEVIEW_WEBHOOK_RETRY_SECONDS="2",
        )
        try:
            wait_for(lambda: WebhookDelivery.objects.get().state == DeliveryState.DELIVERED, seconds=60)
        finally:
            worker.terminate()
            worker.wait()
        first, second = hooks.received
        assert second.at - first.at >= 1.9  # the wait, kept by the queue
        assert first.refusal == second.refusal == "" and first.headers["webhook-id"] == second.headers["webhook-id"]
        assert WebhookDelivery.objects.get().attempts == 2
