"""The Japanese catalogue covers every sentence citeview writes, and keeps every value of each one.

The core makes its sentences as ``phrase("...")`` and its rendered words as ``gettext("...")``
(it imports no Django); a page translates them with Django's catalogue. A sentence the catalogue
lacks would show in English on a Japanese page, so every one is checked here.
"""

from __future__ import annotations

import ast
import re
import string

import polib
import pytest

from tests.conftest import PROJECT_DIR

CATALOGUE = PROJECT_DIR / "locale" / "ja" / "LC_MESSAGES" / "django.po"
CODE = PROJECT_DIR / "citeview"
MARKERS = {"phrase", "gettext", "gettext_lazy", "_"}
_PERCENT_FIELD = re.compile(r"%\((\w+)\)[sd]")


def code_messages() -> dict[str, str]:
    """Every literal given to ``phrase`` or ``gettext`` in the code, with where it is."""
    found = {}
    for path in sorted(CODE.rglob("*.py")):
        if path.name == "phrases.py":  # the translating itself, of templates stored with a dump
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and _called_name(node) in MARKERS and node.args):
                continue
            template = node.args[0]
            where = f"{path.relative_to(PROJECT_DIR)}:{node.lineno}"
            assert isinstance(template, ast.Constant) and isinstance(template.value, str), (
                f"{where}: the template must be a literal string, or the catalogue cannot list it"
            )
            found[template.value] = where
    return found


def _called_name(node: ast.Call) -> str | None:
    if isinstance(node.func, ast.Name):
        return node.func.id
    return node.func.attr if isinstance(node.func, ast.Attribute) else None


def brace_fields(text: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(text) if field is not None}


@pytest.fixture(scope="module")
def catalogue() -> dict[str, polib.POEntry]:
    return {entry.msgid: entry for entry in polib.pofile(str(CATALOGUE)) if not entry.obsolete}


def test_the_core_makes_its_sentences_as_phrases_with_literal_templates():
    messages = code_messages()
    # A sample of what must be there: a diagnostic, a status, an error, a word of the rendered answer.
    for template in (
        "Source {key} was offered but the answer never cites it.",
        "the response has no {field}",
        "The dump is empty: paste or upload a saved API response.",
        "no source",
    ):
        assert template in messages
    assert len(messages) > 100


def test_every_sentence_in_the_code_has_a_japanese_translation_with_the_same_values(catalogue):
    missing, fuzzy, broken = [], [], []
    for template, where in code_messages().items():
        entry = catalogue.get(template)
        if entry is None or not entry.msgstr:
            missing.append(f"{where}: {template}")
        elif entry.fuzzy:
            fuzzy.append(f"{where}: {template}")
        elif brace_fields(entry.msgstr) != brace_fields(template):
            broken.append(f"{where}: {template} → {entry.msgstr}")
    assert not missing, "untranslated:\n" + "\n".join(missing)
    assert not fuzzy, "marked fuzzy (not used by Django):\n" + "\n".join(fuzzy)
    assert not broken, "the translation names other values:\n" + "\n".join(broken)


def test_every_translation_keeps_the_placeholders_of_its_source(catalogue):
    for entry in catalogue.values():
        if not entry.msgid or not entry.msgstr:
            continue
        assert sorted(_PERCENT_FIELD.findall(entry.msgstr)) == sorted(_PERCENT_FIELD.findall(entry.msgid)), entry.msgid
        if "python-brace-format" in entry.flags:
            assert brace_fields(entry.msgstr) == brace_fields(entry.msgid), entry.msgid


def test_the_catalogue_is_complete_and_has_nothing_fuzzy(catalogue):
    untranslated = [e.msgid for e in catalogue.values() if e.msgid and not (e.msgstr or e.msgstr_plural)]
    fuzzy = [e.msgid for e in catalogue.values() if e.msgid and e.fuzzy]
    assert not untranslated and not fuzzy


def test_no_sentence_is_in_the_catalogue_twice():
    # polib reads a duplicate silently and Django takes one of the two: a sentence translated twice
    # reads one way on one page and another way on the next (msgfmt refuses the catalogue outright).
    seen: dict[tuple[str, str], int] = {}
    for entry in polib.pofile(str(CATALOGUE)):
        key = (entry.msgctxt or "", entry.msgid)
        seen[key] = seen.get(key, 0) + 1
    assert not [key for key, count in seen.items() if count > 1]
