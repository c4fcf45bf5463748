"""Bulk import: a .zip of dumps or JSON Lines of responses, on the page, through the API and the command.
Every entry gets its own result, and one bad entry never stops the others."""

from __future__ import annotations

import io
import json
import re
import tracemalloc
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from citeview.dumps.models import Dump
from tests.builders import sonar_object
from tests.conftest import own_fixture
from tests.zips import archive, listing, understated

pytestmark = pytest.mark.django_db


def sonar(text: str) -> bytes:
    return json.dumps(sonar_object(text, ["https://example.jp/a"]), ensure_ascii=False).encode()


MIXED = {
    "run/一つ目.json": sonar("一つ目の回答[1]"),
    "run/stream.sse": own_fixture("agent-seed-incomplete.sse"),
    "run/壊れた.json": b'{"choices": [',
    "run/again.json": sonar("一つ目の回答[1]"),
    "__MACOSX/run/._一つ目.json": b"\x00\x05\x16\x07",
    "run/.DS_Store": b"\x00\x00\x00\x01Bud1",
}


def api_import(client, data: bytes, content_type: str = "application/zip", name: str = "batch.zip"):
    return client.generic("POST", "/api/imports", data, content_type=content_type, headers={"X-Filename": name})


def test_a_zip_through_the_api_stores_each_file_and_reports_the_bad_one(editor_api):
    body = api_import(editor_api, archive(MIXED)).json()
    assert (body["stored"], body["already_stored"], body["errors"]) == (2, 1, 1)
    outcomes = {r["name"]: r for r in body["results"]}
    assert set(outcomes) == {f"batch.zip: run/{n}" for n in ("一つ目.json", "stream.sse", "壊れた.json", "again.json")}
    assert outcomes["batch.zip: run/壊れた.json"]["error"]["code"] == "truncated_json"
    assert outcomes["batch.zip: run/again.json"]["id"] == outcomes["batch.zip: run/一つ目.json"]["id"]
    assert sorted(Dump.objects.values_list("filename", flat=True)) == ["stream.sse", "一つ目.json"]


def test_json_lines_store_one_dump_a_line(editor_api):
    lines = b"\n".join([sonar("一行目[1]"), b"", sonar("二行目[1]"), b'{"no": "provider"}']) + b"\n"
    body = api_import(editor_api, lines, "application/x-ndjson", "answers.jsonl").json()
    assert (body["stored"], body["errors"]) == (2, 1)
    assert body["results"][2] == {
        "name": "answers.jsonl, line 4",
        "outcome": "error",
        "error": {"code": "unknown_provider", "message": body["results"][2]["error"]["message"]},
    }
    assert sorted(Dump.objects.values_list("filename", flat=True)) == ["answers-line-1.json", "answers-line-3.json"]


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", "empty"),
        (b"\xef\xbb\xbf\n", "empty"),
        (b"[" * 200_000 + b"\n", "not_jsonl"),
        (b"PK\x03\x04 not really a zip", "invalid_zip"),
        (json.dumps(sonar_object("x", []), indent=2).encode(), "not_jsonl"),
        (archive({"__MACOSX/x": b"junk"}), "empty"),
    ],
)
def test_a_file_that_is_no_import_at_all_is_refused_with_the_reason(editor_api, data, code):
    response = api_import(editor_api, data)
    assert response.status_code == 400 and response.json()["error"]["code"] == code


def test_a_dump_in_the_zip_over_the_dump_limit_is_refused_alone(editor_api, settings):
    settings.CITEVIEW_MAX_DUMP_BYTES = 2000
    body = api_import(
        editor_api, archive({"small.json": sonar("短い[1]"), "big.json": sonar("長い" * 2000 + "[1]")})
    ).json()
    assert body["stored"] == 1 and body["results"][1]["error"]["code"] == "too_large"


def test_an_import_over_the_import_limit_is_413(editor_api, settings):
    settings.CITEVIEW_MAX_IMPORT_BYTES = 100
    response = api_import(editor_api, archive(MIXED))
    assert response.status_code == 413 and response.json()["error"]["code"] == "too_large"


def test_reviewers_do_not_import(reviewer_api):
    assert api_import(reviewer_api, archive(MIXED)).status_code == 403


