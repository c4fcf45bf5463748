"""A stored result is out of date as soon as anything that made it changes, and is then rebuilt.

The version is a digest (``citeview.dumps.derived.result_version``) of the core's code and rendering
libraries (``tests/core/common/test_version.py``), the code that derives the stored fields, the footnote cap
and the catalogues whose words the renderings carry.
"""

from __future__ import annotations

import shutil

import pytest
from django.core.management import call_command

from citeview.dumps import derived
from citeview.dumps.derived import result_version
from citeview.dumps.models import Dump
from citeview.dumps.selectors import dump_result_is_current, dumps_outdated
from citeview.dumps.services import dump_ingest
from tests.conftest import PROJECT_DIR, own_fixture

pytestmark = pytest.mark.django_db


@pytest.fixture
def dump():
    return dump_ingest(raw=own_fixture("agent-seed-incomplete.sse"), uploaded_by=None)[0]


def catalogue(root, content: bytes):
    folder = root / "ja" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (folder / "django.mo").write_bytes(content)
    return root


def test_a_stored_result_is_current_until_something_that_made_it_changes(dump):
    assert dump.result_version == result_version() and dump_result_is_current(dump)
    assert list(dumps_outdated()) == []


def test_a_change_to_the_core_makes_every_stored_result_out_of_date_and_refresh_dumps_rebuilds_it(
    dump, monkeypatch, capsys
):
    monkeypatch.setattr(derived, "RESULT_VERSION", "0" * 64)  # as a changed parser would make it
    assert not dump_result_is_current(Dump.objects.get(pk=dump.pk)) and list(dumps_outdated()) == [dump]
    call_command("refresh_dumps")
    assert "rebuilding of 1 dump(s)" in capsys.readouterr().out
    assert dump_result_is_current(Dump.objects.get(pk=dump.pk)) and list(dumps_outdated()) == []


def test_a_change_to_the_code_that_derives_the_stored_fields_changes_the_version(monkeypatch, tmp_path):
    before = result_version()
    changed = tmp_path / "derived.py"
    changed.write_bytes(PROJECT_DIR.joinpath("citeview/dumps/derived.py").read_bytes() + b"\n# changed\n")
    monkeypatch.setattr(derived, "__file__", str(changed))
    assert result_version() != before


def test_another_footnote_cap_makes_every_stored_rendering_out_of_date(dump, settings):
    settings.CITEVIEW_MAX_CITATIONS_DRAWN = 3
    assert not dump_result_is_current(Dump.objects.get(pk=dump.pk))


def test_another_catalogue_makes_every_stored_rendering_out_of_date(settings, tmp_path):
    settings.LOCALE_PATHS = [catalogue(tmp_path / "one", b"the words before")]
    before = result_version()
    settings.LOCALE_PATHS = [catalogue(tmp_path / "two", b"the words after")]
    assert result_version() != before
    shutil.rmtree(tmp_path / "two" / "ja")
    assert result_version() != before  # no catalogue at all: the renderings would be in English


def test_a_catalogue_compiled_again_under_a_development_server_is_seen_at_once(settings, tmp_path):
    settings.DEBUG = True
    settings.LOCALE_PATHS = [catalogue(tmp_path, b"the words before")]
    before = result_version()
    (tmp_path / "ja" / "LC_MESSAGES" / "django.mo").write_bytes(b"the words after")
    assert result_version() != before
