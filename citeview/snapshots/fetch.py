"""Fetching a source's page for a snapshot, safely: the URL was chosen by an LLM's answer.

- Only ``http`` and ``https``, with a host and no credentials in the URL.
- The host is resolved once and every address it has is checked: loopback, private, link-local,
  multicast, reserved, unspecified and other non-public addresses (IPv4 and IPv6, the IPv4 inside an
  IPv4-mapped, 6to4 or Teredo address too) are refused unless ``allow_networks`` holds them, on
  any port or on the one it names. A refusal names the rule broken, not the address a name resolved
  to (which would map a private network's names for whoever asks). A host name that cannot be
  found, and one whose address is refused, get the same refusal (``host_refused``, one sentence):
  an editor who tries names one by one learns nothing of which exist inside. The reason, and the
  address, go to the log for staff. (:func:`post`, for a URL staff typed, keeps the precise reason.)
- The connection goes to the address that was checked (the request names the host in its Host
  header and, for https, in SNI and the certificate check), so no second DNS answer can slip in.
- Every redirect is checked the same way; at most ``max_redirects`` are followed, a loop is refused.
- The body is streamed and capped at ``max_bytes`` (a Content-Length over it is refused before
  reading); the whole fetch, redirects included, ends at ``total_timeout`` seconds, a watchdog
  shutting the socket however slowly the server sends.
- Only HTML, PDF and plain text are accepted.
- Nothing of the user's is sent: no cookies (none are kept), no credentials, no headers but ours,
  with a User-Agent that names citeview.

:func:`post` sends a webhook's message under the same address rules (no redirect followed).

Every refusal is a :class:`FetchError` with a code and a sentence naming what was refused and why;
whatever else goes wrong (an answer that is no HTTP, a bug) is one too, never another exception.
This module imports no Django: the app around it comes later (it imports the core only).
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import ipaddress
import logging
import socket
import ssl
import threading
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.exceptions import HTTPError as Urllib3Error
from urllib3.exceptions import SSLError
from urllib3.exceptions import TimeoutError as Urllib3Timeout
from urllib3.util.ssl_match_hostname import CertificateError

from citeview.core.common.links import is_safe_http_url
from citeview.core.common.phrases import Phrase, phrase
from citeview.core.common.sizes import mebibytes
from citeview.core.evidence.extract import parse_content_type

MAX_BYTES = 10 * 1024 * 1024
CONNECT_TIMEOUT = 5.0
TOTAL_TIMEOUT = 20.0
MAX_REDIRECTS = 5
ACCEPTED_TYPES = frozenset({"text/html", "application/xhtml+xml", "application/pdf", "text/plain"})
# The kinds of address refused, as a page writes them.
_REASON_WORDS = {
    "unspecified": phrase("unspecified"),
    "loopback": phrase("loopback"),
    "link-local": phrase("link-local"),
    "multicast": phrase("multicast"),
    "reserved": phrase("reserved"),
    "private": phrase("private"),
    "non-public": phrase("non-public"),
    "invalid": phrase("invalid"),
}
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_CHUNK = 64 * 1024
# What http.client reads of an answer's head before it gives up (its _MAXLINE and _MAXHEADERS).
_MAX_HEADER_LINE = 65_536
_MAX_HEADERS = 100

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Sequence[str]]
# A network a fetch may reach, and the one port it may reach there (None: any).
AllowedNetwork = tuple[Network, int | None]
AllowEntry = str | Network | tuple[str | Network, int | None]

logger = logging.getLogger(__name__)


def _citeview_version() -> str:
    try:
        return metadata.version("citeview")
    except metadata.PackageNotFoundError:  # a checkout, not an installed package: its pyproject says
        pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
        for line in pyproject.read_text(encoding="utf-8").splitlines() if pyproject.is_file() else ():
            if line.startswith("version = "):
                return line.split("=", 1)[1].strip().strip('"')
        return "dev"


USER_AGENT = f"citeview/{_citeview_version()} (+source snapshot for evidence review)"
_ACCEPT = "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8"


class FetchError(Exception):
    """A fetch refused or failed. ``code`` is stable; ``message`` is English, ``phrase`` lets a page
    write it in its own language. Codes: ``invalid_url``, ``scheme``, ``credentials``, ``no_host``,
    ``unresolvable``, ``forbidden_address``, ``forbidden_port``, ``host_refused`` (a fetch's one word
    for the three before it, when the URL names a host), ``connect_failed``, ``tls_failed``,
    ``timeout``, ``redirect_without_location``, ``redirect_loop``, ``too_many_redirects``,
    ``http_status``, ``content_type``, ``content_encoding``, ``too_large``, ``protocol``, ``failed``
    (anything no other code names). ``detail`` is for the log only, never for a page: what a host
    name resolved to, or what the resolver said."""

    def __init__(self, code: str, message: Phrase, url: str, status: int | None = None, detail: str = "") -> None:
        super().__init__(str(message))
        self.code = code
        self.phrase = message
        self.message = str(message)
        self.url = url
        self.status = status
        self.detail = detail

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.phrase.to_json(), "url": self.url, "status": self.status}


@dataclass(frozen=True)
class FetchedPage:
    requested_url: str
    final_url: str  # after redirects
    fetched_at: datetime  # when the fetch began, UTC
    elapsed: float  # seconds, redirects included
    status: int
    content_type: str  # the header as sent
    sha256: str  # of ``content``, hex
    content: bytes = field(repr=False)
    redirects: tuple[str, ...] = ()  # every URL that answered with a redirect, in order
    address: str = ""  # the address the final response came from


@dataclass(frozen=True)
class _Target:
    url: str
    scheme: str
    host: str  # ASCII (IDNA), no brackets
    port: int
    path: str  # path and query
    host_header: str


def fetch(
    url: str,
    *,
    allow_networks: Iterable[AllowEntry] = (),
    max_bytes: int = MAX_BYTES,
    connect_timeout: float = CONNECT_TIMEOUT,
    total_timeout: float = TOTAL_TIMEOUT,
    max_redirects: int = MAX_REDIRECTS,
    resolve: Resolver | None = None,
    ca_certs: str | None = None,
) -> FetchedPage:
    """GET ``url`` as a snapshot of a source; see the module's docstring for what is refused.
    ``allow_networks``: networks (``"10.1.0.0/16"``) and (network, port) pairs (``("10.1.0.0/16",
    8080)``: that port only) a fetch may reach though they are not public. Raises :class:`FetchError`
    and nothing else."""
    allowed = allowed_networks(allow_networks)
    try:
        return _fetched(url, allowed, max_bytes, connect_timeout, total_timeout, max_redirects, resolve, ca_certs)
    except FetchError:
        raise
    except Exception as error:  # a failure no rule here names: a refusal all the same, with its kind
        logger.warning("Fetching %s failed unexpectedly", url, exc_info=True)
        raise FetchError(
            "failed", phrase("{url} could not be fetched: {reason}.", url=url, reason=type(error).__name__), url
        ) from None


# What is read of the answer to a POST: its status is what counts; a receiver's long answer is not kept.
_POST_ANSWER_BYTES = 64 * 1024


def post(
    url: str,
    body: bytes,
    headers: dict[str, str],
    *,
    allow_networks: Iterable[AllowEntry] = (),
    total_timeout: float = TOTAL_TIMEOUT,
    resolve: Resolver | None = None,
    ca_certs: str | None = None,
) -> int:
    """POST ``body`` to ``url`` under the same address rules as a fetch (a webhook's endpoint is
    typed by staff, but a typo or a lookup must not reach the machine's own services): the host
    resolved once and every address checked, the connection to the address checked, the whole
    exchange ending at ``total_timeout`` seconds. No redirect is followed. Returns the answer's
    status; raises :class:`FetchError` when it is refused or no answer comes, and nothing else."""
    allowed = allowed_networks(allow_networks)
    deadline = time.monotonic() + total_timeout
    try:
        target = checked_url(url)
        address = _checked_address(target, allowed, resolve or resolve_host, deadline)
        return _posted(target, address, body, headers, deadline, ca_certs)
    except FetchError:
        raise
    except Exception as error:
        logger.warning("Posting to %s failed unexpectedly", url, exc_info=True)
        raise FetchError(
            "failed", phrase("{url} could not be reached: {reason}.", url=url, reason=type(error).__name__), url
        ) from None


def _posted(
    target: _Target, address: str, body: bytes, headers: dict[str, str], deadline: float, ca_certs: str | None
) -> int:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise _timeout(target.url)
    connection = _connection(target, address, min(CONNECT_TIMEOUT, remaining), ca_certs)
    watchdog = _Watchdog(connection, remaining)
    try:
        connection.connect()
        if connection.sock is not None:
            connection.sock.settimeout(max(deadline - time.monotonic(), 0.001))
        sent = {**headers, "Host": target.host_header, "User-Agent": USER_AGENT, "Connection": "close"}
        connection.request("POST", target.path, body=body, headers=sent, preload_content=False)
        response = connection.getresponse()
        response.read(_POST_ANSWER_BYTES)
        if watchdog.fired:
            raise _timeout(target.url)
        return int(response.status)
    except FetchError:
        raise
    except (Urllib3Error, OSError, ValueError, http.client.HTTPException) as error:
        raise _exchange_failure(target, error, watchdog, connection, posting=True) from None
    finally:
        watchdog.cancel()
        connection.close()


def _connection(target: _Target, address: str, timeout: float, ca_certs: str | None) -> HTTPConnection:
    """A connection to ``address``, the host named in the request, SNI and the certificate check."""
    if target.scheme == "https":
        return HTTPSConnection(
            address,
            target.port,
            timeout=timeout,
            server_hostname=target.host,
            assert_hostname=target.host,
            cert_reqs="CERT_REQUIRED",
            ca_certs=ca_certs,
        )
    return HTTPConnection(address, target.port, timeout=timeout)


def allowed_networks(entries: Iterable[AllowEntry]) -> tuple[AllowedNetwork, ...]:
    """``allow_networks`` as (network, port or None) pairs."""
    pairs: list[AllowedNetwork] = []
    for entry in entries:
        network, port = entry if isinstance(entry, tuple) else (entry, None)
        pairs.append((ipaddress.ip_network(network, strict=False), port))
    return tuple(pairs)


def _fetched(
    url: str,
    allowed: tuple[AllowedNetwork, ...],
    max_bytes: int,
    connect_timeout: float,
    total_timeout: float,
    max_redirects: int,
    resolve: Resolver | None,
    ca_certs: str | None,
) -> FetchedPage:
    resolver = resolve or resolve_host
    fetched_at = datetime.now(UTC)
    started = time.monotonic()
    deadline = started + total_timeout
    current, seen, redirects = url, {url}, list[str]()
    while True:
        target = checked_url(current)
        address = _reachable_address(target, allowed, resolver, deadline)
        status, headers, body = _exchange(target, address, deadline, connect_timeout, max_bytes, ca_certs)
        if status in _REDIRECTS:
            location = headers.get("location")
            if not location:
                raise FetchError(
                    "redirect_without_location",
                    phrase("{url} answered with a redirect ({status}) to no address.", url=current, status=status),
                    current,
                    status,
                )
            following = _joined(current, location, status)
            if following in seen:
                raise FetchError(
                    "redirect_loop",
                    phrase("{url} redirects in a loop, back to {target}.", url=url, target=following),
                    following,
                    status,
                )
            if len(redirects) >= max_redirects:
                raise FetchError(
                    "too_many_redirects",
                    phrase(
                        "{url} redirects more than {limit} times; citeview stops there.", url=url, limit=max_redirects
                    ),
                    following,
                    status,
                )
            redirects.append(current)
            seen.add(following)
            current = following
            continue
        content_type = headers.get("content-type", "")
        return FetchedPage(
            requested_url=url,
            final_url=current,
            fetched_at=fetched_at,
            elapsed=round(time.monotonic() - started, 3),
            status=status,
            content_type=content_type,
            sha256=hashlib.sha256(body or b"").hexdigest(),
            content=body or b"",
            redirects=tuple(redirects),
            address=address,
        )


# --- the URL ------------------------------------------------------------------------------------


def checked_url(url: str) -> _Target:
    """The parts of ``url`` to connect with, or the reason it is refused."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise FetchError("invalid_url", phrase("{url} is not a valid URL.", url=url), url) from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise FetchError(
            "scheme",
            phrase(
                "{url} is refused: only http and https pages are fetched, not {scheme}.", url=url, scheme=scheme or "?"
            ),
            url,
        )
    if parts.username is not None or parts.password is not None:
        raise FetchError(
            "credentials",
            phrase(
                "{url} is refused: it carries a user name or password, and citeview never sends credentials.", url=url
            ),
            url,
        )
    if not parts.hostname:
        raise FetchError("no_host", phrase("{url} is refused: it names no host.", url=url), url)
    if not is_safe_http_url(url):
        raise FetchError(
            "invalid_url",
            phrase(
                "{url} is refused: it holds spaces, invisible characters or backslashes a browser would read otherwise.",
                url=url,
            ),
            url,
        )
    host = _ascii_host(parts.hostname, url)
    port = port or (443 if scheme == "https" else 80)
    shown_host = f"[{host}]" if ":" in host else host
    default = (scheme, port) in (("http", 80), ("https", 443))
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return _Target(url, scheme, host, port, path, shown_host if default else f"{shown_host}:{port}")


