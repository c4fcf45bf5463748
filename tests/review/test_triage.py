"""Issue 45, "the likely problems first": the queue ordered by the signals citeview computes of each
item, with the chips that put it there; a batch's page counting the items of each signal, each count
linking to them; a plan's (dump, item key) list ranked the same way; and nothing of what blind first
keeps back shown on the way."""

from __future__ import annotations

import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from citeview.core.checking.triage import NEVER_FETCHED, UNRESOLVED_MARKER, VALUE_DIFFERS
from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest
from citeview.review.services import editors_assign
from citeview.review.triage import items_ranked, signal_counts
from citeview.snapshots.services import snapshot_paste
from tests.builders import sonar_object
from tests.conftest import OWN_FIXTURES, user_with_role
from tests.dumps.test_batches import batch_of
from tests.review.conftest import save

pytestmark = pytest.mark.django_db

TOKYO = "https://www.metro.tokyo.example/population"
OSAKA = "https://www.city.osaka.example/population"
# [1] Tokyo: its snapshot gives another figure; [2] Osaka: never fetched; [5]: no such source.
ANSWER = (
    "As of January 2024, the population of Tokyo was about 14.1 million[1]. Osaka grew too[2]. "
    "Kyoto has many temples[5]. Thanks for asking."
)
SECRET_NOTE = "taro's private note on the figure"


def stored(editor, answer: str = ANSWER) -> Dump:
    raw = sonar_object(answer, [TOKYO, OSAKA])
    return dump_ingest(raw=json.dumps(raw).encode(), uploaded_by=editor)[0]


@pytest.fixture
def dump(editor, second_editor, django_user_model) -> Dump:
    stored_dump = stored(editor)
    text = (OWN_FIXTURES / "snapshots" / "en-population-other-figure.txt").read_text(encoding="utf-8")
    snapshot_paste(url=TOKYO, text=text, taken_by=editor)
    lead = user_with_role(django_user_model, "sato", "lead")
    editors_assign(dump=stored_dump, editors=[editor, second_editor], by=lead)
    return Dump.objects.get(pk=stored_dump.pk)


def listed_items(html: str) -> list[str]:
    listing = html[html.index('class="cv-queue-list cv-triage-items"') :]
    return re.findall(r'data-item="([a-z0-9-]+)"', listing)


def entry_of(html: str, key: str) -> str:
    start = html.index(f'data-item="{key}"')
    return html[start : html.index("</li>", start)]


def test_the_queue_ordered_likely_problems_first_lists_items_strongest_signal_first(editor_client, dump):
    html = editor_client.get(reverse("review:queue"), {"order": "problems"}).content.decode()
    keys = listed_items(html)
    # A figure that differs (5), then a marker with no source (4), then a page never fetched (1), then
    # the items with no signal, in check order.
    assert keys[:3] == ["r0-c0", "r0-u0", "r0-c1"]
    assert len(keys) == len(set(keys)) and "r0-s" in keys[-1]


def test_each_item_shows_the_chips_of_its_signals_in_the_check_panels_words(editor_client, dump):
    html = editor_client.get(reverse("review:queue"), {"order": "problems"}).content.decode()
    assert "⚠ figure differs" in entry_of(html, "r0-c0")
    assert "Citation with no source [5]" in entry_of(html, "r0-u0")
    assert "No snapshot of this page yet." in entry_of(html, "r0-c1")
    assert reverse("review:item", args=[dump.pk, "r0-c0"]) in entry_of(html, "r0-c0")


def test_the_chips_are_in_japanese_for_a_japanese_reader(editor_client, dump):
    html = editor_client.get(reverse("review:queue"), {"order": "problems"}, HTTP_ACCEPT_LANGUAGE="ja")
    page = html.content.decode()
    assert "数値が食い違う" in entry_of(page, "r0-c0")
    assert "このページのスナップショットはまだありません。" in entry_of(page, "r0-c1")


def test_the_queue_keeps_its_order_by_default_and_offers_the_other_in_its_address(editor_client, dump):
    html = editor_client.get(reverse("review:queue")).content.decode()
    assert "cv-triage-items" not in html
    assert f'href="{reverse("review:queue")}?order=problems"' in html


def test_an_item_the_editor_has_checked_waits_no_more(editor_client, dump):
    save(editor_client, dump, "r0-c0", "partial")
    html = editor_client.get(reverse("review:queue"), {"order": "problems"}).content.decode()
    assert "r0-c0" not in listed_items(html) and listed_items(html)[0] == "r0-u0"


def test_another_editors_verdict_stays_hidden_in_the_ordered_queue(client, dump, editor, second_editor):
    client.force_login(second_editor)
    save(client, dump, "r0-c0", "none", note=SECRET_NOTE)
    client.force_login(editor)
    for html in (
        client.get(reverse("review:queue"), {"order": "problems"}).content.decode(),
        client.get(reverse("review:problems", args=[dump.pk])).content.decode(),
    ):
        assert SECRET_NOTE not in html and "taro" not in html
        assert "Not supported" not in html


