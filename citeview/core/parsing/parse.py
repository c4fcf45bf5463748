"""The one entry point: a dump's bytes in, the normalised model out (or one DumpError)."""

from __future__ import annotations

import functools
import gc
import io
import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import IO, Any

from citeview.core.common.errors import DumpError, too_large_error
from citeview.core.common.model import ParsedDump, Response
from citeview.core.common.phrases import Phrase, phrase
from citeview.core.detection import registry
from citeview.core.detection.detect import ResponseValues, StreamedResponses
from citeview.core.framing import DumpFile, DumpReading, read_dump, read_in_parts
from citeview.core.parsing.attached import AttachedFile
from citeview.core.parsing.citing import add_source_checks, cite_every_marker
from citeview.core.parsing.offsets import forget_kept_offsets
from citeview.core.parsing.pdf import is_pdf, may_hold_base64_pdf, pdf_budget
from citeview.core.parsing.request_documents import RequestDocument, attached_documents, check_documents

logger = logging.getLogger(__name__)

DEFAULT_MAX_BYTES = 10 * 1024 * 1024


# What a request looks like, for the error that says an attached one cannot be read.
REQUEST_EXAMPLE = (
    '{"model": "…", "max_tokens": 1024, "messages": [{"role": "user", "content": [{"type": "document", '
    '"source": {"type": "text", "media_type": "text/plain", "data": "…"}, "citations": {"enabled": true}}, '
    '{"type": "text", "text": "…"}]}]}'
)

# A file with one of these names is a document, even when its text starts like a JSON object.
DOCUMENT_SUFFIXES = (".txt", ".text", ".md", ".markdown", ".csv", ".html", ".htm", ".pdf")

Attachment = bytes | Sequence[AttachedFile]


def parse_dump(
    dump: bytes | IO[bytes],
    *,
    provider: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    request: Attachment | None = None,
) -> ParsedDump:
    """Read a dump: its bytes, or a binary file object that can seek (a stored blob opened ``rb``), read
    from where it stands a part at a time (``framing.source``). ``request`` is
    what the reviewer attached of the request that produced it: its JSON body as bytes, or the
    documents it sent on their own (document 0 first, see :func:`read_attachment`). A dump of the
    shape ``{"request": {...}, "response": ...}`` carries its own request."""
    if isinstance(dump, bytes):
        start, size = 0, len(dump)
    else:
        start = dump.tell()
        size = dump.seek(0, io.SEEK_END) - start
        dump.seek(start)
    if size > max_bytes:
        raise too_large_error(size, max_bytes)
    names = [*registry.provider_names(), *registry.api_names()]
    if provider is not None and provider not in names:
        raise DumpError(
            "unknown_provider",
            phrase("Unknown provider {provider!r}; use one of: {names}.", provider=provider, names=", ".join(names)),
        )
    # Every PDF read for this dump (its request's documents, the PDFs its answer fetched) shares one
    # budget of time, whatever their number: they hold the worker reading the dump that long at most.
    # No web request reads a PDF: a dump carrying one goes to a worker, and pdf_reads_refused() guards
    # the request's read.
    try:
        with _no_cycle_collection(), pdf_budget():
            source = DumpFile(dump)
            sent = functools.cache(lambda: _sent(request))  # (its PDFs read once, whatever happens)
            read = _read(source, provider, sent, {})
            sha256 = source.sha256()
            if read.marked_late:  # rare: a response's values read again, now that its API is known
                if not isinstance(dump, bytes):
                    dump.seek(start)
                read = _read(DumpFile(dump), provider, sent, read.marked_late)
    finally:
        forget_kept_offsets()
    return ParsedDump(sha256, size, read.framing, read.responses)


@dataclass
class _Read:
    framing: str
    responses: list[Response] = field(default_factory=list)
    marked_late: dict[int, str] = field(default_factory=dict)  # ``StreamedResponses``'s ``decided``


