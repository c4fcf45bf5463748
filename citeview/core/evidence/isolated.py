"""Reading a saved page's HTML or PDF in a child process with a hard limit of time and memory.

``extract_text`` bounds what it can between the parsers' steps, but one step can run away: a PDF page
that draws a compressed form 5,000 times kept pypdf busy for minutes inside one ``extract_text()``
call. So the limits are enforced from outside the parsing code: the child sets its own
``RLIMIT_AS`` (address space) and ``RLIMIT_CPU`` before it reads anything, and the parent kills it at
the wall-clock budget. Past either, the page is refused (``too_slow``, ``too_much_memory``) with the
limit in the sentence; any other end of the child (a crash, a signal, an answer that cannot be read)
is a refusal too (``unreadable``). Plain text needs no child: decoding it cannot run away.

The children come from a ``forkserver``: one small process, started on first use, that has imported
the parsers already and forks a child for each page, where a fresh interpreter would import them
again (what each costs: bench/README.md, "Costs behind the limits"). Forking from it rather than from
the caller is also what makes this safe in a process with threads (a web server's, a worker's): the
forkserver has none. It reaps its children, so none is left a zombie, and a child whose parent died is
still ended by its CPU limit. As multiprocessing does, each child runs the caller's main script again (``manage.py``, gunicorn's: both only define a function), so that script must
start nothing outside ``if __name__ == "__main__"``, and should import little.
"""

from __future__ import annotations

import functools
import logging
import math
import multiprocessing
import os
import resource
import signal
import time
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext
from multiprocessing.process import BaseProcess
from typing import Any

from citeview.core.evidence.extract import (
    MAX_SNAPSHOT_BYTES,
    MAX_TEXT_CHARS,
    Extraction,
    ExtractionError,
    checked_source_type,
    extract_text,
)
from citeview.core.phrases import Phrase, phrase

logger = logging.getLogger(__name__)

# What one extraction may take: measured on 2 shared cores, a 7 MB PDF of 2,000 text pages takes 3–7 s
# and 110 MB, one of 20 pages of dense charts 18 s and 140 MB, a 10 MB HTML page 1 s and 285 MB.
EXTRACT_SECONDS = 20.0
EXTRACT_MEGABYTES = 512
# A PDF is cut between its pages (keeping those read, with a note) once this share of the time is
# spent, so that only a page that runs away by itself meets the hard limit.
PDF_SHARE_OF_TIME = 0.75
# What the forkserver imports (and sets up) once, for every child it forks.
_PRELOAD = ["citeview.core.evidence.warmed"]
# How a child says it ran out of memory when even sending that would need more.
_OUT_OF_MEMORY_EXIT = 86
# How long a child that was killed, or has answered, is waited for (its forkserver reaps it).
_REAP_SECONDS = 5.0


def extract_text_bounded(
    content: bytes,
    content_type: str | None,
    *,
    max_bytes: int = MAX_SNAPSHOT_BYTES,
    max_chars: int = MAX_TEXT_CHARS,
    seconds: float = EXTRACT_SECONDS,
    megabytes: int = EXTRACT_MEGABYTES,
) -> Extraction:
    """``extract_text``, its HTML or PDF read in a child process held to ``seconds`` (wall clock and
    CPU) and ``megabytes`` of address space. Raises :class:`ExtractionError` and nothing else."""
    if checked_source_type(content, content_type, max_bytes) == "text":
        return extract_text(content, content_type, max_bytes, max_chars)
    context = _forkserver()
    receiving, sending = context.Pipe(duplex=False)
    arguments = (sending, content, content_type, max_bytes, max_chars, seconds, megabytes)
    child = context.Process(target=_read_in_child, args=arguments, name="citeview-extract", daemon=True)
    deadline = time.monotonic() + seconds
    try:
        child.start()
    except Exception as error:  # no process to be had (a limit of processes, of memory), or none allowed
        logger.warning("No process could be started to read a saved page", exc_info=True)
        receiving.close()
        sending.close()
        raise _unreadable(phrase("no process could be started to read it: {error}", error=str(error))) from None
    sending.close()  # the child's end: once the child is gone, reading gives EOF rather than waiting
    answer, timed_out = None, True
    try:
        answer, timed_out = _answer(receiving, deadline)
    finally:
        receiving.close()
        # Killed once it has answered (no need to wait for it to tidy up) or its time is up; one that
        # ended without answering is waited for, to say why it ended.
        exitcode = _end(child, kill=timed_out or answer is not None)
    if answer is not None:
        return _result(answer)
    raise _too_slow(seconds) if timed_out else _ended(exitcode, seconds, megabytes)