def literal_refusal(url: str, allow_networks: Iterable[AllowEntry] = ()) -> FetchError | None:
    """What the rules refuse of ``url`` before any lookup: its form, and the address it writes when it
    writes one (a host name is checked when it is reached, as its answer may change)."""
    try:
        target = checked_url(url)
        ipaddress.ip_address(target.host.split("%")[0])
    except FetchError as refused:
        return refused
    except ValueError:
        return None  # a host name
    reason = address_refusal(target.host, allowed_networks(allow_networks), target.port)
    return _forbidden(target, reason, target.host) if reason else None


def _ascii_host(hostname: str, url: str) -> str:
    try:
        ipaddress.ip_address(hostname.split("%")[0])
        return hostname
    except ValueError:
        pass
    try:
        return hostname.encode("idna").decode("ascii").lower()
    except UnicodeError:
        raise FetchError("invalid_url", phrase("{url} is refused: its host name is not valid.", url=url), url) from None


# --- the address ----------------------------------------------------------------------------------


def resolve_host(host: str, port: int) -> list[str]:
    """Every address ``host`` has, in the resolver's order, each once."""
    answers = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    return list(dict.fromkeys(str(answer[4][0]) for answer in answers))


def address_refusal(
    address: str, allowed: Iterable[AllowEntry | AllowedNetwork] = (), port: int | None = None
) -> str | None:
    """Why ``address`` may not be fetched from on ``port`` (``loopback``, ``private``, …, or ``port``
    when its network is allowed on other ports only), or None when it may: it is public, or in
    ``allowed`` on that port. An IPv6 address carrying an IPv4 one (mapped, 6to4, Teredo) is judged by
    that IPv4 address too."""
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return "invalid"
    networks = allowed_networks(allowed)
    ports = [only for network, only in networks if ip.version == network.version and ip in network]
    if any(only is None or only == port for only in ports):
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return address_refusal(str(ip.ipv4_mapped), networks, port)  # ::ffff:10.0.0.1 is 10.0.0.1
    if isinstance(ip, ipaddress.IPv6Address):  # the IPv4 address inside says most (2002::/16 is "private")
        teredo = ip.teredo or (None, None)
        for embedded in (ip.sixtofour, *teredo):
            inner = address_refusal(str(embedded), networks, port) if embedded is not None else None
            if inner:
                return inner
    reason = _non_public(ip)
    return "port" if reason and ports else reason