def _read(
    source: DumpFile, provider: str | None, request_sent: Callable[[], SentRequest], decided: dict[int, str]
) -> _Read:
    """The dump's responses, its values given to their parsers as its layout's reader reads them. Of
    the problems a dump may have, the one said is the first met by a reading that reads every value
    before it recognises any response: its bytes', then its attached request's, then a response's
    shape, then the first response's that its parser cannot read (``_Errors``)."""
    reading = read_in_parts(source)
    errors = _Errors()
    sent = errors.kept(request_sent)
    wrapped_request = None
    if reading.framing == "json":
        errors.raise_first()  # (a document is read whole: its request's error is said before its shape's)
        with _shape_errors_said(provider):
            reading, wrapped_request = _unwrap_exchange(reading)
    errors.reading = reading
    streamed = StreamedResponses(reading.values, reading.framing, provider, decided)
    parsed: list[tuple[ResponseValues, list[Response]]] = []
    try:
        for group in streamed:
            try:
                with _shape_errors_said(provider):
                    parsed.append((group, _parsed(group)))
            except DumpError as error:
                errors.reading_failed()
                errors.response(group.place, error)
    except DumpError as error:
        errors.reading_failed()
        errors.shape = error
        for _ in reading.values:  # (the rest of the bytes: a problem in them is said first)
            pass
    except _SHAPE_ERRORS as error:
        errors.reading_failed()
        logger.warning("A dump of an unexpected shape could not be read", exc_info=True)
        errors.shape = DumpError("unexpected_shape", _unexpected_shape(provider, type(error).__name__))
        for _ in reading.values:
            pass
    errors.raise_first()
    late = {group.place: group.marked_late for group, _ in parsed if group.marked_late is not None}
    if late:
        return _Read(reading.framing, marked_late=decided | late)
    parsed.sort(key=lambda pair: pair[0].place)
    with _shape_errors_said(provider):
        responses = _checked(
            parsed,
            sent if sent is not None else wrapped_request,
            ignored=streamed.ignored,
            cut_off=reading.cut_off,
            damaged_frames=reading.damaged_frames,
            repaired_strings=reading.repaired_strings,
        )
    return _Read(reading.framing, responses)


class _Errors:
    """The problems met reading a dump, kept to say the one a whole reading says first."""

    def __init__(self) -> None:
        self.reading: DumpReading | None = None
        self.request: DumpError | None = None
        self.shape: DumpError | None = None
        self.responses: dict[int, DumpError] = {}

    def kept(self, request_sent: Callable[[], SentRequest]) -> SentRequest:
        try:
            sent = request_sent()
        except DumpError as error:
            self.request = error
            return None
        return sent

    @property
    def bytes(self) -> DumpError | None:
        return None if self.reading is None else self.reading.failure

    def reading_failed(self) -> None:
        if self.bytes is not None:
            raise self.bytes

    def response(self, place: int, error: DumpError) -> None:
        self.responses.setdefault(place, error)

    def raise_first(self) -> None:
        for error in (self.bytes, self.request, self.shape):
            if error is not None:
                raise error
        if self.responses:
            raise self.responses[min(self.responses)]


def may_read_pdf(dump: bytes, request: Attachment | None = None) -> bool:
    """Whether :func:`parse_dump` may read a PDF of this dump or of what is attached to it, told from
    the bytes alone (linear in them, no JSON decoded): a document attached on its own that is a PDF, or
    base64 that may encode one in the dump (a request's document, a fetched PDF) or in the attached
    request. A "yes" may be wrong (it costs a read by a worker), a "no" is not for any PDF written whole
    in one JSON string; a stream's pieces joined into one string are caught by ``pdf_reads_refused``."""
    if may_hold_base64_pdf(dump):
        return True
    if isinstance(request, bytes):
        return may_hold_base64_pdf(request)
    return any(is_pdf(attached.data) for attached in request or ())


SentRequest = dict[str, Any] | list[RequestDocument] | None

# What a value of a type no parser expects raises (a list where an object should be).
_SHAPE_ERRORS = (AttributeError, TypeError, ValueError, KeyError, IndexError, OverflowError)


def _sent(request: Attachment | None) -> SentRequest:
    if isinstance(request, bytes):
        return read_request(request)
    if request:
        return attached_documents(request)
    return None


