"""Fetching a source safely, against a loopback HTTP server the tests start themselves (allow-listed):
what is refused, and why, and what a fetched page records."""

from __future__ import annotations

import gzip
import hashlib
import ipaddress
import json
import shutil
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from citeview.core.common.phrases import phrase_text
from citeview.snapshots.fetch import USER_AGENT, FetchError, address_refusal, checked_url, fetch
from tests.snapshots.pages import LONG_HEADER_LINE, MANY_HEADERS, SSH_BANNER, html_route, page_server, raw_page_server

LOOPBACK = ["127.0.0.0/8"]
PAGE = "<html><body><p>東京都の人口は約1,410万人です。</p></body></html>".encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen: list[dict[str, str]]  # the headers of every request, set per server

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        self.server.seen.append({"path": self.path, **dict(self.headers.items())})  # type: ignore[attr-defined]
        path = self.path.split("?")[0]
        route = ROUTES.get(path) or next(
            (r for p, r in ROUTES.items() if p.endswith("*") and path.startswith(p[:-1])), None
        )
        if route is None:
            self.answer(404, b"not found", "text/plain")
        else:
            route(self)

    def answer(self, status: int, body: bytes, content_type: str | None, **headers: str) -> None:
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(body)

    def redirect(self, location: str, status: int = 302, **headers: str) -> None:
        self.answer(status, b"", "text/html", Location=location, **headers)


def _hop(handler: Handler) -> None:
    number = int(handler.path.rsplit("/", 1)[1])
    if number >= 10:
        handler.answer(200, PAGE, "text/html; charset=utf-8")
    else:
        handler.redirect(f"/hop/{number + 1}")