def _non_public(ip: Address) -> str | None:
    for reason, flag in (
        ("unspecified", ip.is_unspecified),
        ("loopback", ip.is_loopback),
        ("link-local", ip.is_link_local),
        ("multicast", ip.is_multicast),
        ("reserved", ip.is_reserved),
        ("private", ip.is_private),
    ):
        if flag:
            return reason
    return None if ip.is_global else "non-public"  # shared (100.64/10), documentation, benchmarking, …


def _checked_address(target: _Target, allowed: tuple[AllowedNetwork, ...], resolver: Resolver, deadline: float) -> str:
    """The address to connect to: the first the host resolves to, once every one is allowed (a host
    with one private answer among public ones is refused: the next lookup might give that one)."""
    literal = _is_address(target.host)
    addresses = [target.host] if literal else _resolved(target, resolver, deadline)
    if not addresses:
        raise FetchError(
            "unresolvable", phrase("{host} has no address.", host=target.host), target.url, detail="no address"
        )
    for address in addresses:
        reason = address_refusal(address, allowed, target.port)
        if reason:
            detail = f"{target.host} resolves to {address} ({reason}, port {target.port})"
            raise _forbidden(target, reason, address if literal else None, detail)
    return addresses[0]


# The refusals that would tell which names exist inside if an editor saw them apart.
_HOST_REFUSALS = frozenset({"unresolvable", "forbidden_address", "forbidden_port"})


