"""Issue 33: webhooks for pipelines, following Standard Webhooks. Staff register endpoints with the
events they want; each delivery is signed (verified here by a receiver on loopback with the same
library), carries ids and links but no dump text or note, keeps blind first, is tried again after a
failure with growing waits up to a cap, and is logged."""

from __future__ import annotations

import json
from collections.abc import Iterator
from ipaddress import ip_network

import pytest
from django.urls import reverse

from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest
from citeview.review.selectors import dump_check_items
from citeview.review.services import editors_assign
from citeview.webhooks.models import DeliveryState, WebhookDelivery, WebhookEndpoint
from tests.conftest import own_fixture, user_with_role
from tests.review.test_settling import DISPUTED, SEED, save, settle
from tests.webhooks.receiver import Receiver, receiver

pytestmark = pytest.mark.django_db(transaction=True)

EVERY_EVENT = ["dump.stored", "dump.read_failed", "check.saved", "dump.fully_checked", "disagreement.settled"]


@pytest.fixture
def hooks(settings) -> Iterator[Receiver]:
    settings.CITEVIEW_WEBHOOK_ALLOW_NETWORKS = [(ip_network("127.0.0.1/32"), None)]
    settings.CITEVIEW_WEBHOOK_RETRY_SECONDS = [0.0, 0.0]
    settings.CITEVIEW_WEBHOOK_TIMEOUT_SECONDS = 1
    settings.CITEVIEW_BASE_URL = "https://citeview.example"
    with receiver() as state:
        yield state


def endpoint(hooks: Receiver, events=EVERY_EVENT, **fields) -> WebhookEndpoint:
    made = WebhookEndpoint.objects.create(url=hooks.url, events=list(events), **fields)
    hooks.secret = made.secret
    return made


def messages(hooks: Receiver) -> list[dict]:
    assert all(got.refusal == "" for got in hooks.received), [got.refusal for got in hooks.received]
    return [got.verified for got in hooks.received]


def test_a_stored_dump_is_delivered_signed_with_ids_and_links_and_no_text(hooks, editor):
    endpoint(hooks)
    dump = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor, filename=SEED)[0]
    (message,) = messages(hooks)
    assert message["type"] == "dump.stored" and message["timestamp"].endswith("Z")
    data = message["data"]
    assert data["dump"]["id"] == dump.pk and data["dump"]["sha256"] == dump.sha256
    assert data["links"]["dump"] == f"https://citeview.example/dumps/{dump.pk}/"
    assert data["links"]["api"] == f"https://citeview.example/api/dumps/{dump.pk}"
    assert dump.result["responses"][0]["text"][:20] not in hooks.received[0].body.decode()
    got = hooks.received[0].headers
    assert got["webhook-id"].startswith("msg_") and got["webhook-signature"].startswith("v1,")
    delivery = WebhookDelivery.objects.get()
    assert (delivery.state, delivery.attempts, delivery.last_status) == (DeliveryState.DELIVERED, 1, 200)


def test_an_endpoint_gets_only_the_events_it_asked_for(hooks, editor):
    endpoint(hooks, events=["dump.fully_checked"])
    dump_ingest(raw=own_fixture(SEED), uploaded_by=editor, filename=SEED)
    assert hooks.received == [] and not WebhookDelivery.objects.exists()


def test_a_receiver_answering_500_is_tried_again_until_it_takes_the_message(hooks, editor):
    endpoint(hooks)
    hooks.answers = [500, 503, 200]
    dump_ingest(raw=own_fixture(SEED), uploaded_by=editor, filename=SEED)
    assert len(hooks.received) == 3
    assert len({got.headers["webhook-id"] for got in hooks.received}) == 1  # one message, for the receiver to dedupe
    delivery = WebhookDelivery.objects.get()
    assert (delivery.state, delivery.attempts, delivery.last_status, delivery.last_error) == ("delivered", 3, 200, "")


def test_a_receiver_that_never_answers_is_given_up_after_the_last_wait_and_logged(hooks, editor):
    endpoint(hooks)
    hooks.answers = [None, None, None]
    dump_ingest(raw=own_fixture(SEED), uploaded_by=editor, filename=SEED)
    delivery = WebhookDelivery.objects.get()
    assert (delivery.state, delivery.attempts) == (DeliveryState.FAILED, 3)  # the first try and two retries
    assert "took too long" in delivery.last_error or "timed out" in delivery.last_error, delivery.last_error
    assert len(hooks.received) == 3


def test_a_private_address_is_refused_unless_allowed_and_not_tried_again(hooks, editor, settings):
    settings.CITEVIEW_WEBHOOK_ALLOW_NETWORKS = []
    endpoint(hooks)
    dump_ingest(raw=own_fixture(SEED), uploaded_by=editor, filename=SEED)
    delivery = WebhookDelivery.objects.get()
    assert (delivery.state, delivery.attempts) == (DeliveryState.FAILED, 1)
    assert "loopback address" in delivery.last_error and hooks.received == []


def work(client, editor, second_editor, lead) -> Dump:
    dump = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor, filename=SEED)[0]
    editors_assign(dump=dump, editors=[editor], by=editor)
    client.force_login(editor)
    save(client, dump, DISPUTED, "partial", note="編集者だけのメモ")
    client.force_login(second_editor)
    save(client, dump, DISPUTED, "none")
    client.force_login(lead)
    assert settle(client, dump).status_code == 302
    return dump


