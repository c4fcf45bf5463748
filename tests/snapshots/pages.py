"""A loopback web server the snapshot tests start themselves, serving pages they write: what a fetch
from the check panel reaches (allow-listed by CITEVIEW_SNAPSHOT_FETCH_ALLOW_NETWORKS)."""

from __future__ import annotations

import contextlib
import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# path -> (status, content type, body, extra headers)
Route = tuple[int, str, bytes, dict[str, str]]

POPULATION_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>Population of Tokyo</title>
<script>document.title = "pwned"</script></head><body>
<nav><a href="/">Home</a> · <a href="/stats">Statistics</a></nav>
<main><article><h1>Population of Tokyo</h1>
<p>The Tokyo Metropolitan Government publishes an estimate of the population every month, based on the
national census and the resident registers of each ward, city, town and village.</p>
<p>As of January 1, 2024, the population of Tokyo was estimated at 13.9 million, an increase of 0.3% from
the previous year. The increase was driven mainly by people moving in from other prefectures.</p>
<p>The number of households reached 7.4 million. The average household size fell to 1.9 persons.</p>
</article></main></body></html>""".encode()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        routes: dict[str, Route] = self.server.routes  # type: ignore[attr-defined]
        status, content_type, body, headers = routes.get(self.path, (404, "text/plain", b"not found", {}))
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


@contextmanager
def page_server(routes: dict[str, Route]) -> Iterator[str]:
    """Serve ``routes`` on 127.0.0.1; yields the server's base URL (``http://127.0.0.1:PORT``)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.routes = routes  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def html_route(body: bytes, status: int = 200, **headers: str) -> Route:
    return (status, "text/html; charset=utf-8", body, headers)


# Answers no HTTP server would send, byte for byte: what a fetch meets at a port that is no web server
# (an SSH banner) or at one that sends more than http.client reads.
SSH_BANNER = b"SSH-2.0-OpenSSH_9.6p1 Debian-3\r\n"
MANY_HEADERS = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n"
    + b"".join(b"X-Header-%d: 1\r\n" % number for number in range(150))
    + b"\r\nok"
)
LONG_HEADER_LINE = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Long: " + b"a" * 70_000 + b"\r\nContent-Length: 2\r\n\r\nok"
)


class _RawHandler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        request_line = self.rfile.readline(65_537).decode("latin-1").split()
        while self.rfile.readline(65_537) not in (b"\r\n", b"\n", b""):  # the request's headers
            pass
        routes: dict[str, bytes] = self.server.routes  # type: ignore[attr-defined]
        answer = routes.get(request_line[1] if len(request_line) > 1 else "", b"HTTP/1.1 404 Not Found\r\n\r\n")
        with contextlib.suppress(OSError):  # the fetch gave up reading, as it should
            self.wfile.write(answer)


class _RawServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request: object, client_address: object) -> None:
        pass


@contextmanager
def raw_page_server(routes: dict[str, bytes]) -> Iterator[str]:
    """Answer each path in ``routes`` with its bytes as they are, then close; yields the base URL."""
    server = _RawServer(("127.0.0.1", 0), _RawHandler)
    server.routes = routes  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