def test_the_page_shows_each_file_as_it_is_stored_then_a_summary(editor_client):
    response = editor_client.post("/imports/", {"file": SimpleUploadedFile("batch.zip", archive(MIXED))}, follow=True)
    assert response.redirect_chain[0][0].startswith("/imports/") and response.status_code == 200
    page = response.content.decode()
    rows = re.findall(r'<li class="cv-import-row.*?</li>', page, re.S)
    assert len(rows) == 4 and "1 / 4" in rows[0] and "4 / 4" in rows[3]
    assert "stored as dump" in page and "already stored as dump" in page and "ends in the middle" not in page
    assert "2 stored" in page and "1 already stored" in page and "1 could not be stored" in page


def test_the_page_speaks_japanese_while_it_streams(editor_client):
    response = editor_client.post(
        "/imports/", {"file": SimpleUploadedFile("batch.zip", archive(MIXED))}, HTTP_ACCEPT_LANGUAGE="ja", follow=True
    )
    page = response.content.decode()
    assert 'lang="ja"' in page and "件" in page


def test_a_bad_import_file_on_the_page_is_an_error_in_the_form(editor_client):
    response = editor_client.post("/imports/", {"file": SimpleUploadedFile("a.jsonl", b"not json\n")})
    assert response.status_code == 400 and "JSON Lines" in response.content.decode()


def test_the_import_page_is_for_editors(client, reviewer, editor_client):
    assert editor_client.get("/imports/").status_code == 200
    client.force_login(reviewer)
    assert client.get("/imports/").status_code == 403


def test_an_imports_page_is_for_its_editor_staff_and_reviewers_and_not_found_by_another_editor(
    client, editor, second_editor, reviewer, django_user_model
):
    client.force_login(editor)
    page = client.post("/imports/", {"file": SimpleUploadedFile("batch.zip", archive(MIXED))}).url
    rows = f"{page}rows?after=0"
    assert "壊れた.json" in client.get(page).content.decode() and "壊れた.json" in client.get(rows).json()["rows_html"]
    client.force_login(second_editor)
    for address in (page, rows):  # answered as an import that does not exist
        response = client.get(address)
        assert response.status_code == 404 and "壊れた.json" not in response.content.decode()
    staff = django_user_model.objects.create_superuser(username="admin", password="an-admin-password")
    for reader in (reviewer, staff):
        client.force_login(reader)
        shown = client.get(page).content.decode()
        assert "2 stored" in shown and ("Import more" in shown) == (reader is staff)  # reviewers do not import
        assert client.get(rows).json()["shown"] == 4
    client.logout()
    assert client.get(page).status_code == 302  # to the login page


def test_the_command_imports_paths_with_progress_and_fails_at_the_end(tmp_path, editor):
    (tmp_path / "batch.zip").write_bytes(archive(MIXED))
    (tmp_path / "answers.jsonl").write_bytes(sonar("行[1]") + b"\n")
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "one.sse").write_bytes(own_fixture("sonar-stream-full-mode-crlf.sse"))
    out = io.StringIO()
    paths = [tmp_path / "batch.zip", tmp_path / "answers.jsonl", folder, tmp_path / "missing.json"]
    with pytest.raises(CommandError, match="4 stored, 1 already stored, 2 could not be stored"):
        call_command("importdumps", *map(str, paths), "--user", editor.username, stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0] == f"[1/4] {tmp_path / 'batch.zip'}: 4 dumps"
    assert lines[1].startswith("  [1/4] ") and lines[4].startswith("  [4/4] ")
    assert lines[5].startswith("[2/4] ") and lines[-1].startswith("[4/4] ") and "cannot be read" in lines[-1]
    assert Dump.objects.filter(uploaded_by=editor).count() == 4


def test_the_command_succeeds_quietly_when_all_is_stored(tmp_path):
    (tmp_path / "a.json").write_bytes(sonar("一つ[1]"))
    out = io.StringIO()
    call_command("importdumps", str(tmp_path / "a.json"), stdout=out)
    assert "1 stored, 0 already stored, 0 could not be stored" in out.getvalue()


def test_a_damaged_entry_is_an_error_of_its_own(editor_api):
    data = bytearray(archive({"a.json": sonar("一" * 3000 + "[1]"), "b.json": sonar("二[1]")}))
    start = data.index(b"a.json") + len(b"a.json")
    data[start + 20 : start + 60] = b"\x00" * 40  # corrupt a's compressed bytes, not b's
    body = api_import(editor_api, bytes(data)).json()
    outcomes = {r["name"]: r for r in body["results"]}
    assert outcomes["batch.zip: a.json"]["error"]["code"] == "invalid_zip"
    assert outcomes["batch.zip: b.json"]["outcome"] == "stored"


