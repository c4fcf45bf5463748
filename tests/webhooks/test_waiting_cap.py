"""Issue 42, finding 4: an endpoint has at most ``CITEVIEW_WEBHOOK_WAITING_PER_ENDPOINT`` deliveries
waiting. 60 saves through the API with 3 endpoints used to queue a delivery each, 180 waiting however
slow the receivers; past the cap the oldest waiting are dropped, the delivery log says so, their queued
task sends nothing, and a delivery being sent is never dropped."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from ipaddress import ip_network

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import translation

from citeview.dumps.services import dump_ingest
from citeview.webhooks.models import DeliveryState, WebhookDelivery, WebhookEndpoint
from citeview.webhooks.services import deliveries_queue, webhook_delivery_attempt
from citeview.webhooks.tasks import deliver_webhook
from tests.api.conftest import editor_api, editor_key  # noqa: F401  (the API's clients)
from tests.conftest import own_fixture
from tests.webhooks.receiver import Receiver, receiver

pytestmark = pytest.mark.django_db(transaction=True)

CAP = 5


@pytest.fixture
def capped(settings) -> int:
    settings.CITEVIEW_WEBHOOK_WAITING_PER_ENDPOINT = CAP
    return CAP


@pytest.fixture
def hooks(settings) -> Iterator[Receiver]:
    settings.CITEVIEW_WEBHOOK_ALLOW_NETWORKS = [(ip_network("127.0.0.1/32"), None)]
    settings.CITEVIEW_WEBHOOK_TIMEOUT_SECONDS = 30
    with receiver() as state:
        yield state


def endpoint(url: str, events=("check.saved",)) -> WebhookEndpoint:
    return WebhookEndpoint.objects.create(url=url, events=list(events))


def saved(number: int) -> list[WebhookDelivery]:
    """A check.saved event, as a save sends it, delivered to every endpoint that wants it."""
    return deliveries_queue("check.saved", lambda endpoint: {"check": number})


def waiting(made: WebhookEndpoint) -> list[int]:
    return sorted(made.deliveries.filter(state__in=["pending", "retrying"]).values_list("pk", flat=True))


def test_sixty_saves_through_the_api_with_three_endpoints_leave_at_most_the_cap_waiting_for_each(
    editor,
    editor_api,  # noqa: F811
    database_queue,
    capped,
):
    endpoints = [endpoint(f"https://hooks{n}.example/citeview") for n in range(3)]
    # Stored beforehand: the 60 saves are a minute's writes of one token (CITEVIEW_API_RATE_TOKEN_WRITES).
    stored = dump_ingest(raw=own_fixture("claude-ja-documents-exchange.json"), uploaded_by=editor)[0]
    url = f"/api/dumps/{stored.pk}/checks"
    item = next(i for i in editor_api.get(url).json()["items"] if i["kind"] == "citation")
    answers = [
        editor_api.post(
            url, {"item": item["key"], "version": n, "verdict": ("partial", "none")[n % 2]}, "application/json"
        ).status_code
        for n in range(60)
    ]
    assert answers == [201] * 60
    for made in endpoints:
        deliveries = list(made.deliveries.order_by("pk"))
        assert len(deliveries) == 60  # every save is in the log
        assert waiting(made) == [d.pk for d in deliveries[-CAP:]]  # the newest wait; at most the cap
        dropped = deliveries[:-CAP]
        assert {(d.state, d.dropped_past) for d in dropped} == {(DeliveryState.DROPPED, CAP)}
    assert WebhookDelivery.objects.filter(state__in=["pending", "retrying"]).count() == 3 * CAP


def test_the_delivery_log_says_which_were_dropped_and_why_in_the_readers_language(
    client, database_queue, capped, django_user_model
):
    endpoint("https://hooks.example/citeview")
    for number in range(CAP + 2):
        saved(number)
    oldest = WebhookDelivery.objects.order_by("pk").first()
    assert oldest is not None and oldest.state == DeliveryState.DROPPED
    assert oldest.state_said() == "dropped: more than 5 waiting for this endpoint"
    with translation.override("ja"):
        assert oldest.state_said() == "破棄: この送り先で送信待ちの配信が 5 件を超えました"
    client.force_login(django_user_model.objects.create_superuser("admin", "admin@example.com", "a-long-password-1"))
    log = client.get(reverse("admin:webhooks_webhookdelivery_changelist")).content.decode()
    assert log.count("dropped: more than 5 waiting for this endpoint") == 2
    assert log.count("waiting to be sent") >= CAP


def test_a_dropped_deliverys_queued_task_sends_nothing(hooks, database_queue, settings):
    settings.CITEVIEW_WEBHOOK_WAITING_PER_ENDPOINT = 1
    hooks.secret = endpoint(hooks.url).secret
    first, second = saved(1)[0], saved(2)[0]
    assert deliver_webhook.call(first.pk) == "dropped"  # its task, run by a worker later
    assert hooks.received == []
    assert deliver_webhook.call(second.pk) == "delivered"
    assert [got.verified["data"] for got in hooks.received] == [{"check": 2}]
    first.refresh_from_db()
    assert (first.state, first.attempts, first.dropped_past) == (DeliveryState.DROPPED, 0, 1)


def test_a_delivery_being_sent_is_never_dropped(hooks, database_queue, settings):
    settings.CITEVIEW_WEBHOOK_WAITING_PER_ENDPOINT = 1
    hooks.secret = endpoint(hooks.url).secret
    hooks.answers = [None]  # the receiver holds the first delivery until the test lets it go
    sending = saved(1)[0]
    results: list[str] = []

    def worker() -> None:
        try:
            results.append(webhook_delivery_attempt(pk=sending.pk))
        finally:
            connection.close()

    thread = threading.Thread(target=worker)
    thread.start()
    try:
        while not hooks.received:
            thread.join(0.05)
        newer = [saved(n)[0] for n in range(2, 6)]  # four more while it is being sent
        assert WebhookDelivery.objects.get(pk=sending.pk).state == DeliveryState.SENDING
        assert [d.state for d in WebhookDelivery.objects.filter(pk__in=[d.pk for d in newer]).order_by("pk")] == [
            "dropped",
            "dropped",
            "dropped",
            "pending",
        ]
    finally:
        hooks.release.set()
        thread.join(30)
    assert results == ["delivered"]


def test_events_for_one_endpoint_at_once_leave_no_more_than_the_cap_waiting(database_queue, settings):
    settings.CITEVIEW_WEBHOOK_WAITING_PER_ENDPOINT = 2
    made = endpoint("https://hooks.example/citeview")
    start = threading.Barrier(6)

    def save_three() -> None:
        try:
            start.wait()
            for number in range(3):
                saved(number)
        finally:
            connection.close()

    threads = [threading.Thread(target=save_three) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert made.deliveries.count() == 18
    assert len(waiting(made)) == 2 and made.deliveries.filter(state="dropped").count() == 16


def test_sending_again_from_the_admin_is_held_to_the_cap_and_says_so(client, database_queue, capped, django_user_model):
    endpoint("https://hooks.example/citeview")
    for number in range(CAP + 1):
        saved(number)
    oldest = WebhookDelivery.objects.order_by("pk").first()
    assert oldest is not None and oldest.state == DeliveryState.DROPPED
    client.force_login(django_user_model.objects.create_superuser("admin", "admin@example.com", "a-long-password-1"))
    changelist = reverse("admin:webhooks_webhookdelivery_changelist")
    answer = client.post(changelist, {"action": "send_again", "_selected_action": [oldest.pk]}, follow=True)
    page = answer.content.decode()
    # The endpoint has the cap waiting already: the oldest of them, the one sent again, is dropped.
    assert "1 of them was dropped: more than 5 waiting for its endpoint." in page
    WebhookDelivery.objects.exclude(pk=oldest.pk).update(state=DeliveryState.DELIVERED)  # the receiver caught up
    client.post(changelist, {"action": "send_again", "_selected_action": [oldest.pk]})
    oldest.refresh_from_db()
    assert (oldest.state, oldest.dropped_past) == (DeliveryState.PENDING, None)


def test_an_attempt_that_fails_unforeseen_is_tried_again_not_left_being_sent(hooks, database_queue, monkeypatch):
    """An error outside the network's (signing, a library's bug) used to fail the task with the delivery
    left "being sent": never tried again, and the admin could not send it again."""
    hooks.secret = endpoint(hooks.url).secret
    delivery = saved(1)[0]

    def broken_signature(*args, **kwargs):
        raise ValueError("the signing library broke")

    monkeypatch.setattr("citeview.webhooks.services.Webhook.sign", broken_signature)
    assert deliver_webhook.call(delivery.pk) == "retrying"
    delivery.refresh_from_db()
    assert (delivery.attempts, delivery.last_error) == (1, "ValueError: the signing library broke")
    monkeypatch.undo()
    assert deliver_webhook.call(delivery.pk) == "delivered" and len(hooks.received) == 1


def test_sending_again_counts_only_what_it_queued(client, database_queue, django_user_model):
    endpoint("https://hooks.example/citeview")
    waiting, delivered = saved(1)[0], saved(2)[0]
    WebhookDelivery.objects.filter(pk=delivered.pk).update(state=DeliveryState.DELIVERED)
    client.force_login(django_user_model.objects.create_superuser("admin", "admin@example.com", "a-long-password-1"))
    changelist = reverse("admin:webhooks_webhookdelivery_changelist")
    chosen = {"action": "send_again", "_selected_action": [waiting.pk, delivered.pk]}
    page = client.post(changelist, chosen, follow=True).content.decode()
    assert "1 delivery is queued to be sent again." in page  # the waiting one is on its way already
