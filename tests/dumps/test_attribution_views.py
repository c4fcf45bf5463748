"""The provider line on the pages: an answer nothing names is called by its shape and its model, in
English and in Japanese, on the viewer and in the report; one its model names is called by that name."""

from __future__ import annotations

import pytest
from django.urls import reverse

from citeview.dumps.services import dump_ingest
from tests.conftest import OWN_FIXTURES

pytestmark = pytest.mark.django_db

STREAM = OWN_FIXTURES / "recordings" / "deepseek" / "pydantic-ai-deepseek-responses-text-stream.sse"


def ingested(editor, model: str):
    raw = STREAM.read_bytes().replace(b'"model":"deepseek-v4-flash"', f'"model":"{model}"'.encode())
    return dump_ingest(raw=raw, uploaded_by=editor)[0]


def test_an_answer_nothing_names_is_called_openai_compatible_on_the_viewer_and_the_report(editor, editor_client):
    dump = ingested(editor, "my-model")
    assert dump.providers == "compatible" and dump.headline == "The capital of France is Paris."
    viewer = editor_client.get(dump.get_absolute_url()).content.decode()
    # The provider line in words, on the page (not in a tooltip a phone cannot show), its code beside it.
    assert 'cv-api-chip">OpenAI-compatible Responses <span class="cv-muted">compatible.responses' in viewer
    assert "xai" not in viewer
    japanese = editor_client.get(dump.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert 'cv-api-chip">OpenAI 互換 Responses <span class="cv-muted">compatible.responses' in japanese
    report = editor_client.get(reverse("review:report", args=[dump.pk]), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "OpenAI 互換 · OpenAI 互換 Responses · my-model" in report


def test_an_answer_its_model_names_is_called_by_that_name(editor, editor_client):
    dump = ingested(editor, "deepseek-v4-flash")
    assert dump.providers == "deepseek"
    report = editor_client.get(reverse("review:report", args=[dump.pk])).content.decode()
    assert "DeepSeek · DeepSeek Responses · deepseek-v4-flash" in report and "xAI" not in report