def test_a_saved_check_names_the_item_and_the_editor_but_not_the_verdict(
    client, hooks, editor, second_editor, django_user_model
):
    endpoint(hooks, events=["check.saved", "disagreement.settled"])
    dump = work(client, editor, second_editor, user_with_role(django_user_model, "sato", "lead"))
    saved = [m for m in messages(hooks) if m["type"] == "check.saved"]
    assert [(m["data"]["item"]["key"], m["data"]["editor"]) for m in saved] == [
        (DISPUTED, "hanako"),
        (DISPUTED, "taro"),
    ]
    assert all("verdict" not in m["data"] for m in messages(hooks))
    assert saved[0]["data"]["links"]["item"] == f"https://citeview.example/dumps/{dump.pk}/check/{DISPUTED}/"
    (settled,) = [m for m in messages(hooks) if m["type"] == "disagreement.settled"]
    assert settled["data"]["settled_by"] == "sato" and settled["data"]["item"]["key"] == DISPUTED
    assert "編集者だけのメモ" not in "".join(got.body.decode() for got in hooks.received)


def test_an_endpoint_for_reviewers_gets_the_verdicts(client, hooks, editor, second_editor, django_user_model):
    endpoint(hooks, events=["check.saved", "disagreement.settled"], for_reviewers=True)
    work(client, editor, second_editor, user_with_role(django_user_model, "sato", "lead"))
    assert [m["data"]["verdict"] for m in messages(hooks)] == ["partial", "none", "none"]


def test_a_dump_whose_every_item_has_the_checks_it_needs_says_so_once(client, hooks, editor, second_editor):
    endpoint(hooks, events=["dump.fully_checked"])
    dump = dump_ingest(raw=own_fixture(SEED), uploaded_by=editor, filename=SEED)[0]
    assert dump.checks_needed == 2
    client.force_login(editor)
    for item in dump_check_items(dump):
        save(client, dump, item.key, "complete")
    assert messages(hooks) == []  # every item checked once, of the two independent checks it needs
    client.force_login(second_editor)
    for item in dump_check_items(dump):
        save(client, dump, item.key, "complete")
    (message,) = messages(hooks)
    assert message["type"] == "dump.fully_checked" and message["data"]["dump"]["id"] == dump.pk
    assert message["data"]["dump"]["checks_needed"] == 2


def test_a_dump_that_cannot_be_read_is_delivered_with_its_error_code(hooks, editor, settings):
    settings.CITEVIEW_READ_IN_TASK_ABOVE = 10  # read by a worker (the tests' tasks run at once)
    endpoint(hooks, events=["dump.read_failed", "dump.stored"])
    dump = dump_ingest(raw=json.dumps({"nothing": "any provider writes"}).encode(), uploaded_by=editor)[0]
    (message,) = messages(hooks)
    assert message["type"] == "dump.read_failed"
    assert message["data"]["dump"]["id"] == dump.pk and message["data"]["error"]["code"] == "unknown_provider"


def test_staff_register_an_endpoint_and_read_the_delivery_log_in_the_admin(client, hooks, editor, django_user_model):
    staff = django_user_model.objects.create_superuser("admin", "admin@example.com", "a-long-test-password")
    client.force_login(staff)
    answer = client.post(
        reverse("admin:webhooks_webhookendpoint_add"),
        {"url": hooks.url, "description": "パイプライン", "events": ["dump.stored", "check.saved"], "active": "on"},
    )
    assert answer.status_code == 302, answer.content.decode()[:2000]
    made = WebhookEndpoint.objects.get()
    assert made.events == ["dump.stored", "check.saved"] and made.secret.startswith("whsec_")
    assert made.secret in client.get(reverse("admin:webhooks_webhookendpoint_change", args=[made.pk])).content.decode()
    hooks.secret = made.secret
    hooks.answers = [500, 500, 500]
    dump_ingest(raw=own_fixture(SEED), uploaded_by=editor, filename=SEED)
    log = client.get(reverse("admin:webhooks_webhookdelivery_changelist")).content.decode()
    assert "dump.stored" in log and "HTTP 500" in log
    given_up = WebhookDelivery.objects.get()
    assert given_up.state == DeliveryState.FAILED
    hooks.answers = []  # the receiver is mended: it takes what comes
    client.post(
        reverse("admin:webhooks_webhookdelivery_changelist"),
        {"action": "send_again", "_selected_action": [given_up.pk]},
    )
    again = WebhookDelivery.objects.get()
    assert (again.state, again.attempts) == (DeliveryState.DELIVERED, 1)
    assert hooks.received[-1].headers["webhook-id"] == given_up.message_id  # the same message, sent again
    refused = client.post(
        reverse("admin:webhooks_webhookendpoint_add"), {"url": "ftp://example.com/", "events": ["dump.stored"]}
    )
    assert refused.status_code == 200 and WebhookEndpoint.objects.count() == 1


def test_an_endpoint_at_an_address_deliveries_may_not_reach_is_refused_when_saved(client, settings, django_user_model):
    settings.CITEVIEW_WEBHOOK_ALLOW_NETWORKS = []
    client.force_login(django_user_model.objects.create_superuser("admin", "admin@example.com", "a-long-test-password"))
    add = reverse("admin:webhooks_webhookendpoint_add")
    for url, said in (
        ("http://127.0.0.1:8000/hooks", "a loopback address"),
        ("https://user:secret@hooks.example.com/", "carries a user name or password"),
        ("http://[fd00::1]/hooks", "a private address"),
    ):
        answer = client.post(add, {"url": url, "events": ["dump.stored"], "active": "on"})
        page = answer.content.decode()
        assert answer.status_code == 200 and said in page and "CITEVIEW_WEBHOOK_ALLOW_NETWORKS" in page, url
    assert not WebhookEndpoint.objects.exists()
    answer = client.post(add, {"url": "https://hooks.example.com/citeview", "events": ["dump.stored"], "active": "on"})
    assert answer.status_code == 302 and WebhookEndpoint.objects.get().url == "https://hooks.example.com/citeview"
