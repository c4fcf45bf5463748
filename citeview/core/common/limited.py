"""Running a parser in a child process held to a hard limit of time and memory.

A parser of untrusted files bounds what it can between its steps, but one step can run away: a PDF page
that draws a compressed form 5,000 times kept pypdf busy for minutes inside one ``extract_text()``
call. So the limits are enforced from outside the parsing code: the child sets its own ``RLIMIT_AS``
(address space) and ``RLIMIT_CPU`` before it reads anything, and the parent kills it at the wall-clock
budget. Past either, :class:`Stopped` says which (``too_slow``, ``too_much_memory``); any other end of
the child (a crash, a signal, an answer that cannot be read) is ``failed``, with how it ended.

The children come from a ``forkserver``: one small process, started on first use, that has imported
the parsers already and forks a child for each read, where a fresh interpreter would import them
again (what each costs: bench/README.md, "Costs behind the limits"). Forking from it rather than from
the caller is also what makes this safe in a process with threads (a web server's, a worker's): the
forkserver has none. It reaps its children, so none is left a zombie, and a child whose parent died is
still ended by its CPU limit. As multiprocessing does, each child runs the caller's main script again
(``manage.py``, gunicorn's: both only define a function), so that script must start nothing outside
``if __name__ == "__main__"``, and should import little.
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
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext
from multiprocessing.process import BaseProcess
from typing import Any, Literal

from citeview.core.common.phrases import Phrase, phrase

logger = logging.getLogger(__name__)

# What the forkserver imports (and sets up) once, for every child it forks: the parsers.
_PRELOAD = ["citeview.core.evidence.warmed", "citeview.core.parsing.pdf"]
# How a child says it ran out of memory when even sending that would need more.
OUT_OF_MEMORY_EXIT = 86
# How long a child that was killed, or has answered, is waited for (its forkserver reaps it).
_REAP_SECONDS = 5.0

StopCode = Literal["too_slow", "too_much_memory", "failed"]


class Stopped(Exception):
    """The child gave no answer: it passed its ``seconds`` (``too_slow``) or its ``megabytes``
    (``too_much_memory``), or it ended some other way (``failed``: ``how`` says how)."""

    def __init__(self, code: StopCode, how: Phrase | None = None) -> None:
        super().__init__(code if how is None else f"{code}: {how}")
        self.code = code
        self.how = how


def run_limited(target: Callable[..., Any], args: tuple[Any, ...], *, seconds: float, megabytes: int) -> Any:
    """What ``target(*args)`` returns, run in a child process held to ``seconds`` (wall clock and CPU)
    and ``megabytes`` of address space. ``target`` is a module-level function (it is named to the
    child, not copied) that catches its own errors and returns a value that can be pickled; the
    ``args`` are pickled to the child. Raises :class:`Stopped` and nothing else."""
    context = forkserver()
    receiving, sending = context.Pipe(duplex=False)
    arguments = (sending, target, args, seconds, megabytes)
    child = context.Process(target=_run_in_child, args=arguments, name="citeview-limited", daemon=True)
    deadline = time.monotonic() + seconds
    try:
        child.start()
    except Exception as error:  # no process to be had (a limit of processes, of memory), or none allowed
        logger.warning("No process could be started to read a file", exc_info=True)
        receiving.close()
        sending.close()
        raise Stopped("failed", phrase("no process could be started to read it: {error}", error=str(error))) from None
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
        return answer[1]
    raise Stopped("too_slow") if timed_out else stopped_by(exitcode)


@functools.cache
def forkserver() -> ForkServerContext:
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_PRELOAD)  # only until it starts: then each fork has them
    return context


def _answer(receiving: Connection, deadline: float) -> tuple[tuple[str, Any] | None, bool]:
    """What the child sent (None when it sent nothing readable), and whether the time ran out first."""
    if not receiving.poll(max(deadline - time.monotonic(), 0)):
        return None, True
    try:
        answer = receiving.recv()
    except Exception:  # EOF (it ended without answering), or what it sent cannot be unpickled
        return None, False
    return (answer if isinstance(answer, tuple) and answer[:1] == ("answer",) else None), False


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


def stopped_by(exitcode: int | None) -> Stopped:
    """Why a child that sent nothing ended: its CPU limit, its memory, or a crash."""
    if exitcode == -signal.SIGXCPU:  # the CPU limit: SIGXCPU ends a process that does not handle it
        return Stopped("too_slow")
    if exitcode == OUT_OF_MEMORY_EXIT:
        return Stopped("too_much_memory")
    if exitcode is None:
        how = phrase("the process reading it gave no answer")
    elif exitcode < 0:
        how = phrase("the process reading it was stopped by signal {signal}", signal=_signal_name(-exitcode))
    else:
        how = phrase("the process reading it ended with exit code {code}", code=exitcode)
    return Stopped("failed", how)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


# --- in the child -------------------------------------------------------------------------------


def _run_in_child(
    sending: Connection, target: Callable[..., Any], args: tuple[Any, ...], seconds: float, megabytes: int
) -> None:
    """Limit this process, run ``target`` and send back what it returned."""
    _limit_self(seconds, megabytes)
    try:
        answer = ("answer", target(*args))
    except MemoryError:
        os._exit(OUT_OF_MEMORY_EXIT)  # nothing more can be allocated to say so: the exit code says it
    del args
    try:
        sending.send(answer)
    except MemoryError:
        os._exit(OUT_OF_MEMORY_EXIT)
    sending.close()


def _limit_self(seconds: float, megabytes: int) -> None:
    """The hard limits, set by the child on itself before it reads a byte: its address space, and its
    CPU time (SIGXCPU at the budget, SIGKILL a second later), with no core file for either."""
    cpu = max(math.ceil(seconds), 1)
    memory = megabytes * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
