"""parsedump, load_sample_dumps and ensure_local_account."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from citeview.dumps.models import Dump
from tests.conftest import OWN_FIXTURES, PROJECT_DIR


def parsedump(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "LC_ALL": "C"}  # output must not depend on the locale
    return subprocess.run(
        [sys.executable, "manage.py", "parsedump", *args],
        cwd=PROJECT_DIR,
        input=stdin,
        capture_output=True,
        env=env,
        timeout=60,
    )


def test_parsedump_prints_the_normalised_json():
    result = parsedump(str(OWN_FIXTURES / "agent-seed-incomplete.sse"))
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout.decode("utf-8"))
    assert doc["responses"][0]["text"] == "条件A[2]、条件B[9]、条件C[8]"


def test_parsedump_reads_standard_input_and_takes_a_provider():
    raw = (OWN_FIXTURES / "agent-two-responses.jsonl").read_bytes()
    result = parsedump("-", "--provider", "perplexity", stdin=raw)
    assert result.returncode == 0 and len(json.loads(result.stdout)["responses"]) == 2


@pytest.mark.parametrize(
    ("content", "words"), [(b"", "empty"), (b"<html>", "HTML page"), (b'{"x": 1}', "not a response")]
)
def test_parsedump_exits_2_with_one_line_for_an_unreadable_dump(tmp_path, content, words):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    result = parsedump(str(path))
    assert result.returncode == 2 and result.stdout == b""
    lines = result.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in lines[0]


def test_parsedump_exits_2_for_a_missing_file():
    result = parsedump("/nonexistent/dump.json")
    assert result.returncode == 2 and "cannot read" in result.stderr.decode()


@pytest.mark.django_db
def test_the_local_account_is_created_once_and_samples_load_once(capsys):
    call_command("ensure_local_account")
    out = capsys.readouterr().out
    password = out.split("password:")[1].split()[0]
    user = get_user_model().objects.get()
    assert user.check_password(password) and user.is_staff
    assert user.groups.filter(name="editor").exists() and user.has_perm("review.record_check")
    call_command("ensure_local_account")
    assert get_user_model().objects.count() == 1 and "exist already" in capsys.readouterr().out
    call_command("load_sample_dumps")
    call_command("load_sample_dumps")
    assert Dump.objects.count() >= 5
    assert Dump.objects.filter(uploaded_by=user).count() == Dump.objects.count()
    assert any("\u3000" <= ch <= "\u9fff" for d in Dump.objects.all() for ch in d.headline)  # some in Japanese


@pytest.mark.django_db
def test_refresh_dumps_rebuilds_what_older_parsers_made(capsys):
    call_command("load_sample_dumps")
    Dump.objects.update(result_version=0, headline="old")
    call_command("refresh_dumps")
    assert "Queued the rebuilding of" in capsys.readouterr().out
    assert not Dump.objects.filter(headline="old").exists()
