"""Issue 32: where the dump holds the page as Claude fetched and read it, the check panel holds the
passage of citeview's own snapshot against it: the same words, other words marked on both sides,
or no such passage; with no snapshot yet, it says what one would show."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from citeview.dumps.services import dump_ingest
from citeview.snapshots.services import snapshot_paste
from tests.core.parsing.providers.test_anthropic import message, text, web
from tests.core.parsing.providers.test_anthropic_web_fetch import PAGE_URL, call, fetched

pytestmark = pytest.mark.django_db

MODEL_COPY = "気象庁\n\n平年値（1991〜2020年）：年平均気温 15.8℃、年降水量 1598.2mm。\n観測地点は北の丸公園です。"
CLAIM = "東京の年平均気温の平年値は15.8℃です。"
QUOTE = "平年値（1991〜2020年）：年平均気温 15.8℃、年降水量 1598.2mm。"


def stored(editor, model_copy: str = MODEL_COPY, claim: str = CLAIM):
    dump = message(
        call("srv_1", PAGE_URL),
        fetched("srv_1", PAGE_URL, model_copy),
        text(claim, web(PAGE_URL, QUOTE, title="気象庁")),
    )
    return dump_ingest(raw=json.dumps(dump, ensure_ascii=False).encode(), uploaded_by=editor)[0]


def panel(client, dump, language: str = "en") -> str:
    html = client.get(reverse("review:item", args=[dump.pk, "r0-c0"]), HTTP_ACCEPT_LANGUAGE=language).content.decode()
    start = html.index('id="cv-snapshot"')
    return html[start : html.index("</section>", start)]


def client_page(client, dump) -> str:
    return client.get(reverse("review:item", args=[dump.pk, "r0-c0"])).content.decode()


def test_a_snapshot_the_same_as_what_the_model_read_says_so(editor_client, editor):
    dump = stored(editor)
    snapshot_paste(url=PAGE_URL, text="気象庁トップ\n" + QUOTE + "\n更新情報", taken_by=editor)
    html = panel(editor_client, dump)
    assert "Against the page as the model read it" in html
    whole = client_page(editor_client, dump)
    assert '<time datetime="2026-11-30T01:02:03Z">fetched by the model at 2026-11-30 10:02 JST</time>' in whole
    assert "has this passage word for word" in html
    assert "cv-model-copy-differs" not in html and "cv-copy-differs" not in html


def test_a_page_edited_since_the_model_read_it_is_marked_on_both_sides(editor_client, editor):
    dump = stored(editor)
    snapshot_paste(
        url=PAGE_URL, text="気象庁\n平年値（1991〜2020年）：年平均気温 16.1℃、年降水量 1598.2mm。", taken_by=editor
    )
    html = panel(editor_client, dump)
    assert "cv-model-copy-differs" in html and "What differs is marked" in html
    model = html[html.index("cv-model-copy-passage") : html.index("cv-model-copy-snapshot")]
    snapshot = html[html.index("cv-model-copy-snapshot") :]
    assert '年平均気温 <mark class="cv-copy-differs">15.8</mark>℃' in model
    assert '年平均気温 <mark class="cv-copy-differs">16.1</mark>℃' in snapshot


def test_a_passage_the_model_never_read_is_said_to_be_missing_from_its_copy(editor_client, editor):
    dump = stored(editor, model_copy="気象庁\n\n東京の観測地点は北の丸公園です。ページは移転しました。")
    snapshot_paste(url=PAGE_URL, text="気象庁\n" + QUOTE, taken_by=editor)
    html = panel(editor_client, dump)
    assert "The page as the model read it has no such passage" in html


def test_with_no_snapshot_yet_the_panel_says_what_one_would_show(editor_client, editor):
    html = panel(editor_client, stored(editor))
    assert "No snapshot of this page yet." in html
    assert (
        "The dump holds the page as the model read it: a snapshot shows whether the page still says the same." in html
    )


def test_a_source_the_model_did_not_fetch_gets_no_comparison(editor_client, editor):
    dump = dump_ingest(
        raw=json.dumps(message(text(CLAIM, web(PAGE_URL, QUOTE))), ensure_ascii=False).encode(), uploaded_by=editor
    )[0]
    snapshot_paste(url=PAGE_URL, text="気象庁\n" + QUOTE, taken_by=editor)
    html = panel(editor_client, dump)
    assert "cv-model-copy" not in html and "the page as the model read it" not in html.lower()


def test_the_panel_says_it_in_japanese(editor_client, editor):
    dump = stored(editor)
    snapshot_paste(
        url=PAGE_URL, text="気象庁\n平年値（1991〜2020年）：年平均気温 16.1℃、年降水量 1598.2mm。", taken_by=editor
    )
    html = panel(editor_client, dump, "ja")
    assert "モデルが読んだときのページと照らし合わせる" in html and "違うところに印を付けています" in html


def test_the_page_as_the_model_read_it_is_searched_for_the_claim_like_a_snapshot(editor_client, editor):
    page = "気象庁\n\n過去の気象データ。\n" + "観測の説明です。" * 200 + "\n東京の年平均気温の平年値は15.9℃です。\n"
    html = editor_client.get(
        reverse("review:item", args=[stored(editor, model_copy=page).pk, "r0-c0"])
    ).content.decode()
    start = html.index('class="cv-snapshot cv-model-copy-found"')
    found = html[start : html.index("</section>", start)]
    assert "The passage found in the page as the model read it" in found and "score " in found
    assert (
        'id="cv-model-copy-passage-found">東京の年平均気温の平年値は<mark class="cv-number-diff">15.9</mark>℃' in found
    )  # its words, not the page's start
    assert "The claim and the passage differ" in found and "cv-use-passage" in found


def test_a_claim_the_model_copy_does_not_hold_is_said_so(editor_client, editor):
    dump = stored(editor, model_copy="Weather news in English only, nothing about the figure at all.")
    html = editor_client.get(reverse("review:item", args=[dump.pk, "r0-c0"])).content.decode()
    assert "Nothing in the page as the model read it matches the claim closely enough" in html


def test_markup_in_the_claim_the_model_copy_and_the_snapshot_is_shown_as_text(editor_client, editor):
    hostile = '<img src=x onerror="alert(1)">'
    model_copy = (
        f"気象庁\n\n{hostile}平年値（1991〜2020年）：年平均気温 15.8℃、年降水量 1598.2mm。<script>alert(2)</script>"
    )
    dump = stored(editor, model_copy=model_copy, claim=f"東京の{hostile}年平均気温の平年値は15.8℃です。")
    snapshot_paste(
        url=PAGE_URL,
        text="気象庁\n<b onclick=x>平年値（1991〜2020年）：年平均気温 16.1℃、年降水量 1598.2mm。</b>",
        taken_by=editor,
    )
    page = client_page(editor_client, dump)
    shown = page[page.index('class="cv-snapshot cv-model-copy-found"') : page.index('class="cv-snapshot-take')]
    assert "cv-model-copy-passage-found" in shown and "cv-model-copy-differs" in shown  # both blocks drawn
    assert "<img" not in shown and "<script" not in shown and "<b " not in shown
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in shown and "&lt;b onclick=x&gt;" in shown