@contextmanager
def _shape_errors_said(provider: str | None) -> Iterator[None]:
    """A value of a type no parser expects: one clear error, never a crash. The trace is logged so
    the parser can learn the shape."""
    try:
        yield
    except DumpError:
        raise
    except _SHAPE_ERRORS as error:
        logger.warning("A dump of an unexpected shape could not be read", exc_info=True)
        raise DumpError("unexpected_shape", _unexpected_shape(provider, type(error).__name__)) from error


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """A dump decodes into millions of small objects without cycles, which the cycle collector would
    walk again and again as they pile up: a 50 MB stream took half as long again per byte as a 10 MB
    one. Reference counting still frees them; the collector is back on afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _unexpected_shape(provider: str | None, error: str) -> Phrase:
    if provider:
        return phrase(
            "citeview cannot read this dump: one of its values has a type that no {provider} response has ({error}).",
            provider=provider,
            error=error,
        )
    return phrase(
        "citeview cannot read this dump: one of its values has a type that no provider's response has ({error}).",
        error=error,
    )


def _parsed(group: ResponseValues) -> list[Response]:
    api = registry.api_format(group.api)
    if api is None or api.parser is None:
        raise DumpError(
            "unsupported_provider",
            phrase(
                "This dump was recognised as {api}, which citeview cannot read yet.",
                api=api.label if api else group.api,
            ),
        )
    parsed = api.parser(group.values, group.streamed)
    return parsed if isinstance(parsed, list) else [parsed]


def _checked(
    parsed: list[tuple[ResponseValues, list[Response]]],
    sent: SentRequest,
    *,
    ignored: int,
    cut_off: bool,
    damaged_frames: int,
    repaired_strings: int,
) -> list[Response]:
    """The parsed responses, in order, with what the reading found and the request's checks."""
    responses = []
    for place, (_, group_responses) in enumerate(parsed):
        for response in group_responses:
            if ignored and not place:
                response.diagnose(
                    "unknown_event",
                    "info",
                    phrase(
                        "{count} value(s) in the dump have no shape citeview knows and were not read.",
                        count=ignored,
                    ),
                )
            if isinstance(sent, dict):
                _check_against_request(response, sent)
            elif sent is not None:
                _check_against_documents(response, sent)
            cite_every_marker(response)  # the marker rule: no reader can skip it
            add_source_checks(response)
            responses.append(response)
    if cut_off:
        _note_cut_off(responses[-1])
    if damaged_frames:
        responses[0].diagnose(
            "damaged_frame",
            "warning",
            phrase(
                "{count} event(s) of the recorded stream were saved incomplete by the recorder (their text stops "
                "mid-way) and cannot be read; the events after them are shown.",
                count=damaged_frames,
            ),
            count=damaged_frames,
        )
    if repaired_strings:
        responses[0].diagnose(
            "invalid_unicode",
            "warning",
            phrase(
                "{count} string(s) in the dump hold half of a character (a lone surrogate escape) or a NUL "
                "character; it is shown as �. The raw dump keeps it as sent.",
                count=repaired_strings,
            ),
        )
    return responses


def read_request(raw: bytes) -> dict[str, Any]:
    """The attached request: one JSON object, or a DumpError that says it is the request that is wrong
    and what a request looks like."""
    try:
        framed = read_dump(raw)
    except DumpError as error:
        raise DumpError(
            "invalid_request",
            phrase(
                "The attached request cannot be read: {reason} A request is the JSON body that was sent to the "
                "API, such as {example}. A document on its own can be attached instead, as plain text (.txt) or "
                "a PDF.",
                reason=_request_reason(error),
                example=REQUEST_EXAMPLE,
            ),
        ) from None
    if framed.framing != "json" or not isinstance(framed.values[0], dict):
        raise DumpError(
            "invalid_request",
            phrase(
                "The attached request must be one JSON object (the request body), such as {example}. A document on "
                "its own can be attached instead, as plain text (.txt) or a PDF.",
                example=REQUEST_EXAMPLE,
            ),
        )
    return framed.values[0]


