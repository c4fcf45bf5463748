"""The people and the dumps the review's tests share: leads, a dump two editors disagree on, and ten
items both editors checked with one of their disagreements settled."""

from __future__ import annotations

import pytest
from django.urls import reverse

from citeview.dumps.models import Dump
from citeview.dumps.services import dump_ingest
from tests.conftest import own_fixture, user_with_role
from tests.review.report_dump import SETTLE_REASON, check_everything, settle, ten_item_dump

SEED = "agent-seed-incomplete.sse"  # one statement citing [2] (two URLs) and [9]; [8] unresolved
DISPUTED = "r0-c1"  # [9]: hanako says partial, taro none
AGREED = "r0-c0-1"  # [2]'s first URL: both say complete
TARO_NOTE = "太郎のメモ：出典は一部しか言っていない"
TARO_QUOTE = "太郎が引いた一文"


def version_of(dump: Dump, key: str) -> int:
    return dump.item_states.filter(key=key).values_list("version", flat=True).first() or 0


def save(client, dump: Dump, key: str, verdict: str, **fields: str) -> None:
    body = {"version": str(version_of(dump, key)), "verdict": verdict, "verification_worthy": "yes", **fields}
    url = reverse("review:item", args=[dump.pk, key])
    assert client.post(url, {"supported_together": "yes", **body}).status_code == 302


@pytest.fixture
def dump(editor) -> Dump:
    return dump_ingest(raw=own_fixture(SEED), uploaded_by=editor, filename=SEED)[0]


@pytest.fixture
def disputed(client, dump, editor, second_editor) -> Dump:
    """Two editors: both say complete for [2]'s first URL; partial and none for [9]."""
    client.force_login(editor)
    save(client, dump, AGREED, "complete")
    save(client, dump, DISPUTED, "partial", note="花子のメモ")
    client.force_login(second_editor)
    save(client, dump, AGREED, "complete")
    save(client, dump, DISPUTED, "none", note=TARO_NOTE, evidence_quote=TARO_QUOTE)
    client.logout()
    return dump


@pytest.fixture
def lead(django_user_model):
    return user_with_role(django_user_model, "sato", "lead")


@pytest.fixture
def second_lead(django_user_model):
    return user_with_role(django_user_model, "kato", "lead")


@pytest.fixture
def checked(editor, second_editor, django_user_model) -> Dump:
    """Ten items both editors checked; they differ on [3] (not settled) and [5] (settled: partial)."""
    dump = ten_item_dump(editor)
    check_everything(dump, editor, 0)
    check_everything(dump, second_editor, 1)
    settle(dump, user_with_role(django_user_model, "kimura", "lead"), "[5]", "partial", SETTLE_REASON)
    return dump