def test_a_dump_assigned_to_someone_else_is_not_in_the_ordered_queue(client, dump, django_user_model):
    client.force_login(user_with_role(django_user_model, "jiro", "editor"))
    html = client.get(reverse("review:queue"), {"order": "problems"}).content.decode()
    assert "cv-triage-items" not in html


def test_the_dumps_page_of_likely_problems_lists_those_of_one_signal(editor_client, dump):
    url = reverse("review:problems", args=[dump.pk])
    html = editor_client.get(url, {"signal": NEVER_FETCHED}).content.decode()
    assert listed_items(html) == ["r0-c1"]
    assert f'href="{url}?signal={UNRESOLVED_MARKER}"' in html


def test_the_dumps_page_of_likely_problems_asks_for_a_login(client, dump):
    response = client.get(reverse("review:problems", args=[dump.pk]))
    assert response.status_code == 302 and "login" in response["Location"]


def test_a_batchs_page_counts_the_items_of_each_signal_and_links_to_them(editor_client):
    editor_client.post("/", {"text": batch_of(12)})
    batch = Dump.objects.get()
    counts = signal_counts(batch)
    assert counts[NEVER_FETCHED] > 0
    html = editor_client.get(batch.get_absolute_url()).content.decode()
    section = html[html.index('class="cv-card cv-triage-counts"') :]
    url = reverse("review:problems", args=[batch.pk])
    assert f'href="{url}?signal={NEVER_FETCHED}"' in section
    assert f"<strong>{counts[NEVER_FETCHED]}</strong> No snapshot of this page yet." in section
    listed = editor_client.get(url, {"signal": NEVER_FETCHED}).content.decode()
    assert len(listed_items(listed)) == min(counts[NEVER_FETCHED], 200)


def test_a_page_of_a_few_responses_shows_no_counts(editor_client, dump):
    html = editor_client.get(dump.get_absolute_url()).content.decode()
    assert "cv-triage-counts" not in html


def test_a_plans_items_are_ranked_with_their_signals_and_unknown_keys_left_out(dump, editor):
    other = stored(editor, "Osaka grew[2]. Kyoto is old[7].")
    ranked = items_ranked([(other, "r0-c0"), (dump, "r0-c1"), (dump, "r0-c0"), (dump, "r9-c9"), (other, "r0-u0")])
    assert [(entry.item.dump.pk, entry.item.item_key) for entry in ranked] == [
        (dump.pk, "r0-c0"),
        (other.pk, "r0-u0"),
        (other.pk, "r0-c0"),
        (dump.pk, "r0-c1"),
    ]
    assert VALUE_DIFFERS in ranked[0].signals


def test_the_pages_of_likely_problems_are_in_japanese_for_a_japanese_reader(editor_client, dump):
    queue = editor_client.get(reverse("review:queue"), {"order": "problems"}, HTTP_ACCEPT_LANGUAGE="ja")
    assert "あなたの確認を待つ項目が 4 件あります" in queue.content.decode()
    assert "項目（問題のありそうな順）" in queue.content.decode()
    page = editor_client.get(reverse("review:problems", args=[dump.pk]), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    for words in (
        "問題のありそうな順",
        "数値・日付・限定語が食い違う",
        "モデルが読んだときのページがスナップショットと食い違う",
    ):
        assert words in page
    assert "Likely problems" not in page and "weak passage" not in page


def test_a_snapshot_taken_since_changes_the_signals_kept(editor_client, dump, editor):
    assert signal_counts(dump)[NEVER_FETCHED] == 1
    snapshot_paste(url=OSAKA, text="Osaka's population grew in 2024 for the first time in years.", taken_by=editor)
    assert signal_counts(Dump.objects.get(pk=dump.pk))[NEVER_FETCHED] == 0


def queries_of(client, url: str, **query: str) -> int:
    client.get(url, query)  # the signals made and kept
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url, query).status_code == 200
    return len(captured)


def test_the_pages_of_likely_problems_read_as_many_queries_for_many_items_as_for_few(editor_client, django_user_model):
    lead = user_with_role(django_user_model, "sato", "lead")
    editor = django_user_model.objects.get(username="hanako")
    counted = []
    for answers in (12, 40):
        editor_client.post("/", {"text": batch_of(answers)})
        batch = Dump.objects.order_by("-pk").first()
        editors_assign(dump=batch, editors=[editor], by=lead, keep_others=True)
        counted.append(
            (
                queries_of(editor_client, reverse("review:problems", args=[batch.pk])),
                queries_of(editor_client, reverse("review:queue"), order="problems"),
            )
        )
    (few_page, few_queue), (many_page, many_queue) = counted
    assert many_page == few_page
    assert many_queue <= few_queue + 1  # a second dump in the queue: its kept signals, one read
