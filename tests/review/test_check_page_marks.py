"""The check page marks what differs between a claim and the provider's quote in the statement and in
``cited_text``, by the rule the viewer's side by side marks them with (``compare.claim_marks`` and
``evidence_marks``), and shows the chips of that comparison beside the quote they were made with, not
beside a snapshot's passage that may say otherwise (issue 45, the walk's findings)."""

from __future__ import annotations

import json
import re

import pytest
from django.core.cache import cache
from django.urls import reverse

from citeview.dumps.services import dump_ingest
from citeview.snapshots.services import snapshot_paste

pytestmark = pytest.mark.django_db

MARK = re.compile(r'<mark class="cv-number-diff">([^<]*)</mark>')
ACCUWEATHER = "https://www.accuweather.com/en/us/san-francisco/94103/weather-forecast/347629"
# As the Claude web search of ../shared/fixtures/anthropic/anthropic-websearch-sonnet4-sf-weather.json
# quoted the page: its menu, no temperature.
MENU_QUOTE = (
    "San Francisco, CA Weather Today WinterCast Local {stormName} Tracker Hourly Daily Radar MinuteCast® "
    "Monthly Air Quality Health & Activities · News · F..."
)


def claude_message(text: str, cited_text: str, url: str = "https://example.com/results") -> bytes:
    return json.dumps(
        {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [
                {
                    "type": "text",
                    "text": text,
                    "citations": [
                        {
                            "type": "web_search_result_location",
                            "cited_text": cited_text,
                            "url": url,
                            "title": "Results",
                            "encrypted_index": "abc",
                        }
                    ],
                }
            ],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 10, "output_tokens": 10},
        }
    ).encode()


def check_page(client, editor, text: str, cited_text: str, url: str = "https://example.com/results") -> str:
    cache.clear()
    dump = dump_ingest(raw=claude_message(text, cited_text, url), uploaded_by=editor)[0]
    return client.get(reverse("review:item", args=[dump.pk, "r0-c0"]), HTTP_ACCEPT_LANGUAGE="en").content.decode()


def between(html: str, start: str, end: str) -> str:
    first = html.index(start)
    return html[first : html.index(end, first)]


def test_what_differs_is_marked_in_the_statement_and_in_cited_text(editor_client, editor):
    html = check_page(editor_client, editor, "Revenue reached $4.5M in the third quarter.", "Revenue was $4.2M in Q3.")
    assert MARK.findall(between(html, '<blockquote class="cv-statement">', "</blockquote>")) == ["4.5"]
    assert MARK.findall(between(html, '<blockquote class="cv-quote cv-quotable">', "</blockquote>")) == ["4.2"]


def test_the_check_page_marks_what_the_viewers_side_by_side_marks(editor_client, editor):
    cache.clear()
    dump = dump_ingest(
        raw=claude_message("Revenue reached $4.5M in the third quarter.", "Revenue was $4.2M in Q3."),
        uploaded_by=editor,
    )[0]
    viewer = editor_client.get(dump.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    check = editor_client.get(reverse("review:item", args=[dump.pk, "r0-c0"])).content.decode()
    assert sorted(MARK.findall(viewer)) == sorted(MARK.findall(check)) == ["4.2", "4.5"]


def test_the_marked_texts_are_escaped(editor_client, editor):
    html = check_page(
        editor_client,
        editor,
        "Revenue reached $4.5M <b>in</b> Q3.",
        "<script>alert('x')</script> Revenue was $4.2M in Q3.",
    )
    assert "<script>alert(" not in html and "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html
    assert MARK.findall(between(html, '<blockquote class="cv-quote cv-quotable">', "</blockquote>")) == ["4.2"]
    assert ' style="' not in between(html, '<blockquote class="cv-statement">', "</blockquote>")


def test_a_statement_that_agrees_with_its_quote_is_marked_nowhere(editor_client, editor):
    html = check_page(editor_client, editor, "Revenue reached $4.2M in the third quarter.", "Revenue was $4.2M in Q3.")
    assert "<mark" not in between(html, '<blockquote class="cv-statement">', "</blockquote>")


def test_the_chips_of_the_quote_stand_beside_the_quote_not_beside_a_passage_that_states_the_figure(
    editor_client, editor
):
    page = "San Francisco, CA Weather\n\nCurrent Weather\n\nClear skies. 66 °F. RealFeel® 69°.\n\nWind W 3 mph."
    snapshot_paste(url=ACCUWEATHER, text=page, taken_by=editor)
    html = check_page(editor_client, editor, "Temperature: 66°F with clear skies", MENU_QUOTE, ACCUWEATHER)
    assert "Clear skies. 66 °F." in between(html, 'id="cv-snapshot-passage"', "</blockquote>")
    # The quote (the page's menu) states no temperature: its chip says so, beside it.
    quote = between(html, "Quoted by the provider (cited_text)", 'id="cv-snapshot"')
    assert "figure not stated in the evidence" in quote
    # Nowhere else: not above the statement, not in the snapshot's panel beside the passage stating 66 °F.
    assert html.count("figure not stated in the evidence") == 1
    assert "figure not stated in the evidence" not in html[: html.index('<blockquote class="cv-statement">')]