def _reachable_address(
    target: _Target, allowed: tuple[AllowedNetwork, ...], resolver: Resolver, deadline: float
) -> str:
    """:func:`_checked_address` for an editor's fetch: a host name that cannot be found and one whose
    address is refused read alike (finding 7 of issue 42: "cannot be found" against "resolves to a
    loopback address" mapped the names inside). An address the URL writes itself is refused in
    words, as it tells nothing the editor did not write. The reason goes to the log, for staff."""
    try:
        return _checked_address(target, allowed, resolver, deadline)
    except FetchError as refused:
        if refused.code not in _HOST_REFUSALS or _is_address(target.host):
            raise
        logger.warning("Fetch of %s refused (%s): %s", target.url, refused.code, refused.detail or refused.message)
        raise FetchError(
            "host_refused",
            phrase(
                "{url} is refused: its host cannot be found, or its address is not one citeview may fetch from.",
                url=target.url,
            ),
            target.url,
        ) from None


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return False
    return True


def _forbidden(target: _Target, reason: str, literal: str | None, detail: str = "") -> FetchError:
    """The refusal of an address, naming the rule broken. The address itself is named only when the
    URL wrote it: what a host name resolves to stays unsaid."""
    if reason == "port":
        return FetchError(
            "forbidden_port",
            phrase(
                "{url} is refused: citeview fetches from its host's network on the ports allowed for it only, "
                "not on port {port}.",
                url=target.url,
                port=target.port,
            ),
            target.url,
            detail=detail,
        )
    words = _REASON_WORDS.get(reason, reason)
    if literal is not None:
        message = phrase(
            "{url} is refused: it names {address}, a {reason} address, which citeview never fetches from.",
            url=target.url,
            address=literal,
            reason=words,
        )
    else:
        message = phrase(
            "{url} is refused: its host resolves to a {reason} address, which citeview never fetches from.",
            url=target.url,
            reason=words,
        )
    return FetchError("forbidden_address", message, target.url, detail=detail)