def test_a_waiting_message_is_shown_on_the_import_page_once(editor_client):
    raw = sonar("一度だけ[1]")
    editor_client.post("/", {"file": SimpleUploadedFile("a.json", raw)})
    editor_client.post("/", {"file": SimpleUploadedFile("a.json", raw)})  # leaves "stored already" waiting
    response = editor_client.post(
        "/imports/", {"file": SimpleUploadedFile("b.zip", archive({"b.json": sonar("別[1]")}))}, follow=True
    )
    assert "stored already" in response.content.decode()
    assert "stored already" not in editor_client.get("/").content.decode()


def test_an_import_tags_every_dump_it_holds_old_and_new(editor_api):
    old = editor_api.generic(
        "POST", "/api/dumps?tags=前から", sonar("一つ目の回答[1]"), content_type="application/json"
    )
    assert old.status_code == 201
    response = editor_api.generic(
        "POST", "/api/imports?tags=batch-7,夜間", archive(MIXED), content_type="application/zip"
    ).json()
    assert response["stored"] == 1 and response["already_stored"] == 2
    for dump in Dump.objects.all():
        assert {"batch-7", "夜間"} <= set(dump.tags.values_list("name", flat=True))
    assert "前から" in Dump.objects.get(pk=old.json()["id"]).tags.values_list("name", flat=True)
    listed = editor_api.get("/api/dumps", {"tag": "batch-7"}).json()
    assert listed["count"] == 2


def test_bad_import_tags_are_refused_before_anything_is_stored(editor_api):
    response = editor_api.generic(
        "POST", "/api/imports?tags=" + "長" * 51, archive(MIXED), content_type="application/zip"
    )
    assert response.status_code == 400 and "tags" in response.json()["error"]["fields"]
    assert not Dump.objects.exists()


def test_the_page_and_the_command_tag_the_import_too(editor_client, tmp_path):
    response = editor_client.post(
        "/imports/", {"file": SimpleUploadedFile("b.zip", archive({"b.json": sonar("別[1]")})), "tags": "ページ"}
    )
    assert response.status_code == 302
    (tmp_path / "c.json").write_bytes(sonar("三[1]"))
    call_command("importdumps", str(tmp_path / "c.json"), "--tags", "コマンド", stdout=io.StringIO())
    assert sorted(Dump.objects.values_list("tags__name", flat=True)) == ["コマンド", "ページ"]