def _request_reason(error: DumpError) -> Phrase:
    """Why the request's bytes cannot be read, said of the request: framing's words for a cut-off
    JSON value say the *dump* looks cut off."""
    if error.code == "truncated_json":
        return phrase(
            "its JSON ends too early (line {line}, column {column}): it looks cut off.",
            line=error.phrase.args.get("line"),
            column=error.phrase.args.get("column"),
        )
    return error.phrase


def read_attachment(files: Sequence[AttachedFile]) -> Attachment | None:
    """What the files attached beside a response are: the request's JSON body (one file), or the
    documents the request sent, on their own (several allowed, document 0 first). A file is a request
    when it is named ``.json``, or when its text starts like a JSON object unless its name says it is a
    document (``.txt``, ``.md``, …) and it is no JSON object; a PDF or any other text is a document. Raises :class:`DumpError` for a
    request that cannot be read (saying what one looks like) and for a request given with documents."""
    if not files:
        return None
    for number, attached in enumerate(files):
        if not attached.data.strip():
            raise DumpError(
                "invalid_request",
                phrase("Attached file {number} ({name}) is empty.", number=number, name=attached.name or "—"),
            )
    requests = [f for f in files if _is_request(f)]
    if not requests:
        return list(files)
    if len(files) > 1:
        raise DumpError(
            "invalid_request",
            phrase(
                "Attach either the request (one JSON file) or the documents it sent, not both: {name} is a request.",
                name=requests[0].name or "—",
            ),
        )
    read_request(requests[0].data)  # the error says what a request looks like
    return requests[0].data


def _is_request(attached: AttachedFile) -> bool:
    suffix = PurePath(attached.name).suffix.lower()
    if suffix == ".json":
        return True  # named a request: read as one, or said why it is not one
    if attached.data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] != b"{":
        return False
    if suffix not in DOCUMENT_SUFFIXES:
        return True  # a .json file, a paste, another name: read as a request, or said why it is not one
    try:
        read_request(attached.data)
    except DumpError:
        return False  # a text document that happens to start with a brace
    return True


def _unwrap_exchange(reading: DumpReading) -> tuple[DumpReading, dict[str, Any] | None]:
    """``{"request": {...}, "response": ...}`` (one JSON document): the response to read, and its request."""
    values = list(reading.values)
    value = values[0]
    if not (isinstance(value, dict) and isinstance(value.get("request"), dict) and "response" in value):
        reading.values = iter(values)
        return reading, None
    inner = value["response"]
    if isinstance(inner, dict):
        return DumpReading("json", iter([inner])), value["request"]
    if isinstance(inner, list) and inner and all(isinstance(v, dict) for v in inner):
        return DumpReading("json-array", iter(inner)), value["request"]
    if isinstance(inner, str):
        return read_in_parts(DumpFile(inner.encode("utf-8"))), value["request"]
    raise DumpError(
        "invalid_json",
        phrase('The dump\'s "response" is neither a response object, a list of events nor a saved stream.'),
    )


def _check_against_request(response: Response, request: dict[str, Any]) -> None:
    api = registry.api_format(response.api)
    if api is None or api.request_check is None:
        checked = ", ".join(a.label for a in registry.api_formats() if a.request_check is not None)
        response.diagnose(
            "request_not_used",
            "info",
            phrase("A request is attached, but citeview reads an attached request only for {apis}.", apis=checked),
        )
        return
    api.request_check(response, request)


def _check_against_documents(response: Response, documents: list[RequestDocument]) -> None:
    api = registry.api_format(response.api)
    if api is not None and api.cites_documents_by_index:
        check_documents(response, documents)
        return
    response.diagnose(
        "request_not_used",
        "info",
        phrase(
            "Documents are attached, but citeview checks documents attached on their own only against the "
            "citations of {apis}.",
            apis=", ".join(a.label for a in registry.api_formats() if a.cites_documents_by_index),
        ),
    )


def _note_cut_off(response: Response) -> None:
    response.diagnose(
        "truncated_event",
        "warning",
        phrase(
            "The last event of the stream was cut off mid-way and could not be read; the events before it are shown."
        ),
    )
    if response.status == "completed":
        response.mark_incomplete(phrase("the stream was cut off"))