def _resolved(target: _Target, resolver: Resolver, deadline: float) -> Sequence[str]:
    """The resolver's answer, within the time left (getaddrinfo has no timeout of its own, so it runs
    in a thread that is left to finish when the time is up)."""
    executor = ThreadPoolExecutor(max_workers=1)
    try:
        return executor.submit(resolver, target.host, target.port).result(timeout=max(deadline - time.monotonic(), 0))
    except FutureTimeout:
        # A name whose lookup times out is said as one that cannot be found: a code of its own would tell
        # an editor which internal names exist (a slow internal resolver against a public one's answer).
        said, why = phrase("{host} cannot be found (no DNS answer in time).", host=target.host), "the lookup timed out"
    except (OSError, UnicodeError) as error:
        said, why = phrase("{host} cannot be found (no DNS answer).", host=target.host), _reason(error)
    finally:
        executor.shutdown(wait=False)
    raise FetchError("unresolvable", said, target.url, detail=f"{target.host}: {why}")


# --- the exchange ---------------------------------------------------------------------------------


def _exchange(
    target: _Target, address: str, deadline: float, connect_timeout: float, max_bytes: int, ca_certs: str | None
) -> tuple[int, dict[str, str], bytes | None]:
    """One request to ``address``: its status, headers (names lowercased) and, unless it redirects, its body."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise _timeout(target.url)
    timeout = min(connect_timeout, remaining)  # the socket's while connecting; then the time left
    connection = _connection(target, address, timeout, ca_certs)
    watchdog = _Watchdog(connection, remaining)
    try:
        connection.connect()
        if connection.sock is not None:
            connection.sock.settimeout(max(deadline - time.monotonic(), 0.001))
        connection.request(
            "GET",
            target.path,
            headers={
                "Host": target.host_header,
                "User-Agent": USER_AGENT,
                "Accept": _ACCEPT,
                "Accept-Encoding": "identity",
                "Connection": "close",
            },
            preload_content=False,
            decode_content=False,
        )
        response = connection.getresponse()
        if watchdog.fired:  # the headers were cut short when the time ran out
            raise _timeout(target.url)
        headers = {name.lower(): value for name, value in response.headers.items()}
        if response.status in _REDIRECTS:
            return response.status, headers, None
        _check_answer(target, response.status, headers, max_bytes)
        return response.status, headers, _body(target, response, headers, deadline, max_bytes, watchdog)
    except FetchError:
        raise
    except (Urllib3Error, OSError, ValueError) as error:  # before HTTPException: RemoteDisconnected is both
        raise _exchange_failure(target, error, watchdog, connection, posting=False) from None
    except http.client.HTTPException as error:  # an answer that is no HTTP, or more of it than is read
        if watchdog.fired:
            raise _timeout(target.url) from None
        raise _not_http(target.url, error) from None
    finally:
        watchdog.cancel()
        connection.close()


def _exchange_failure(
    target: _Target, error: Exception, watchdog: _Watchdog, connection: HTTPConnection, *, posting: bool
) -> FetchError:
    """What an exchange that raised ``error`` failed of: the time (the watchdog fired, or the socket
    timed out), TLS (the connection, or a certificate not the host's), the connection or the protocol."""
    tls = isinstance(error, SSLError | ssl.SSLError | CertificateError)
    if watchdog.fired or (not tls and isinstance(error, TimeoutError | Urllib3Timeout)):
        return _timeout(target.url)
    if tls:
        return FetchError(
            "tls_failed",
            phrase("{url} could not be reached securely: {reason}.", url=target.url, reason=_reason(error)),
            target.url,
        )
    code = "connect_failed" if connection.sock is None else "protocol"
    if posting:
        return FetchError(
            code, phrase("{url} could not be reached: {reason}.", url=target.url, reason=_reason(error)), target.url
        )
    return FetchError(
        code, phrase("{url} could not be fetched: {reason}.", url=target.url, reason=_reason(error)), target.url
    )


def _check_answer(target: _Target, status: int, headers: dict[str, str], max_bytes: int) -> None:
    if not 200 <= status < 300:
        raise FetchError(
            "http_status",
            phrase("{url} answered {status}: there is no page to keep.", url=target.url, status=status),
            target.url,
            status,
        )
    media_type, _ = parse_content_type(headers.get("content-type"))
    if not media_type:
        raise FetchError(
            "content_type",
            phrase("{url} states no content type; only HTML, PDF and plain text pages are kept.", url=target.url),
            target.url,
            status,
        )
    if media_type not in ACCEPTED_TYPES:
        raise FetchError(
            "content_type",
            phrase(
                "{url} is {content_type}; only HTML, PDF and plain text pages are kept.",
                url=target.url,
                content_type=media_type,
            ),
            target.url,
            status,
        )
    length = headers.get("content-length", "").strip()
    if length.isdigit() and int(length) > max_bytes:
        raise _too_large(target.url, max_bytes, status)
    if headers.get("content-encoding", "identity").strip().lower() not in ("identity", "gzip", "x-gzip", "deflate", ""):
        raise FetchError(
            "content_encoding",
            phrase(
                "{url} was sent compressed as {encoding}, which citeview does not read.",
                url=target.url,
                encoding=headers["content-encoding"],
            ),
            target.url,
            status,
        )


def _body(
    target: _Target, response: Any, headers: dict[str, str], deadline: float, max_bytes: int, watchdog: _Watchdog
) -> bytes:
    """The body, read as it comes, decompressed within the cap when it was compressed anyway."""
    encoding = headers.get("content-encoding", "").strip().lower()
    inflater = zlib.decompressobj(wbits=zlib.MAX_WBITS | 32) if encoding in ("gzip", "x-gzip", "deflate") else None
    pieces, size = [], 0
    while True:
        if time.monotonic() > deadline:
            raise _timeout(target.url)
        chunk = response.read1(_CHUNK)
        if not chunk:
            break
        if inflater is not None:
            try:
                chunk = inflater.decompress(chunk, max_bytes - size + 1)
            except zlib.error:
                raise FetchError(
                    "content_encoding",
                    phrase("{url} says it was sent compressed as {encoding}, but it cannot be uncompressed.",
                           url=target.url, encoding=encoding),
                    target.url,
                    response.status,
                ) from None  # fmt: skip
            if inflater.unconsumed_tail:  # more than the cap is left in this piece alone
                raise _too_large(target.url, max_bytes, response.status)
        size += len(chunk)
        if size > max_bytes:
            raise _too_large(target.url, max_bytes, response.status)
        pieces.append(chunk)
    if watchdog.fired:
        raise _timeout(target.url)
    return b"".join(pieces)


class _Watchdog:
    """Shuts the connection's socket when the fetch's time is up, whatever it is waiting for."""

    def __init__(self, connection: HTTPConnection, seconds: float) -> None:
        self.fired = False
        self._connection = connection
        self._timer = threading.Timer(max(seconds, 0), self._fire)
        self._timer.daemon = True
        self._timer.start()

    def _fire(self) -> None:
        self.fired = True
        sock = self._connection.sock
        if sock is not None:
            with contextlib.suppress(OSError):  # already closed
                sock.shutdown(socket.SHUT_RDWR)

    def cancel(self) -> None:
        self._timer.cancel()


def _joined(current: str, location: str, status: int) -> str:
    """The URL a redirect's ``Location`` names, read against the URL that sent it."""
    try:
        return urljoin(current, location.strip())
    except ValueError:  # "http://[::1" and the like
        raise FetchError(
            "invalid_url",
            phrase("{url} redirects ({status}) to an address that is not a valid URL.", url=current, status=status),
            current,
            status,
        ) from None


def _not_http(url: str, error: http.client.HTTPException) -> FetchError:
    """What http.client could not read of an answer, said as what the server did."""
    if isinstance(error, http.client.LineTooLong):
        message = phrase(
            "{url} sent a line longer than {limit:,} bytes in its headers; citeview stops reading there.",
            url=url,
            limit=_MAX_HEADER_LINE,
        )
    elif isinstance(error, http.client.BadStatusLine):  # an SSH or SMTP banner, a bare text
        message = phrase("{url} did not answer in HTTP: its first line is not an HTTP status line.", url=url)
    elif "headers" in str(error):  # "got more than 100 headers", a plain HTTPException
        message = phrase(
            "{url} sent more than {limit} headers; citeview stops reading there.", url=url, limit=_MAX_HEADERS
        )
    else:
        message = phrase(
            "{url} sent an answer that is not valid HTTP ({reason}).", url=url, reason=type(error).__name__
        )
    return FetchError("protocol", message, url)


def _reason(error: Exception) -> str:
    text = str(error).strip() or type(error).__name__
    return text[:200]


def _timeout(url: str) -> FetchError:
    return FetchError("timeout", phrase("{url} took too long to answer; citeview stopped waiting.", url=url), url)


def _too_large(url: str, limit: int, status: int | None) -> FetchError:
    return FetchError(
        "too_large",
        phrase("{url} is larger than {limit}, the most citeview keeps of a page.", url=url, limit=mebibytes(limit)),
        url,
        status,
    )