@functools.cache
def _forkserver() -> ForkServerContext:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_PRELOAD)  # only until it starts: then each fork has them
    return context


def _answer(receiving: Connection, deadline: float) -> tuple[Any, bool]:
    """What the child sent (None when it sent nothing readable), and whether the time ran out first."""
    if not receiving.poll(max(deadline - time.monotonic(), 0)):
        return None, True
    try:
        return receiving.recv(), False
    except Exception:  # EOF (it ended without answering), or what it sent cannot be unpickled
        return None, False


def _end(child: BaseProcess, kill: bool) -> int | None:
    """The child ended (killed first if ``kill``) and reaped by its forkserver: its exit code."""
    if not kill:
        child.join(_REAP_SECONDS)
    if child.exitcode is None:
        child.kill()
        child.join(_REAP_SECONDS)
    exitcode = child.exitcode
    if exitcode is not None:
        child.close()  # its pipe to the forkserver
    return exitcode


def _result(answer: Any) -> Extraction:
    match answer:
        case ("extraction", Extraction() as extraction):
            return extraction
        case ("refusal", str() as code, Phrase() as reason):
            raise ExtractionError(code, reason)
    raise _unreadable(phrase("the process reading it gave no answer"))


def _ended(exitcode: int | None, seconds: float, megabytes: int) -> ExtractionError:
    """Why a child that sent nothing ended: its CPU limit, its memory, or a crash."""
    if exitcode == -signal.SIGXCPU:  # the CPU limit: SIGXCPU ends a process that does not handle it
        return _too_slow(seconds)
    if exitcode == _OUT_OF_MEMORY_EXIT:
        return _too_much_memory(megabytes)
    if exitcode is None:
        how = phrase("the process reading it gave no answer")
    elif exitcode < 0:
        how = phrase("the process reading it was stopped by signal {signal}", signal=_signal_name(-exitcode))
    else:
        how = phrase("the process reading it ended with exit code {code}", code=exitcode)
    return _unreadable(how)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def _too_slow(seconds: float) -> ExtractionError:
    return ExtractionError(
        "too_slow",
        phrase(
            "Reading the saved page took longer than {seconds:g} seconds, the most citeview allows: it was stopped.",
            seconds=seconds,
        ),
    )


def _too_much_memory(megabytes: int) -> ExtractionError:
    return ExtractionError(
        "too_much_memory",
        phrase(
            "Reading the saved page needed more than {megabytes:,} MB of memory, the most citeview allows: "
            "it was stopped.",
            megabytes=megabytes,
        ),
    )


def _unreadable(how: Any) -> ExtractionError:
    return ExtractionError("unreadable", phrase("The saved page cannot be read ({reason}).", reason=how))


# --- in the child -------------------------------------------------------------------------------


def _read_in_child(
    sending: Connection,
    content: bytes,
    content_type: str | None,
    max_bytes: int,
    max_chars: int,
    seconds: float,
    megabytes: int,
) -> None:
    """Limit this process, read the page and send back the extraction or the refusal."""
    _limit_self(seconds, megabytes)
    answer: tuple[Any, ...]
    try:
        extraction = extract_text(content, content_type, max_bytes, max_chars, seconds * PDF_SHARE_OF_TIME)
        answer = ("extraction", extraction)
    except ExtractionError as error:
        answer = ("refusal", error.code, error.phrase)
    except MemoryError:
        os._exit(_OUT_OF_MEMORY_EXIT)  # nothing more can be allocated to say so: the exit code says it
    del content
    try:
        sending.send(answer)
    except MemoryError:
        os._exit(_OUT_OF_MEMORY_EXIT)
    sending.close()


def _limit_self(seconds: float, megabytes: int) -> None:
    """The hard limits, set by the child on itself before it reads a byte: its address space, and its
    CPU time (SIGXCPU at the budget, SIGKILL a second later), with no core file for either."""
    cpu = max(math.ceil(seconds), 1)
    memory = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
