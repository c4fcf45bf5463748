"""The citation notations of the APIs citeview reads, for the translation catalogue.

Each provider module writes its notation in English (``ApiFormat.citation_notation``); the handover
report shows it in the reader's language. Listing them here keeps their Japanese in the catalogue
(``make messages`` drops an entry no code names); ``tests/review/test_report_handover.py`` fails when
a registered notation is missing here or has no Japanese."""

from django.utils.translation import gettext_noop

NOTATIONS = (
    gettext_noop("[n] and [web:n] markers in the text, n being a search result id"),
    gettext_noop("[n] markers in the text, n being a 1-based position in citations"),
    gettext_noop(
        "a citations list of URLs the answer cites without positions; [n] markers in the text are not documented to name citations[n-1]"
    ),
    gettext_noop("annotations: UTF-8 byte spans of the text pointing at search results"),
    gettext_noop("citation annotations on text blocks, with the offsets the provider's translator copied"),
    gettext_noop("citations on text blocks, each with cited_text and a char, page, block or web location"),
    gettext_noop("citations: spans of the generated text (unit checked) with the passages retrieved for them"),
    gettext_noop(
        "citations: start–end character spans of the text, each repeating the cited text, with document_ids naming entries of documents"
    ),
    gettext_noop("citationsContent blocks, each citation with sourceContent and a document or web location"),
    gettext_noop("groundingSupports: UTF-8 byte segments of the text pointing at groundingChunks"),
    gettext_noop(
        "message.citations: start–end character spans of the answer, each repeating the cited text, with the documents or tool outputs it rests on; PLAN and THINKING_CONTENT citations mark the plan or the thinking"
    ),
    gettext_noop("reference chunks after the text they support, naming keys of the caller's tool result"),
    gettext_noop("source-url and source-document parts beside the text, with no position in it"),
    gettext_noop("tool_reference chunks after the text they support, each carrying its source"),
    gettext_noop("url_citation and file_citation annotations with character spans of the text"),
    gettext_noop(
        "url_citation annotations spanning the [[n]](url) links in the text, or without positions listing the sources the message cites; a citations list of every URL the search met"
    ),
    gettext_noop("url_citation annotations with character spans of the message"),
)
