"""Every format citeview reads, pasted (or, for a binary stream, uploaded) in a real browser, renders
with its footnotes and the evidence it holds, and says what it does not give."""

from __future__ import annotations

import pytest

from tests.browser.test_reviewer_flows import shoot
from tests.conftest import PROJECT_DIR, SHARED_FIXTURES

pytestmark = pytest.mark.django_db(transaction=True)

SAMPLES = PROJECT_DIR / "citeview" / "dumps" / "samples"

# sample: (the API chip, footnotes at least, evidence rows, plan or thinking shown, recitations, no positions)
FORMATS = {
    "10-cohere-ja-documents.json": ("cohere.chat_v2", 4, 4, 0, 0, False),
    "11-cohere-stream-en-tool-plan.sse": ("cohere.chat_v2", 2, 2, 1, 0, False),
    "12-bedrock-ja-documents-exchange.json": ("bedrock.converse", 3, 3, 0, 0, False),
    "13-bedrock-stream-en-kb.jsonl": ("bedrock.retrieve_and_generate", 3, 3, 0, 0, False),
    "14-xai-ja-responses-websearch.json": ("xai.responses", 5, 0, 0, 0, False),
    "15-xai-stream-en-no-positions.sse": ("xai.responses", 0, 0, 0, 0, True),
    "16-mistral-ja-chat-references-exchange.json": ("mistral.chat_completions", 4, 4, 0, 0, False),
    "17-mistral-conversations-en-websearch.sse": ("mistral.conversations", 3, 3, 0, 0, False),
    "18-vercel-ui-message-stream-ja.sse": ("vercel.ui_message_stream", 0, 0, 1, 0, True),
    "19-langchain-gemini-ja.json": ("langchain.messages", 4, 0, 1, 0, False),
    "20-gemini-ja-rag-recitation.json": ("gemini.generate_content", 4, 4, 0, 1, False),
    "21-groq-compound-ja-search-visit.json": ("groq.chat_completions", 0, 0, 0, 0, True),
    "22-openrouter-ja-web-plugin.json": ("openrouter.chat_completions", 2, 2, 0, 0, True),
    "23-claude-ja-web-fetch.json": ("anthropic.messages", 3, 3, 0, 0, False),
    "24-azure-on-your-data-ja.json": ("azure.on_your_data", 4, 4, 0, 0, False),
    "26-bedrock-agent-en-kb-traces.jsonl": ("bedrock.invoke_agent", 1, 1, 0, 0, False),
    "27-deepseek-responses-en-stream.sse": ("deepseek.responses", 0, 0, 1, 0, False),
    "28-openai-compatible-ja-web-search.json": ("compatible.responses", 0, 0, 0, 0, True),
    "29-openrouter-sonar-relay-en-ja.json": ("openrouter.chat_completions", 5, 3, 0, 0, True),
}


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_a_pasted_dump_of_each_format_renders_its_footnotes_and_evidence(signed_in, name):
    api, footnotes, evidence, reasoning, recitations, no_positions = FORMATS[name]
    page = signed_in
    page.fill("#id_text", (SAMPLES / name).read_text(encoding="utf-8"))
    page.click(".cv-intake-form button[type=submit]")
    page.wait_for_url("**/dumps/*/")
    assert page.locator(".cv-summary .cv-chip", has_text=api).count() >= 1
    assert page.locator(".cv-answer .cv-cite-link").count() >= footnotes
    assert page.locator(".cv-evidence-row").count() == evidence
    assert page.locator(".cv-reasoning").count() == reasoning
    assert page.locator(".cv-recitations li").count() == recitations
    assert (page.locator(".cv-banner-info").count() > 0) == no_positions
    assert not page.locator(".cv-unresolved").count(), "every sample's markers resolve"
    assert not page.console_errors
    if name.startswith("11-"):  # the plan's own citation, apart from the answer's
        assert page.locator(".cv-reasoning-text .cv-cite-link").count() == 1
    if footnotes:  # a footnote leads to its source and shows its card on focus
        page.locator(".cv-answer .cv-cite-link").first.focus()
        page.wait_for_selector(".cv-answer .cv-cite > .cv-pop", timeout=3000)


def test_the_binary_bedrock_stream_uploads_and_renders_its_cited_block(signed_in):
    page = signed_in
    recorded = SHARED_FIXTURES / "bedrock" / "bedrock-converse-document-char-sonnet45-stream.eventstream"
    page.set_input_files("#id_file", str(recorded))
    page.click(".cv-intake-form button[type=submit]")
    page.wait_for_url("**/dumps/*/")
    assert page.locator(".cv-summary .cv-chip", has_text="bedrock.converse").count() == 1
    assert page.locator(".cv-answer .cv-cite-link").count() >= 1 and page.locator(".cv-evidence-row").count() >= 1
    raw = page.locator(".cv-raw-text").first.text_content()
    assert "contentBlockDelta" in raw and "\x00" not in raw
    assert not page.console_errors


def test_the_new_formats_look_right_at_both_widths(signed_in):
    page = signed_in
    for label, name in (
        ("cohere-plan", "11-cohere-stream-en-tool-plan.sse"),
        ("vercel-no-positions", "18-vercel-ui-message-stream-ja.sse"),
        ("gemini-rag-recitation", "20-gemini-ja-rag-recitation.json"),
        ("mistral-references", "16-mistral-ja-chat-references-exchange.json"),
        ("groq-compound", "21-groq-compound-ja-search-visit.json"),
        ("openrouter-web-plugin", "22-openrouter-ja-web-plugin.json"),
        ("claude-web-fetch", "23-claude-ja-web-fetch.json"),
        ("azure-on-your-data", "24-azure-on-your-data-ja.json"),
        ("bedrock-agent-kb", "26-bedrock-agent-en-kb-traces.jsonl"),
        ("deepseek-responses", "27-deepseek-responses-en-stream.sse"),
        ("openai-compatible", "28-openai-compatible-ja-web-search.json"),
        ("openrouter-sonar-relay", "29-openrouter-sonar-relay-en-ja.json"),
    ):
        page.goto("/")
        page.fill("#id_text", (SAMPLES / name).read_text(encoding="utf-8"))
        page.click(".cv-intake-form button[type=submit]")
        page.wait_for_url("**/dumps/*/")
        page.wait_for_load_state("networkidle")
        shoot(page, f"viewer-{label}")
