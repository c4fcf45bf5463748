"""A loopback web server the snapshot tests start themselves, serving pages they write: what a fetch
from the check panel reaches (allow-listed by CITEVIEW_SNAPSHOT_FETCH_ALLOW_NETWORKS)."""

from __future__ import annotations

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
