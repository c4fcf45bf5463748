"""Issue 33: a webhook delivery goes through the task queue to a real worker; a delivery the receiver
refuses is tried again after its wait (the queue holds the task until then), not at once.

Issue 42: deliveries have a queue of their own, served by a worker of their own (as `make run`
starts one): a receiver that holds its delivery (the issue's found one waited 10 s, the timeout) holds
that worker alone, and a dump's read on the `default` queue finishes meanwhile."""

from __future__ import annotations

import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from citeview.dumps.models import Dump, WorkerHeartbeat
from citeview.dumps.services import dump_ingest
from citeview.webhooks.models import DeliveryState, WebhookDelivery, WebhookEndpoint
from tests.conftest import own_fixture
from tests.review.test_settling import SEED
from tests.tasks.test_workers import sonar
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


def test_a_receiver_holding_its_delivery_does_not_delay_a_dump_read(
    editor, editor_client, settings, database_queue, blob_folder
):
    with receiver() as hooks:
        made = WebhookEndpoint.objects.create(url=hooks.url, events=["dump.stored"])
        hooks.secret, hooks.answers = made.secret, [None]  # held until this test lets it go
        dump_ingest(raw=own_fixture(SEED), uploaded_by=editor, filename=SEED)
        held = WebhookDelivery.objects.get()
        # The workers `make run` starts (scripts/serve). The delivery's timeout is longer than the
        # test, so that only the receiver decides how long it is held.
        workers = [
            start_worker(
                "hooks",
                blob_folder,
                "--queue-name",
                "webhooks",
                CITEVIEW_WEBHOOK_TIMEOUT_SECONDS="120",
                CITEVIEW_WEBHOOK_ALLOW_NETWORKS="127.0.0.1/32",
            ),
            start_worker("reads", blob_folder, "--queue-name", "default,snapshots"),
        ]
        try:
            wait_for(lambda: len(hooks.received) == 1 and WorkerHeartbeat.objects.filter(worker_id="reads").exists())
            settings.CITEVIEW_READ_IN_TASK_ABOVE = 100  # the next dump is read by a worker
            started = time.monotonic()
            editor_client.post("/", {"file": SimpleUploadedFile("big.json", sonar("待たされない読み込み[1]"))})
            wait_for(lambda: Dump.objects.filter(read_state="ready", filename="big.json").exists(), seconds=60)
            took = time.monotonic() - started
            held.refresh_from_db()
            assert held.state == DeliveryState.SENDING and len(hooks.received) == 1  # still held meanwhile
            assert took < 8, f"the read took {took:.1f} s beside a held delivery"  # the issue's: 10 s a delivery
            hooks.release.set()
            wait_for(lambda: WebhookDelivery.objects.filter(state=DeliveryState.DELIVERED).count() == 2)
        finally:
            hooks.release.set()
            for worker in workers:
                worker.terminate()
                worker.wait()
