"""Hostile names in a bulk import, and in a token's name, stay inert and readable on the pages."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from citeview.core.common.bidi_controls import show_bidi_controls
from tests.hostile.corpus import TEXT, params
from tests.hostile.dumps import agent_dump
from tests.hostile.pages import assert_escaped, assert_inert, norm, shown_text

pytestmark = pytest.mark.django_db


def zipped(name: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(f"{name}.json", agent_dump(answer="ok"))
        archive.writestr(f"{name}-broken.json", b'{"choices": [')
    return buffer.getvalue()


@pytest.mark.parametrize("name", params(TEXT))
def test_file_names_in_an_import(editor_client, name):
    response = editor_client.post("/imports/", {"file": SimpleUploadedFile("batch.zip", zipped(name))}, follow=True)
    page = response.content.decode()  # the import's progress page, its pieces stored (tests run tasks at once)
    assert_inert(page)
    assert_escaped(page, name)
    shown = shown_text(page, cls="cv-import-name")
    assert "stored as dump" in page and "could not be stored" in page
    entry = name.replace("\\", "/").split("/")[-1].strip()
    assert norm(show_bidi_controls(entry)) in shown or not name.strip("/\\ ")  # bidi controls written out


@pytest.mark.parametrize("name", params(TEXT))
def test_token_names(editor_client, name):
    page = editor_client.post("/accounts/", {"name": name[:100]}, follow=True).content.decode()
    assert_inert(page)
    assert_escaped(page, name[:100])
