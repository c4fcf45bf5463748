"""Finding 7 of issue 42: a fetch's refusals map no internal names. A host name that cannot be found and
one that resolves to a loopback, private or link-local address (or to an allowed network on a port
not allowed) read alike to an editor, in English and in Japanese, on the fetcher's error and on the
check page; the log keeps each reason, and the address, for staff."""

from __future__ import annotations

import json
import logging
import re
import socket
import time

import pytest
from django.urls import reverse
from django.utils import translation

from citeview.core.common.phrases import phrase_text
from citeview.dumps.services import dump_ingest
from citeview.snapshots import fetch as fetcher
from citeview.snapshots.fetch import FetchError, fetch
from citeview.snapshots.models import SnapshotFetch
from tests.builders import sonar_object

URL = "http://wiki.corp.example/start"
CLAIM = "As of January 2024, the population of Tokyo was about 14.1 million[1]."


def _nowhere(host: str, port: int) -> list[str]:
    raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")


# Each way a name may be out of reach, and what the log must say of it (the staff's reason).
ANSWERS = {
    "does not exist": (_nowhere, "Name or service not known"),
    "has no address": (lambda host, port: [], "no address"),
    "loopback": (lambda host, port: ["127.0.0.1"], "127.0.0.1 (loopback"),
    "private": (lambda host, port: ["10.20.30.40"], "10.20.30.40 (private"),
    "link-local": (lambda host, port: ["169.254.169.254"], "169.254.169.254 (link-local"),
    "private IPv6": (lambda host, port: ["fd12:3456::1"], "fd12:3456::1 (private"),
    "one private among public": (lambda host, port: ["93.184.215.14", "192.168.1.10"], "192.168.1.10 (private"),
    "allowed network, other port": (lambda host, port: ["10.9.0.1"], "10.9.0.1 (port"),
}
# The deployment's allow-list: 10.9/16 on port 8080 only (the URL asks for port 80).
ALLOWED = [("10.9.0.0/16", 8080)]


def refused(resolver) -> FetchError:
    with pytest.raises(FetchError) as caught:
        fetch(URL, allow_networks=ALLOWED, resolve=resolver, total_timeout=5.0)
    return caught.value


def test_every_name_out_of_reach_gets_one_refusal_in_english_and_japanese(caplog):
    caplog.set_level(logging.WARNING, logger="citeview.snapshots.fetch")
    errors = {name: refused(resolver) for name, (resolver, _) in ANSWERS.items()}
    english = {name: error.message for name, error in errors.items()}
    with translation.override("ja"):
        japanese = {name: phrase_text(error.phrase.to_json(), translation.gettext) for name, error in errors.items()}
    assert len(set(english.values())) == 1, english
    assert len(set(japanese.values())) == 1, japanese
    assert {(error.code, json.dumps(error.to_json())) for error in errors.values()} == {
        ("host_refused", json.dumps(errors["loopback"].to_json()))
    }
    assert english["loopback"] == (
        f"{URL} is refused: its host cannot be found, or its address is not one citeview may fetch from."
    )
    assert japanese["loopback"] != english["loopback"] and "ホストが見つからない" in japanese["loopback"]


def test_the_log_keeps_each_reason_and_the_address_for_staff(caplog):
    caplog.set_level(logging.WARNING, logger="citeview.snapshots.fetch")
    for name, (resolver, reason) in ANSWERS.items():
        caplog.clear()
        refused(resolver)
        logged = [record.getMessage() for record in caplog.records if record.name == "citeview.snapshots.fetch"]
        assert len(logged) == 1 and URL in logged[0] and reason in logged[0], (name, logged)
    assert "unresolvable" in _logged_reason(caplog, _nowhere)
    assert "forbidden_address" in _logged_reason(caplog, ANSWERS["loopback"][0])


def _logged_reason(caplog, resolver) -> str:
    caplog.clear()
    refused(resolver)
    return caplog.records[-1].getMessage()


# --- on the check page ----------------------------------------------------------------------------


def _refusal_on_the_page(client, dump, language: str) -> str:
    page = client.post(
        reverse("review:snapshot", args=[dump.pk, "r0-c0"]),
        {"take": "fetch"},
        follow=True,
        HTTP_ACCEPT_LANGUAGE=language,
    ).content.decode()
    shown = re.search(r'<div class="cv-warning cv-fetch-refused".*?</div>', page, re.S)
    assert shown is not None, page
    return shown.group(0)


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "ja"])
def test_an_editor_sees_the_same_refusal_whether_a_name_exists_inside_or_not(
    client, editor, settings, monkeypatch, language
):
    settings.CITEVIEW_SNAPSHOT_FETCH = True
    settings.CITEVIEW_SNAPSHOT_FETCH_ALLOW_NETWORKS = ALLOWED
    client.force_login(editor)
    dump = dump_ingest(raw=json.dumps(sonar_object(CLAIM, [URL])).encode(), uploaded_by=editor)[0]
    shown = {}
    for name, (resolver, _) in ANSWERS.items():
        monkeypatch.setattr(fetcher, "resolve_host", resolver)
        shown[name] = _refusal_on_the_page(client, dump, language)
    assert len(set(shown.values())) == 1, shown
    assert URL in shown["loopback"] and "127.0.0.1" not in shown["loopback"]
    assert set(SnapshotFetch.objects.values_list("error_code", flat=True)) == {"host_refused"}
    assert SnapshotFetch.objects.count() == len(ANSWERS)


def test_a_lookup_that_times_out_gets_the_same_refusal(caplog):
    """A slow internal resolver's timeout had a code and sentence of its own."""
    caplog.set_level(logging.WARNING, logger="citeview.snapshots.fetch")

    def slow(host: str, port: int) -> list[str]:
        time.sleep(1.5)
        return ["10.20.30.40"]

    with pytest.raises(FetchError) as caught:
        fetch(URL, allow_networks=ALLOWED, resolve=slow, total_timeout=0.3)
    assert (caught.value.code, caught.value.message) == (refused(_nowhere).code, refused(_nowhere).message)
    assert "the lookup timed out" in caplog.text
