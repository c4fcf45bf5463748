"""A webhook receiver on loopback, as a pipeline would run one: it verifies every delivery's signature
with the ``standardwebhooks`` library and answers as the test tells it (a status per request in turn,
or no answer until the test releases it)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from standardwebhooks.webhooks import Webhook, WebhookVerificationError


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    at: float
    verified: Any = None  # the message, when its signature verified
    refusal: str = ""  # why it did not


@dataclass
class Receiver:
    secret: str = ""
    answers: list[int | None] = field(default_factory=list)  # per request in turn; None: hold it (below)
    received: list[Received] = field(default_factory=list)
    url: str = ""
    # A request answered None is held until this is set (by the test, or as the receiver closes), then
    # answered 200: a receiver that never answers (within the delivery's timeout), or a slow one.
    release: threading.Event = field(default_factory=threading.Event)

    def answer_for(self, number: int) -> int | None:
        return self.answers[number] if number < len(self.answers) else 200


@contextmanager
def receiver() -> Iterator[Receiver]:
    state = Receiver()
    closing = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            got = Received(dict(self.headers.items()), body, time.monotonic())
            try:
                got.verified = Webhook(state.secret).verify(body, got.headers)
            except WebhookVerificationError as refused:
                got.refusal = str(refused)
            state.received.append(got)
            status = state.answer_for(len(state.received) - 1)
            if status is None:  # held: answered 200 once the test releases it; never otherwise
                if not state.release.wait(30) or closing.is_set():
                    return
                status = 200
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hooks/citeview"
    try:
        yield state
    finally:
        closing.set()
        state.release.set()
        server.shutdown()
        server.server_close()