def _streamed(handler: Handler, size: int, delay: float = 0.0) -> None:
    """A body with no Content-Length, ending when the connection closes."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/plain")
    handler.send_header("Connection", "close")
    handler.end_headers()
    handler.close_connection = True
    try:
        for _ in range(size // 1000):
            handler.wfile.write(b"x" * 1000)
            handler.wfile.flush()
            time.sleep(delay)
    except OSError:  # the client gave up, as it should
        pass


def _chunked(handler: Handler, size: int) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/plain")
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    try:
        for _ in range(size // 1000):
            handler.wfile.write(b"3e8\r\n" + b"y" * 1000 + b"\r\n")
        handler.wfile.write(b"0\r\n\r\n")
    except OSError:
        pass


def _slow(handler: Handler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/plain")
    handler.send_header("Content-Length", "100")
    handler.end_headers()
    try:
        for _ in range(100):  # a byte every 0.1 s: each read is quick, the whole is not
            handler.wfile.write(b"z")
            handler.wfile.flush()
            time.sleep(0.1)
    except OSError:
        pass


def _slow_headers(handler: Handler) -> None:
    try:
        handler.wfile.write(b"HTTP/1.1 200 OK\r\n")
        for number in range(50):
            handler.wfile.write(f"X-Slow-{number}: 1\r\n".encode())
            handler.wfile.flush()
            time.sleep(0.1)
    except OSError:
        pass


def _echo(handler: Handler) -> None:
    headers = {name: value for name, value in handler.headers.items()}
    handler.answer(200, json.dumps(headers).encode(), "text/plain; charset=utf-8")


ROUTES = {
    "/page": lambda h: h.answer(200, PAGE, "text/html; charset=utf-8"),
    "/pdf": lambda h: h.answer(200, b"%PDF-1.7\n...", "application/pdf"),
    "/redirect-private": lambda h: h.redirect("http://10.0.0.1/admin"),
    "/redirect-metadata": lambda h: h.redirect("http://169.254.169.254/latest/meta-data/", 307),
    "/redirect-mapped": lambda h: h.redirect("http://[::ffff:10.0.0.1]/"),
    "/redirect-file": lambda h: h.redirect("file:///etc/passwd"),
    "/redirect-credentials": lambda h: h.redirect(f"http://user:secret@127.0.0.1:{h.server.server_address[1]}/page"),
    "/redirect-nowhere": lambda h: h.answer(302, b"", "text/html"),
    "/redirect-cookie": lambda h: h.redirect("/echo", Set_Cookie="session=abc; Path=/"),
    "/redirect-relative": lambda h: h.redirect("../page?from=relative", 301),
    "/loop-a": lambda h: h.redirect("/loop-b"),
    "/loop-b": lambda h: h.redirect("/loop-a"),
    "/hop/*": _hop,
    "/big-length": lambda h: h.answer(200, b"x" * 5_000, "text/plain"),
    "/big-stream": lambda h: _streamed(h, 50_000),
    "/big-chunked": lambda h: _chunked(h, 50_000),
    "/gzip": lambda h: h.answer(200, gzip.compress(PAGE), "text/html; charset=utf-8", Content_Encoding="gzip"),
    "/gzip-bomb": lambda h: h.answer(200, gzip.compress(b"\0" * 5_000_000), "text/plain", Content_Encoding="gzip"),
    "/brotli": lambda h: h.answer(200, b"...", "text/html", Content_Encoding="br"),
    "/slow": _slow,
    "/slow-headers": _slow_headers,
    "/json": lambda h: h.answer(200, b"{}", "application/json"),
    "/image": lambda h: h.answer(200, b"\x89PNG", "image/png"),
    "/untyped": lambda h: h.answer(200, b"words", None),
    "/gone": lambda h: h.answer(410, b"gone", "text/html"),
    "/echo": _echo,
}


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client that hangs up (as the fetch does on a refusal) is no error here


@pytest.fixture(scope="module")
def server() -> Iterator[ThreadingHTTPServer]:
    httpd = Server(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    httpd.seen = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def url(server: ThreadingHTTPServer, path: str) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}{path}"


def refusal(address: str, **options: object) -> FetchError:
    with pytest.raises(FetchError) as caught:
        fetch(address, **{"allow_networks": LOOPBACK, "total_timeout": 5.0, **options})  # type: ignore[arg-type]
    return caught.value


# --- what a fetch records -------------------------------------------------------------------------


def test_a_page_is_fetched_with_what_the_snapshot_keeps(server):
    page = fetch(url(server, "/page"), allow_networks=LOOPBACK)
    assert page.requested_url == page.final_url == url(server, "/page")
    assert page.status == 200 and page.content_type == "text/html; charset=utf-8"
    assert page.content == PAGE and page.sha256 == hashlib.sha256(PAGE).hexdigest()
    assert page.fetched_at.tzinfo is not None and 0 <= page.elapsed < 5
    assert page.redirects == () and page.address == "127.0.0.1"


def test_redirects_are_followed_to_the_final_url_and_kept(server):
    page = fetch(url(server, "/redirect-relative"), allow_networks=LOOPBACK)
    assert page.final_url == url(server, "/page?from=relative") and page.redirects == (
        url(server, "/redirect-relative"),
    )
    five = fetch(url(server, "/hop/5"), allow_networks=LOOPBACK)
    assert five.final_url == url(server, "/hop/10") and len(five.redirects) == 5


def test_nothing_of_the_user_is_sent_and_the_user_agent_names_citeview(server):
    page = fetch(url(server, "/redirect-cookie"), allow_networks=LOOPBACK)
    sent = {name.lower(): value for name, value in json.loads(page.content).items()}
    assert sent["user-agent"] == USER_AGENT and USER_AGENT.startswith("citeview/")
    assert USER_AGENT.endswith("(+source snapshot for evidence review)")
    assert "cookie" not in sent and "authorization" not in sent and "referer" not in sent  # the cookie set is dropped
    assert set(sent) <= {"host", "user-agent", "accept", "accept-encoding", "connection"}
    assert sent["accept-encoding"] == "identity"


def test_gzip_sent_anyway_is_read_within_the_cap(server):
    assert fetch(url(server, "/gzip"), allow_networks=LOOPBACK).content == PAGE
    error = refusal(url(server, "/gzip-bomb"), max_bytes=100_000)
    assert error.code == "too_large"  # 5 MB of zeros in a few kilobytes stop at the cap


# --- refusals -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "code", "words"),
    [
        ("/redirect-private", "forbidden_address", "10.0.0.1, a private address"),
        ("/redirect-metadata", "forbidden_address", "169.254.169.254, a link-local address"),
        ("/redirect-mapped", "forbidden_address", "::ffff:10.0.0.1, a private address"),
        ("/redirect-file", "scheme", "only http and https pages are fetched, not file"),
        ("/redirect-nowhere", "redirect_without_location", "redirect (302) to no address"),
        ("/loop-a", "redirect_loop", "redirects in a loop"),
        ("/hop/4", "too_many_redirects", "redirects more than 5 times"),
        ("/json", "content_type", "is application/json; only HTML, PDF and plain text pages are kept"),
        ("/image", "content_type", "image/png"),
        ("/untyped", "content_type", "states no content type"),
        ("/brotli", "content_encoding", "compressed as br"),
        ("/gone", "http_status", "answered 410"),
    ],
)
def test_a_refusal_names_what_was_refused_and_why(server, path, code, words):
    error = refusal(url(server, path))
    assert error.code == code and words in error.message, error.message
    assert error.phrase.template and phrase_text(error.phrase.to_json()) == error.message


def test_a_redirect_carrying_credentials_is_refused(server):
    assert refusal(url(server, "/redirect-credentials")).code == "credentials"


@pytest.mark.parametrize("path", ["/big-length", "/big-stream", "/big-chunked"])
def test_a_body_over_the_cap_is_refused_with_or_without_a_length(server, path):
    error = refusal(url(server, path), max_bytes=1_000)
    assert error.code == "too_large" and "larger than 1,000 bytes" in error.message


def test_a_length_over_the_cap_is_refused_before_the_body_is_read(server, monkeypatch):
    read = []
    from citeview.snapshots import fetch as module

    monkeypatch.setattr(module, "_body", lambda *args: read.append(1) or b"")
    assert refusal(url(server, "/big-length"), max_bytes=1_000).code == "too_large" and read == []


@pytest.mark.parametrize("path", ["/slow", "/slow-headers"])
def test_a_slow_answer_times_out_in_the_total_time(server, path):
    start = time.monotonic()
    error = refusal(url(server, path), total_timeout=1.0)
    assert error.code == "timeout" and "took too long" in error.message
    assert time.monotonic() - start < 3


def test_a_dns_name_resolving_to_loopback_is_refused_unless_allow_listed(server):
    port = server.server_address[1]
    to_loopback = lambda host, port: ["127.0.0.1"]  # noqa: E731
    error = refusal(f"http://innocent.example:{port}/page", allow_networks=(), resolve=to_loopback)
    assert (
        error.code == "host_refused"
        and "its host cannot be found, or its address is not one citeview may fetch from" in error.message
    )
    assert "127.0.0.1" not in error.message  # what a name resolves to is never said (finding 10)
    page = fetch(f"http://innocent.example:{port}/echo", allow_networks=LOOPBACK, resolve=to_loopback)
    assert json.loads(page.content)["Host"] == f"innocent.example:{port}"  # the name, at the address checked


def test_the_connection_goes_to_the_address_checked_so_a_second_answer_cannot_slip_in(server):
    port, answers = server.server_address[1], []

    def rebinding(host: str, port: int) -> list[str]:  # first a harmless answer, then the target
        answers.append(host)
        return ["127.0.0.1"] if len(answers) == 1 else ["10.0.0.1"]

    page = fetch(f"http://rebind.example:{port}/page", allow_networks=LOOPBACK, resolve=rebinding)
    assert page.address == "127.0.0.1" and answers == ["rebind.example"]  # resolved once, connected there


def test_a_name_with_one_forbidden_answer_among_allowed_ones_is_refused(server):
    mixed = lambda host, port: ["127.0.0.1", "192.168.1.10"]  # noqa: E731
    error = refusal(f"http://mixed.example:{server.server_address[1]}/page", resolve=mixed)
    assert (
        error.code == "host_refused"
        and "its host cannot be found, or its address is not one citeview may fetch from" in error.message
    )
    assert "192.168.1.10" not in error.message and "127.0.0.1" not in error.message


def test_a_name_that_does_not_resolve_is_refused_as_a_name_inside_is():
    def nowhere(host: str, port: int) -> list[str]:
        raise OSError("Name or service not known")

    error = refusal("http://no-such-host.invalid/", resolve=nowhere)
    assert error.code == "host_refused" and "http://no-such-host.invalid/ is refused" in error.message
    assert (
        "its host cannot be found, or its address is not one citeview may fetch from" in error.message
    )  # as for a name resolving inside (issue 42, finding 7)


def test_a_resolver_that_hangs_is_given_up_in_the_total_time():
    def hanging(host: str, port: int) -> list[str]:
        time.sleep(3)
        return ["127.0.0.1"]

    start = time.monotonic()
    assert (
        refusal("http://slow-dns.example/", resolve=hanging, total_timeout=0.5).code == "host_refused"
    )  # said as a name not found
    assert time.monotonic() - start < 2


@pytest.mark.parametrize(
    ("address", "code"),
    [
        ("file:///etc/passwd", "scheme"),
        ("ftp://example.org/file.pdf", "scheme"),
        ("javascript:alert(1)", "scheme"),
        ("gopher://127.0.0.1:25/", "scheme"),
        ("//example.org/page", "scheme"),
        ("http://user:pass@127.0.0.1/", "credentials"),
        ("http://user@127.0.0.1/", "credentials"),
        ("https:///nohost", "no_host"),
        ("http://127.0.0.1:99999/", "invalid_url"),
        ("http://exa\u200bmple.org/", "invalid_url"),
        ("http://example.org\\@127.0.0.1/", "credentials"),  # browsers would go to example.org; refused either way
        ("http://127.0.0.1/", "forbidden_address"),
        ("http://[::1]/", "forbidden_address"),
        ("http://0.0.0.0/", "forbidden_address"),
        ("http://2130706433/", "host_refused"),  # 127.0.0.1 as one number: a name, which resolvers read so
    ],
)
def test_urls_that_are_not_fetched(address, code):
    with pytest.raises(FetchError) as caught:
        fetch(address, total_timeout=2)
    assert caught.value.code == code, caught.value.message
    assert address in caught.value.message or caught.value.code in ("forbidden_address", "host_refused")


def test_the_request_names_the_host_as_the_url_does():
    target = checked_url("https://例え.jp/パス?q=1#frag")
    assert target.host == "xn--r8jz45g.jp" and target.host_header == "xn--r8jz45g.jp" and target.port == 443
    assert target.path == "/%E3%83%91%E3%82%B9?q=1" or target.path == "/パス?q=1"
    assert checked_url("http://[2001:db8::1]:8080/").host_header == "[2001:db8::1]:8080"


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.0.1", "private"),
        ("fd00::1", "private"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("224.0.0.1", "multicast"),
        ("ff02::1", "multicast"),
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("240.0.0.1", "reserved"),
        ("100.64.0.1", "non-public"),  # shared address space (carrier-grade NAT)
        ("::ffff:127.0.0.1", "loopback"),  # IPv4-mapped
        ("::ffff:10.0.0.1", "private"),
        ("2002:7f00:1::1", "loopback"),  # 6to4 around 127.0.0.1
        ("93.184.215.14", None),
        ("2606:4700:4700::1111", None),
    ],
)
def test_addresses_are_judged_ipv4_and_ipv6_alike(address, reason):
    assert address_refusal(address) == reason


def test_an_allow_list_admits_its_networks_only():
    loopback = [ipaddress.ip_network("127.0.0.0/8")]
    assert address_refusal("127.0.0.1", loopback) is None and address_refusal("::ffff:127.0.0.1", loopback) is None
    assert address_refusal("10.0.0.1", loopback) == "private"


# --- https: the name is checked against the certificate, at the address checked -------------------


@pytest.fixture(scope="module")
def tls_server(tmp_path_factory) -> Iterator[tuple[ThreadingHTTPServer, str]]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is needed to make a certificate")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=snapshot.test",
         "-addext", "subjectAltName=DNS:snapshot.test", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    httpd = Server(("127.0.0.1", 0), Handler)
    httpd.seen = []  # type: ignore[attr-defined]
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd, str(cert)
    httpd.shutdown()
    httpd.server_close()


def test_https_is_fetched_at_the_checked_address_with_the_name_verified(tls_server):
    httpd, cert = tls_server
    port = httpd.server_address[1]
    to_loopback = lambda host, port: ["127.0.0.1"]  # noqa: E731
    page = fetch(f"https://snapshot.test:{port}/page", allow_networks=LOOPBACK, resolve=to_loopback, ca_certs=cert)
    assert page.content == PAGE and page.address == "127.0.0.1"
    error = refusal(f"https://other.test:{port}/page", resolve=to_loopback, ca_certs=cert)
    assert error.code == "tls_failed" and "could not be reached securely" in error.message
    untrusted = refusal(f"https://snapshot.test:{port}/page", resolve=to_loopback)  # not in the system's trust
    assert untrusted.code == "tls_failed"


# --- answers that are no HTTP, and failures no rule names: refusals all the same ----------------


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (SSH_BANNER, "did not answer in HTTP: its first line is not an HTTP status line"),
        (b"just some words\n", "did not answer in HTTP"),
        (MANY_HEADERS, "sent more than 100 headers; citeview stops reading there"),
        (LONG_HEADER_LINE, "sent a line longer than 65,536 bytes in its headers"),
        (b"HTTP/1.1 200 " + b"x" * 70_000 + b"\r\n\r\n", "sent a line longer than 65,536 bytes"),
    ],
    ids=["ssh-banner", "no-status-line", "many-headers", "long-header-line", "long-status-line"],
)
def test_an_answer_that_is_no_http_is_refused_with_what_the_server_did(answer, words):
    with raw_page_server({"/": answer}) as base:
        error = refusal(f"{base}/")
    assert error.code == "protocol" and words in error.message, error.message


def test_a_body_that_says_it_is_compressed_but_is_not_is_refused():
    answer = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Encoding: gzip\r\nContent-Length: 5\r\n\r\nhello"
    with raw_page_server({"/": answer}) as base:
        error = refusal(f"{base}/")
    assert error.code == "content_encoding" and "cannot be uncompressed" in error.message


def test_a_redirect_to_no_valid_url_is_refused():
    with raw_page_server({"/": b"HTTP/1.1 302 Found\r\nLocation: http://[::1\r\nContent-Length: 0\r\n\r\n"}) as base:
        error = refusal(f"{base}/")
    assert error.code == "invalid_url" and "redirects (302) to an address that is not a valid URL" in error.message


def test_any_other_failure_is_a_refusal_naming_its_kind_never_an_exception():
    def broken(host: str, port: int) -> list[str]:
        raise RuntimeError("a resolver's own bug")

    error = refusal("http://broken-resolver.example/", resolve=broken)
    assert error.code == "failed" and "could not be fetched: RuntimeError" in error.message


# --- finding 10: no resolved address in a refusal; an allow-list entry may name its port ---------


def test_a_refusal_names_the_rule_broken_not_the_address_a_name_resolves_to():
    for answer in (["10.20.30.40"], ["fd12:3456::1"], ["93.184.215.14", "10.20.30.40"]):
        error = refusal("http://intranet-wiki.example/", resolve=lambda host, port, a=answer: a)
        assert (
            error.code == "host_refused"
            and "its host cannot be found, or its address is not one citeview may fetch from" in error.message
        )
        assert not any(address in error.message for address in answer), error.message
    literal = refusal("http://10.20.30.40/")  # an address the URL writes itself is named
    assert "it names 10.20.30.40, a private address" in literal.message


def test_an_allow_list_entry_with_a_port_allows_that_port_only(server):
    port = server.server_address[1]
    page = fetch(url(server, "/page"), allow_networks=[("127.0.0.0/8", port)])
    assert page.content == PAGE
    error = refusal(url(server, "/page"), allow_networks=[("127.0.0.0/8", port + 1)])
    assert error.code == "forbidden_port" and f"not on port {port}" in error.message
    assert "127.0.0.1" not in error.message.replace(url(server, "/page"), "")  # the URL's own address only
    assert address_refusal("127.0.0.1", [("127.0.0.0/8", 8080)], 8080) is None
    assert address_refusal("127.0.0.1", [("127.0.0.0/8", 8080)], 8081) == "port"
    assert address_refusal("::ffff:127.0.0.1", [(ipaddress.ip_network("127.0.0.0/8"), 8080)], 8080) is None
    assert address_refusal("93.184.215.14", [("127.0.0.0/8", 8080)], 443) is None  # public: no list needed


def test_a_redirect_to_another_port_of_an_allowed_network_is_refused(server):
    port = server.server_address[1]
    with page_server({"/elsewhere": html_route(PAGE, 302, Location=url(server, "/page"))}) as other:
        other_port = int(other.rsplit(":", 1)[1])
        page = fetch(f"{other}/elsewhere", allow_networks=[("127.0.0.0/8", other_port), ("127.0.0.0/8", port)])
        assert page.final_url == url(server, "/page")
        error = refusal(f"{other}/elsewhere", allow_networks=[("127.0.0.0/8", other_port)])
    assert error.code == "forbidden_port" and error.url == url(server, "/page")


def test_the_allow_list_setting_reads_networks_with_and_without_ports(monkeypatch):
    from django.core.exceptions import ImproperlyConfigured

    from citeview.settings import env_networks_with_ports

    monkeypatch.setenv("ALLOW", "10.1.0.0/16, 10.2.0.0/16:8080, [fd00::/8]:443, fd00::1, [::1]")
    assert env_networks_with_ports("ALLOW", "") == [
        (ipaddress.ip_network("10.1.0.0/16"), None),
        (ipaddress.ip_network("10.2.0.0/16"), 8080),
        (ipaddress.ip_network("fd00::/8"), 443),
        (ipaddress.ip_network("fd00::1"), None),
        (ipaddress.ip_network("::1"), None),
    ]
    for wrong in ("10.1.0.0/16:0", "10.1.0.0/16:http", "[fd00::/8]443", "10.1.2.3/16", "intranet:80"):
        monkeypatch.setenv("ALLOW", wrong)
        with pytest.raises(ImproperlyConfigured, match="ALLOW"):
            env_networks_with_ports("ALLOW", "")
