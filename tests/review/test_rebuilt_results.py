"""Review learns of a rebuilt result from the dumps app's signal ``result_rebuilt`` (dumps may not import
review) and counts the dump's checked items again; a dump's reading, re-reading and rebuilding all live
in ``citeview.dumps.reading``, and review defines no ``dump_*`` function of its own."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from citeview.dumps.models import Dump
from citeview.dumps.reading import dump_rebuild, dump_rebuild_stored
from citeview.dumps.signals import result_rebuilt
from tests.review.conftest import AGREED, save

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def sent() -> list[int]:
    received: list[int] = []

    def note(sender, *, pk, **kwargs):
        received.append(pk)

    result_rebuilt.connect(note, dispatch_uid="test-result-rebuilt")
    yield received
    result_rebuilt.disconnect(dispatch_uid="test-result-rebuilt")


def test_a_rebuild_says_so_with_the_dumps_id(dump, sent):
    dump_rebuild(dump=Dump.objects.get(pk=dump.pk))
    assert sent == [dump.pk]


def test_a_rebuild_task_for_a_current_result_says_nothing(dump, sent):
    assert not dump_rebuild_stored(pk=dump.pk)
    assert sent == []


def test_reading_a_new_dump_says_nothing_of_a_rebuild(editor, sent, settings):
    from citeview.dumps.services import dump_ingest
    from tests.conftest import own_fixture

    settings.CITEVIEW_READ_IN_TASK_ABOVE = 0  # read by the (immediate) worker's task read_dump
    dump, _created = dump_ingest(raw=own_fixture("agent-seed-incomplete.sse"), uploaded_by=editor)
    assert Dump.objects.get(pk=dump.pk).is_ready
    assert sent == []


def test_review_recounts_the_checked_items_when_told_of_a_rebuild(client, editor, dump):
    client.force_login(editor)
    save(client, dump, AGREED, "complete")
    Dump.objects.filter(pk=dump.pk).update(checked_item_count=7, complete_item_count=7)
    result_rebuilt.send(sender=Dump, pk=dump.pk)
    counted = Dump.objects.get(pk=dump.pk)
    assert counted.checked_item_count == 1 and counted.complete_item_count != 7


def test_a_rebuilt_dump_deleted_meanwhile_is_left_alone(dump):
    Dump.objects.filter(pk=dump.pk).delete()
    result_rebuilt.send(sender=Dump, pk=dump.pk)  # no error: nothing to count


def test_review_defines_no_dump_function():
    found = subprocess.run(
        ["git", "grep", "-n", "def dump_", "citeview/review"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert found.stdout == ""