def test_an_import_sent_as_a_form_is_refused_with_the_media_type_to_use(editor_api):
    response = api_import(editor_api, b"a=1", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415 and "application/zip" in response.json()["error"]["message"]


# --- What one import may cost: its dumps, its .zip's directory, what it unpacks to ---------------------------


def dumps(count: int, size: int = 0) -> dict[str, bytes]:
    """``count`` different dump files, each padded to ``size`` bytes when given."""
    files = {f"{n}.json": sonar(f"回答 {n}[1]") for n in range(count)}
    return {name: data + b" " * (size - len(data)) if size else data for name, data in files.items()}


def json_lines(count: int) -> bytes:
    return b"".join(data + b"\n\n" for data in dumps(count).values())


def test_thirty_megabytes_of_one_line_numbers_are_refused_in_a_small_multiple_of_the_body(editor_api):
    # The test client holds the body once and the view reads it once: two copies. The split adds
    # almost nothing (tests/core/framing/test_import_entries.py); anything kept per line (15 million) would be gigabytes.
    body = b"1\n" * (15 * 1024 * 1024)
    tracemalloc.start()
    response = api_import(editor_api, body, "application/x-ndjson", "ones.jsonl")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert response.status_code == 400 and response.json()["error"]["code"] == "too_many_entries"
    assert "10,000" in response.json()["error"]["message"]
    assert peak < 2 * len(body) + 1024 * 1024


@pytest.mark.parametrize(("count", "stored"), [(2, 2), (3, 3), (4, 0)])
def test_json_lines_hold_at_most_the_dump_cap(editor_api, settings, count, stored):
    settings.CITEVIEW_MAX_IMPORT_ENTRIES = 3
    response = api_import(editor_api, json_lines(count), "application/x-ndjson", "answers.jsonl")
    assert Dump.objects.count() == stored
    if stored:
        assert response.status_code == 200 and response.json()["stored"] == stored
    else:
        error = response.json()["error"]
        assert response.status_code == 400 and error["code"] == "too_many_entries"
        assert "more than 3 lines" in error["message"] and "at most 3 dumps" in error["message"]


@pytest.mark.parametrize(("count", "stored"), [(2, 2), (3, 3), (4, 0)])
def test_a_zip_holds_at_most_the_dump_cap(editor_api, settings, count, stored):
    settings.CITEVIEW_MAX_IMPORT_ENTRIES = 3
    response = api_import(editor_api, archive(dumps(count)))
    assert Dump.objects.count() == stored
    if not stored:
        assert response.json()["error"]["code"] == "too_many_entries"
        assert "holds 4 dump files" in response.json()["error"]["message"]


@pytest.mark.parametrize(("folders", "refused"), [(2, False), (3, False), (4, True)])
def test_a_zip_lists_at_most_twice_the_dump_cap_of_files_and_folders(editor_api, settings, folders, refused):
    settings.CITEVIEW_MAX_IMPORT_ENTRIES = 3
    files = dumps(3) | {f"folder-{n}/": b"" for n in range(folders)}
    response = api_import(editor_api, archive(files))
    if refused:
        assert response.json()["error"]["code"] == "too_many_entries" and not Dump.objects.exists()
        assert "more than 6 files and folders" in response.json()["error"]["message"]
    else:
        assert response.json()["stored"] == 3


@pytest.mark.parametrize(
    "data",
    [
        listing(300_000, zip64=True),
        listing(30_000),
        listing(300_000, claimed=1, zip64=True),
        listing(30_000, claimed=1),
    ],
    ids=["zip64", "plain", "zip64-miscounted", "plain-miscounted"],
)
def test_a_zip_listing_too_many_entries_is_refused_before_its_directory_is_parsed(editor_api, monkeypatch, data):
    def parsed(*args, **kwargs):
        raise AssertionError("zipfile parsed the directory")

    monkeypatch.setattr(zipfile, "ZipFile", parsed)
    tracemalloc.start()
    response = api_import(editor_api, data)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert response.status_code == 400 and response.json()["error"]["code"] == "too_many_entries"
    assert "more than 20,000 files and folders" in response.json()["error"]["message"]
    assert peak < 3 * len(data)  # the body twice (read, and the client's), and nothing per entry


@pytest.mark.parametrize(("budget", "stored"), [(4 * 1000 + 1, 4), (4 * 1000, 4), (4 * 1000 - 1, 0)])
def test_a_zip_whose_files_declare_more_than_the_unpacked_budget_is_refused_before_any_is_stored(
    editor_api, settings, budget, stored
):
    settings.CITEVIEW_MAX_IMPORT_UNPACKED_BYTES = budget
    response = api_import(editor_api, archive(dumps(4, size=1000)))
    assert Dump.objects.count() == stored
    if not stored:
        error = response.json()["error"]
        assert response.status_code == 413 and error["code"] == "too_large"
        assert (
            "3.9 KiB (4,000 bytes) in all" in error["message"] and "can unpack to at most 3.9 KiB" in error["message"]
        )


def test_a_tiny_zip_of_big_dumps_costs_no_more_than_the_unpacked_budget(editor_api):
    # The review's case: 73 KB of .zip held five 9.9 MB dumps. Eleven are over the default 100 MiB.
    files = {f"{n}.json": sonar(f"回答 {n} " + "あ" * 3_300_000 + "[1]") for n in range(11)}
    data = archive(files)
    assert len(data) < 1024 * 1024
    response = api_import(editor_api, data)
    assert response.status_code == 413 and "at most 100 MiB" in response.json()["error"]["message"]
    assert not Dump.objects.exists()


def test_a_zip_whose_directory_understates_a_size_is_read_no_further_than_it_says(editor_api, settings):
    settings.CITEVIEW_MAX_DUMP_BYTES = 2000
    data = understated(
        archive({"big.json": sonar("長い" * 2000 + "[1]"), "small.json": sonar("短い[1]")}), "big.json", 100
    )
    body = api_import(editor_api, data).json()
    outcomes = {r["name"]: r for r in body["results"]}
    assert outcomes["batch.zip: big.json"]["error"]["code"] == "invalid_zip"
    assert outcomes["batch.zip: small.json"]["outcome"] == "stored"
    assert Dump.objects.count() == 1


@pytest.fixture
def zipfile_ignoring_sizes(monkeypatch):
    """An unpacker that reads each file to its real end, whatever the directory says: zipfile stops at
    the size the directory gives, and the limits must hold even if it did not."""
    opened = zipfile.ZipExtFile.__init__

    def open_to_the_end(self, *args, **kwargs):
        opened(self, *args, **kwargs)
        self._left = 2**62
        self._expected_crc = None

    monkeypatch.setattr(zipfile.ZipExtFile, "__init__", open_to_the_end)


def test_a_file_larger_than_its_header_says_is_held_to_the_dump_limit(editor_api, settings, zipfile_ignoring_sizes):
    settings.CITEVIEW_MAX_DUMP_BYTES = 2000
    data = understated(archive({"big.json": sonar("長い" * 2000 + "[1]")}), "big.json", 100)
    body = api_import(editor_api, data).json()
    assert body["results"][0]["error"]["code"] == "too_large" and not Dump.objects.exists()


def test_files_larger_than_their_headers_say_are_held_to_the_unpacked_budget(
    editor_api, settings, zipfile_ignoring_sizes
):
    settings.CITEVIEW_MAX_IMPORT_UNPACKED_BYTES = 2500
    data = archive(dumps(4, size=1000))
    for name in dumps(4):
        data = understated(data, name, 10)
    body = api_import(editor_api, data).json()
    assert [r["outcome"] for r in body["results"]] == ["stored", "stored", "error", "error"]
    assert "this file and those after it were not read" in body["results"][2]["error"]["message"]


@pytest.mark.parametrize("compression", [zipfile.ZIP_LZMA, zipfile.ZIP_BZIP2])
def test_a_file_packed_with_a_method_that_unpacks_without_bound_is_refused_unread(editor_api, compression):
    # zipfile unpacks Deflate a bounded piece at a time, but LZMA and bzip2 a whole read at a time: this
    # file of a few KB, whose header claims 1,000 bytes, would be 32 MiB in memory before any check.
    bomb = understated(archive({"bomb.json": b"\x00" * (32 * 1024 * 1024)}, compression), "bomb.json", 1000)
    tracemalloc.start()
    body = api_import(editor_api, bomb).json()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert body["results"][0]["error"]["code"] == "unsupported_compression"
    assert "Deflate" in body["results"][0]["error"]["message"]
    assert peak < 4 * 1024 * 1024


def test_the_page_shows_the_caps_and_why_an_import_is_refused(editor_client, settings):
    settings.CITEVIEW_MAX_IMPORT_ENTRIES = 3
    settings.CITEVIEW_MAX_IMPORT_UNPACKED_BYTES = 50 * 1024 * 1024
    form = editor_client.get("/imports/").content.decode()
    assert "3 dumps" in form and "50.0 MiB" in form
    response = editor_client.post("/imports/", {"file": SimpleUploadedFile("a.jsonl", json_lines(4))})
    page = response.content.decode()
    assert response.status_code == 400 and "more than 3 lines" in page
    settings.CITEVIEW_MAX_IMPORT_UNPACKED_BYTES = 1000
    response = editor_client.post("/imports/", {"file": SimpleUploadedFile("a.zip", archive(dumps(2, size=600)))})
    assert response.status_code == 413 and "at most 1,000 bytes" in response.content.decode()
    assert not Dump.objects.exists()


def test_the_page_speaks_japanese_when_it_refuses_an_import(editor_client, settings):
    settings.CITEVIEW_MAX_IMPORT_ENTRIES = 3
    response = editor_client.post(
        "/imports/", {"file": SimpleUploadedFile("a.zip", archive(dumps(4)))}, HTTP_ACCEPT_LANGUAGE="ja"
    )
    assert "4 件の回答データのファイル" in response.content.decode()


def test_the_command_says_why_a_file_is_refused_and_goes_on(tmp_path, settings):
    settings.CITEVIEW_MAX_IMPORT_ENTRIES = 3
    settings.CITEVIEW_MAX_IMPORT_UNPACKED_BYTES = 5000
    (tmp_path / "a-many.jsonl").write_bytes(json_lines(4))
    (tmp_path / "b-big.zip").write_bytes(archive(dumps(2, size=3000)))
    (tmp_path / "c-listing.zip").write_bytes(listing(7))
    (tmp_path / "d-fine.jsonl").write_bytes(json_lines(3))
    out = io.StringIO()
    with pytest.raises(CommandError, match="3 stored, 0 already stored, 3 could not be stored"):
        call_command("importdumps", str(tmp_path), stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("[1/4] ") and "more than 3 lines" in lines[0]
    assert lines[1].startswith("[2/4] ") and "(6,000 bytes) in all" in lines[1] and "at most 4.9 KiB" in lines[1]
    assert lines[2].startswith("[3/4] ") and "more than 6 files and folders" in lines[2]
    assert lines[3] == f"[4/4] {tmp_path / 'd-fine.jsonl'}: 3 dumps"
