"""Blind first, through every reader of checks: an editor reads nothing of another editor's check of an
item (its verdict, quote, note, statement answers, or its weight in a figure) until their own check of
it is saved; a reviewer reads everything. One selector decides (``checks_visible_to``); this walks
every page, API view, export and figure that could give a check away."""

from __future__ import annotations

import pytest
from django.urls import reverse

from citeview.dumps.services import dump_ingest
from tests.conftest import own_fixture

pytestmark = pytest.mark.django_db

ITEM = "r0-c0-1"
NOTE = "花子のメモ-見えてはいけない"
QUOTE = "花子が引いた根拠の一文"
THEIRS = {"verdict": "supports_and_refutes", "verification_worthy": "yes", "supported_together": "contradict"}


@pytest.fixture
def dump(editor):
    return dump_ingest(raw=own_fixture("agent-seed-incomplete.sse"), uploaded_by=editor)[0]


def save(client, dump, version: int, **fields: str):
    body = {"version": str(version), "verdict": "none", "verification_worthy": "no", **fields}
    return client.post(reverse("review:item", args=[dump.pk, ITEM]), body)


def text_readers(client, dump) -> dict[str, str]:
    """Everything a person or a script can read that may carry a check's words."""
    pk = dump.pk
    pages = {
        "check page": reverse("review:item", args=[pk, ITEM]),
        "report page": reverse("review:report", args=[pk]),
        "report json": reverse("review:report_json", args=[pk]),
        "report md": reverse("review:report_md", args=[pk]),
        "api checks": f"/api/dumps/{pk}/checks",
        "api report": f"/api/dumps/{pk}/report",
        "api report md": f"/api/dumps/{pk}/report.md",
        "verdicts csv": reverse("review:verdicts_csv"),
        "verdicts jsonl": reverse("review:verdicts_jsonl"),
        "viewer": reverse("pages:detail", args=[pk]),
    }
    read = {}
    for name, url in pages.items():
        response = client.get(url)
        assert response.status_code == 200, name
        body = b"".join(response.streaming_content) if response.streaming else response.content
        read[name] = body.decode()  # every JSON here is written with ensure_ascii off
    return read


def figure_counts(client) -> dict[str, int]:
    """How many supports_and_refutes verdicts each figure reader counts (only Hanako gives that verdict)."""
    counts = {}
    for name, url in (("figures json", reverse("review:figures_json")), ("api metrics", "/api/metrics")):
        counts[name] = client.get(url).json()["overall"]["editor_verdicts"]["supports_and_refutes"]
    page = client.get(reverse("review:figures")).content.decode()
    counts["figures page hides"] = int("left out until you have checked" in page)
    return counts


def test_an_editor_reads_no_other_editors_check_until_their_own_is_saved(client, editor, second_editor, dump):
    client.force_login(editor)
    assert save(client, dump, 0, note=NOTE, evidence_quote=QUOTE, **THEIRS).status_code == 302

    client.force_login(second_editor)
    for name, text in text_readers(client, dump).items():
        assert NOTE not in text and QUOTE not in text, f"{name} gives Hanako's check away before Taro's own"
    assert figure_counts(client) == {"figures json": 0, "api metrics": 0, "figures page hides": 1}
    assert client.get(f"/api/dumps/{dump.pk}/checks").json()["hidden_until_you_check"] == 1
    assert (
        client.get(reverse("review:figures_json")).json()["hidden_until_you_check"] == 2
    )  # the check, its statement answers
    csv = client.get(reverse("review:verdicts_csv"))
    assert csv["X-Citeview-Hidden-Until-You-Check"] == "1"
    conflict = save(client, dump, 0, note="太郎の入力")  # stale: Hanako saved version 1 meanwhile
    page = conflict.content.decode()
    assert conflict.status_code == 409 and "太郎の入力" in page
    assert (
        NOTE not in page and QUOTE not in page and "hanako" not in page and "Contradict" not in page.split("<form")[0]
    )

    assert save(client, dump, 1, note="太郎の判定").status_code == 302  # Taro's own check, now saved
    for name, text in text_readers(client, dump).items():
        if name != "viewer":  # the viewer shows no checks at all
            assert NOTE in text, f"{name} still hides Hanako's check after Taro's own"
    assert figure_counts(client) == {"figures json": 1, "api metrics": 1, "figures page hides": 0}
    client.force_login(editor)
    assert save(client, dump, 2, note=NOTE + "（見直し）", **THEIRS).status_code == 302
    client.force_login(second_editor)
    conflict = save(client, dump, 2, note="太郎の再入力").content.decode()
    assert "hanako" in conflict and NOTE + "（見直し）" in conflict  # having judged, both versions side by side


def test_a_reviewer_reads_every_check_at_once(client, editor, reviewer, dump):
    client.force_login(editor)
    save(client, dump, 0, note=NOTE, evidence_quote=QUOTE, **THEIRS)
    client.force_login(reviewer)
    for name, text in text_readers(client, dump).items():
        if name != "viewer":
            assert NOTE in text, name
    assert figure_counts(client) == {"figures json": 1, "api metrics": 1, "figures page hides": 0}
