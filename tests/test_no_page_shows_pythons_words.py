"""No page shows Python's words (issue 41): ``None``, ``True``, ``False``, ``[]`` and ``{}`` never stand
in citeview's own text, on any page of any sample dump, in English or Japanese, for any role. Only
the dump's own text may hold them (its answer, sources, statements, raw bytes), where the dump's
bytes hold them too, with the same text around them (``DumpText``).

Every page is asked for at the request level, over one world built once for the module: every sample
stored, checked by two editors who agree on some items and disagree on others (one leaving a
statement's answers blank, one checking an item the other has not: blind first), disagreements
settled by a lead on every other sample, comments, snapshots, an import; the pages that answer a
save refused too."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.db import transaction
from django.test import Client, TestCase, override_settings
from django.urls import reverse

import citeview.dumps
from citeview.core.checking.items import CheckItem, check_items
from citeview.core.parsing.parse import parse_dump
from citeview.dumps.bulk import import_queue
from citeview.dumps.models import Dump, ReadState
from citeview.dumps.services import dump_ingest, dump_organise
from citeview.review.selectors import dump_check_items, finished_keys, item_version
from citeview.review.services import check_save, check_settle, comment_add, editors_assign
from citeview.snapshots.services import snapshot_paste
from tests.builders import sonar_object
from tests.zips import archive

SAMPLES = Path(citeview.dumps.__file__).parent / "samples"
SAMPLE_NAMES = sorted(path.name for path in SAMPLES.iterdir())
BATCH = "25-batch-200-sonar-ja-en.jsonl"

# ---------------------------------------------------------------------------------------------------
# The checker

# A word standing alone: not part of a longer name (ASCII letters and digits around it), so that
# "None件" on a Japanese page is caught and "Nonetheless" is not.
PYTHON_WORDS = re.compile(r"(?<![A-Za-z0-9_])(?:None|True|False)(?![A-Za-z0-9_])|\[\]|\{\}")
# Never shown as text.
NOT_TEXT = frozenset({"script", "style", "template"})
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})
# Preformatted text: the raw dump and its request, laid out anew (a value on a line of its own).
LAID_OUT_TAGS = frozenset({"pre"})
# How much of the text around a word must be the dump's too for the word to be the dump's.
AROUND = 12
AT_LEAST = 6


@dataclass(frozen=True)
class Found:
    word: str
    where: str  # the elements around it, innermost last
    text: str  # the text it stands in

    def __str__(self) -> str:
        return f"{self.word} in {self.where}: {self.text!r}"


class DumpText:
    """What a dump says, to tell its own words from citeview's. A word on a page is the dump's when the
    text around it (``AROUND`` characters each side, at least ``AT_LEAST`` of them) is the dump's text
    too, read with its JSON escapes undone and whitespace and Markdown's marks left out (the pages
    write the answer as HTML and its statements without the marks); in preformatted text, the raw
    dump laid out anew, when the dump holds the word at all. A Python word citeview writes stands
    among its own words, which no dump holds."""

    _ESCAPES = re.compile(r'(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))+')
    _UNSEEN = re.compile(r"[\s*_`~\\]+")

    def __init__(self, raw: str) -> None:
        text = self._ESCAPES.sub(self._unescaped, raw)
        self.words = set(PYTHON_WORDS.findall(text))
        self.flat = self.flattened(text)

    @classmethod
    def flattened(cls, text: str) -> str:
        return cls._UNSEEN.sub("", text)

    @staticmethod
    def _unescaped(match: re.Match[str]) -> str:
        try:
            return str(json.loads(f'"{match.group()}"'))
        except ValueError:
            return match.group()

    def holds(self, text: str, match: re.Match[str], laid_out: bool) -> bool:
        if laid_out and match.group() in self.words:
            return True
        around = self.flattened(text[max(match.start() - AROUND, 0) : match.end() + AROUND])
        return len(around) >= len(match.group()) + AT_LEAST and around in self.flat


@dataclass
class _Open:
    tag: str
    label: str
    laid_out: bool
    shown: bool


_PAGE = _Open("", "", laid_out=False, shown=True)


class _Text(HTMLParser):
    """A page's text nodes, each with whether it is preformatted and where it is."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[_Open] = []
        self.nodes: list[tuple[str, bool, str]] = []  # (text, preformatted, where)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        classes = (dict(attrs).get("class") or "").split()
        outer = self.open[-1] if self.open else _PAGE
        label = tag + "".join(f".{name}" for name in classes[:2])
        laid_out = outer.laid_out or tag in LAID_OUT_TAGS
        self.open.append(_Open(tag, label, laid_out, outer.shown and tag not in NOT_TEXT))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        pass  # <br/>, <input/>: no text

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.open) - 1, -1, -1):
            if self.open[depth].tag == tag:
                del self.open[depth:]
                return

    def handle_data(self, data: str) -> None:
        inner = self.open[-1] if self.open else _PAGE
        if inner.shown and data.strip():
            self.nodes.append((data, inner.laid_out, " > ".join(o.label for o in self.open[-3:])))


def python_words(html: str, dump_text: str = "") -> list[Found]:
    """Python's words standing alone in a page's visible text (attributes, scripts and styles are
    not), but those that are the dump's own (``DumpText``)."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    dump = DumpText(dump_text)
    return [
        Found(match.group(), where or "the page", _around(text, match))
        for text, laid_out, where in parser.nodes
        for match in PYTHON_WORDS.finditer(text)
        if not dump.holds(text, match, laid_out)
    ]


# Markdown's preformatted text: a fenced block.
_MARKDOWN_FENCED = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.M | re.S)


def python_words_in_markdown(markdown: str, dump_text: str = "") -> list[Found]:
    """The same for a Markdown download, line by line; a fenced block is preformatted."""
    dump = DumpText(dump_text)
    fenced = [(m.start(), m.end()) for m in _MARKDOWN_FENCED.finditer(markdown)]
    found = []
    offset = 0
    for line in markdown.splitlines(keepends=True):
        for match in PYTHON_WORDS.finditer(line):
            at = offset + match.start()
            laid_out = any(start <= at < end for start, end in fenced)
            if not dump.holds(line, match, laid_out):
                found.append(Found(match.group(), "fenced" if laid_out else "text", _around(line, match)))
        offset += len(line)
    return found


def python_words_in_json(value: Any, dump_text: str = "") -> list[Found]:
    """The same for the JSON a page's script shows (the reading status, an import's rows): each of its
    strings is read as a page's text (JSON's own null, true and false are never shown as they are)."""
    if isinstance(value, dict):
        return [found for item in value.values() for found in python_words_in_json(item, dump_text)]
    if isinstance(value, list):
        return [found for item in value for found in python_words_in_json(item, dump_text)]
    return python_words(value, dump_text) if isinstance(value, str) else []


def _around(text: str, match: re.Match[str]) -> str:
    return " ".join(text[max(match.start() - 60, 0) : match.end() + 60].split())


# ---------------------------------------------------------------------------------------------------
# The checker, checked


def test_the_checker_finds_a_python_boolean_in_a_diagnostics_values():
    html = '<p class="cv-technical"><code class="cv-code">offset_unit</code> · unit: utf8 · assumed: True</p>'
    assert [f.word for f in python_words(html)] == ["True"]


def test_the_checker_finds_none_before_a_quotes_label():
    html = '<li class="cv-report-quote"><span class="cv-muted">None a quote as the API gave it</span></li>'
    [found] = python_words(html)
    assert found.word == "None" and "a quote as the API gave it" in found.text


def test_the_checker_finds_empty_lists_and_dicts_and_words_next_to_japanese():
    html = "<main><p>出典 [] のメモ {}</p><td>None件</td><p>False</p></main>"
    assert [f.word for f in python_words(html)] == ["[]", "{}", "None", "False"]


def test_the_checker_passes_words_that_only_contain_them():
    html = "<p>Nonetheless, a TrueType font is not Falsey; [1] and {name} are no empty list</p>"
    assert python_words(html) == []


ORDERED_DICT = (
    '{"text": "| `popitem(last=False)` (FIFO) | No | Yes |\\n\\nUse `next(islice(d.items(), 1, None))`: '
    'it says \\"None\\" when empty.", "tools": [], "meta": {}}'
)


def test_the_checker_leaves_the_dumps_own_words_in_its_answer_statements_and_raw_text():
    html = (
        '<article class="cv-answer"><p>Use <code>next(islice(d.items(), 1, None))</code>: it says "None" when'
        " empty.</p></article>"
        '<nav class="cv-item-list"><a>✓ popitem(last=False) (FIFO) | No | Yes <span>[1]</span></a></nav>'
        '<pre class="cv-raw">{\n  "tools": [],\n  "meta": {}\n}</pre>'
    )
    assert python_words(html, ORDERED_DICT) == []


def test_the_checker_finds_a_word_the_dump_holds_among_words_it_does_not():
    html = (
        '<td><span class="cv-report-label">None a quote as the API gave it</span></td>'
        "<td>None</td>"  # too little around it to be the dump's
        '<p class="cv-technical">unit: utf8 · assumed: False</p>'
    )
    assert [f.word for f in python_words(html, ORDERED_DICT)] == ["None", "None", "False"]


def test_the_checker_finds_in_code_a_word_the_dump_does_not_hold_or_not_there():
    html = '<pre class="cv-raw">{"citations": []}</pre><code>True</code><p><code>None</code></p>'
    dump = '{"citations": ["https://example.com/"], "text": "None"}'
    assert [f.word for f in python_words(html, dump)] == ["[]", "True", "None"]


def test_the_checker_leaves_attributes_scripts_and_styles_alone():
    html = (
        '<a title="None" data-x="[]" href="#">link</a><script type="application/json">{"a": []}</script>'
        "<style>a{}</style><template><p>None</p></template><p>after</p>"
    )
    assert python_words(html) == []


def test_the_checker_reads_markdown_as_a_page_and_a_fenced_block_as_laid_out_anew():
    markdown = (
        "- None a quote as the API gave it\n"
        "- popitem(last=False) (FIFO) \\| No \\| Yes\n"  # a statement, its table's bars escaped
        '- Use `next(islice(d.items(), 1, None))`: it says "None" when empty.\n'
        "- `True`\n\n```\n[]\n```\n```\nTrue\n```\n"
    )
    found = python_words_in_markdown(markdown, ORDERED_DICT)
    assert [(f.word, f.where) for f in found] == [("None", "text"), ("True", "text"), ("True", "fenced")]


# ---------------------------------------------------------------------------------------------------
# The world: every sample, checked by two editors, settled in part by a lead, commented on

ROLES = ("reviewer", "editor", "second_editor", "lead", "staff")
EDITORS = ("editor", "second_editor", "lead", "staff")  # who may record a check
SETTLERS = ("lead", "staff")
SIGNED_OUT = "signed_out"
LANGUAGES = ("en", "ja")
QUOTE = "出典の一文をそのまま引いた"
NOTE = "花子のメモ：日付を確かめた"
REASON = "出典を読み直して裁定した"
COMMENT = "この回答の出典を確認してください"
ALL_CHECKED = "12-bedrock-ja-documents-exchange.json"  # hanako checks every item: her "done" page
HEAT = "01-agent-stream-ja-tokyo-heat.sse"
SNAPSHOTTED = (HEAT, "03-sonar-en-heat-pumps.json")
IMPORTED = "imports.zip"
IMPORT_FOLLOWERS = ("reviewer", "editor", "staff")  # its uploader, staff and reviewers
# Dumps read by a worker: one waiting for it, one it could not read.
QUEUED = "queued"
UNREADABLE = "unreadable"
UNREAD = {
    QUEUED: json.dumps(sonar_object("読まれるのを待つ回答です[1]。", ["https://example.com/wait"])).encode(),
    UNREADABLE: b'{"id": "chatcmpl-1", "choices": [{"message": {"content": "',
}


@functools.cache
def _items(name: str) -> list[CheckItem]:
    """A sample's items, read by the core as the stored dump will be (the pages are named before
    any dump is stored)."""
    return check_items(parse_dump((SAMPLES / name).read_bytes()).to_json()["responses"])


def _kinds(name: str) -> dict[str, str]:
    """The first item of each kind in a sample."""
    first: dict[str, str] = {}
    for item in _items(name):
        first.setdefault(item.kind, item.key)
    return first


@dataclass(frozen=True)
class Page:
    name: str  # the test's id
    view: str  # the URL's name
    of: str | None = None  # the sample it shows (its dump's id is the URL's), or IMPORTED
    item: str = ""  # and the item, for a check page
    query: str = ""
    roles: tuple[str, ...] = ROLES
    reads_as: str = "html"  # or "markdown", or "json" (a script shows its strings)
    form: tuple[tuple[str, str], ...] = ()  # posted, when given
    status: int = 200


def _sample_pages(name: str) -> list[Page]:
    short = name.split("-", 1)[0]
    pages = [Page(f"{short}-viewer", "pages:detail", name)]
    if name == BATCH:
        pages.append(Page(f"{short}-viewer-page-2", "pages:detail", name, query="page=2&response=60"))
        pages.append(Page(f"{short}-viewer-needing-a-look", "pages:detail", name, query="needs=unresolved"))
    pages += [Page(f"{short}-check-{kind}", "review:item", name, key) for kind, key in _kinds(name).items()]
    pages.append(Page(f"{short}-report", "review:report", name))
    if name == BATCH:
        pages.append(Page(f"{short}-report-page-2", "review:report", name, query="page=2"))
    pages.append(Page(f"{short}-report-md", "review:report_md", name, reads_as="markdown"))
    return pages


def _heat_pages() -> list[Page]:
    """The check page as it answers a save refused, and its filters."""
    disputed, agreed, taros = [item.key for item in _items(HEAT) if item.kind == "citation"][:3]
    late = (("version", "0"), ("verdict", "complete"), ("time", "yes"), ("note", NOTE))
    return [
        Page("01-check-disagreements", "review:item", HEAT, disputed, query="show=disagree"),
        Page("01-check-not-checked", "review:item", HEAT, agreed, query="show=unchecked"),
        # Saved by both editors since: theirs beside yours (blind first: only who saved it, for the others).
        Page("01-check-saved-meanwhile", "review:item", HEAT, agreed, roles=EDITORS, form=late, status=409),
        Page("01-check-saved-meanwhile-unseen", "review:item", HEAT, taros, roles=EDITORS, form=late, status=409),
        Page("01-check-no-verdict", "review:item", HEAT, agreed, roles=EDITORS, form=(("version", "0"),), status=400),
        Page(
            "01-settle-without-reason",
            "review:settle",
            HEAT,
            disputed,
            roles=SETTLERS,
            form=(("settle-version", "0"), ("settle-verdict", "none")),
            status=400,
        ),
    ]


PAGES = [
    Page("login", "login", roles=(SIGNED_OUT,)),
    Page("list", "pages:home"),
    Page("list-filtered", "pages:home", query="progress=in_progress&status=completed&tag=見本"),
    Page("list-searched", "pages:home", query="q=熱中症"),
    Page("list-assigned", "pages:home", query="assignee=hanako&progress=unchecked"),
    Page("queue", "review:queue"),
    Page("settle-queue", "review:settle_queue", roles=SETTLERS),
    Page("figures", "review:figures"),
    Page("figures-filtered", "review:figures", query="tag=見本"),
    Page("account", "account"),
    Page("import", "dumps:import", roles=EDITORS),
    Page("import-progress", "dumps:import_progress", IMPORTED, roles=IMPORT_FOLLOWERS),
    Page("import-progress-rows", "dumps:import_progress_rows", IMPORTED, roles=IMPORT_FOLLOWERS, reads_as="json"),
    *(
        page
        for name in (QUEUED, UNREADABLE)
        for page in (
            Page(f"{name}-viewer", "pages:detail", name),
            Page(f"{name}-reading", "dumps:reading", name, reads_as="json"),
        )
    ),
    Page("12-done", "review:done", ALL_CHECKED, roles=("editor",)),
    *(page for name in SAMPLE_NAMES for page in _sample_pages(name)),
    *_heat_pages(),
]


def _user(django_user_model: Any, username: str, role: str, *, staff: bool = False) -> Any:
    """Signed in with force_login: no password."""
    user = django_user_model.objects.create_user(username=username, is_staff=staff, is_superuser=staff)
    user.groups.add(Group.objects.get(name=role))
    return user


@dataclass
class World:
    users: dict[str, Any]
    dumps: dict[str, Dump]
    imported: int  # the import's id
    clients: dict[tuple[str, str], Client] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Signed in (all but one) and the language chosen with the switch here, once: each test's own
        # writes are rolled back after it, and a session made in a test would go with them.
        for role in (*ROLES, SIGNED_OUT):
            for language in LANGUAGES:
                client = Client()
                if role != SIGNED_OUT:
                    client.force_login(self.users[role])
                answer = client.post(reverse("set_language"), {"language": language, "next": "/"})
                assert answer.status_code == 302
                self.clients[role, language] = client

    def url(self, page: Page) -> str:
        if page.of is None:
            args = []
        elif page.of == IMPORTED:
            args = [self.imported]
        else:
            args = [self.dumps[page.of].pk, page.item] if page.item else [self.dumps[page.of].pk]
        url = reverse(page.view, args=args)
        return f"{url}?{page.query}" if page.query else url

    def dump_text(self, page: Page) -> str:
        if page.of in UNREAD:
            return UNREAD[page.of].decode()
        shown = [page.of] if page.of in self.dumps else SAMPLE_NAMES  # a page of many dumps shows a little of each
        return "\n".join((SAMPLES / name).read_text("utf-8", "replace") for name in shown)


def _check(dump: Dump, key: str, editor: Any, values: dict[str, str], statement: dict[str, str]) -> None:
    item = next(item for item in dump_check_items(dump) if item.key == key)
    check_save(
        dump=dump,
        item=item,
        editor=editor,
        values=values,
        statement_values=statement,
        seen_version=item_version(dump, key),
    )


def _checked(dump: Dump, number: int, users: dict[str, Any]) -> None:
    """Two editors' checks: hanako and taro disagree on the first citation (taro leaving the
    statement's answers blank) and agree on the second; taro alone checks the third, which hanako
    then has not seen (blind first). On every other sample a lead settles the disagreement."""
    hanako, taro = users["editor"], users["second_editor"]
    items = dump_check_items(dump)
    citations = [item.key for item in items if item.kind == "citation"][:3]
    together = {"verification_worthy": "yes", "supported_together": "yes"}
    if citations:
        quoted = {"verdict": "partial", "subject": "yes", "time": "unsure", "evidence_quote": QUOTE, "note": NOTE}
        _check(dump, citations[0], hanako, quoted, together)
        _check(dump, citations[0], taro, {"verdict": "none", "conditions": "no"}, {})
    if len(citations) > 1:
        _check(dump, citations[1], hanako, {"verdict": "complete"}, together)
        _check(dump, citations[1], taro, {"verdict": "complete"}, together)
    if len(citations) > 2:
        _check(dump, citations[2], taro, {"verdict": "none", "evidence_quote": QUOTE}, {})
    first = {}
    for item in items:
        first.setdefault(item.kind, item.key)
    if "unresolved" in first:
        _check(dump, first["unresolved"], hanako, {"verification_worthy": "yes", "note": NOTE}, {})
    if "statement" in first:
        _check(dump, first["statement"], hanako, {"verification_worthy": "no"}, {})
    if citations and number % 2:
        item = next(item for item in items if item.key == citations[0])
        version = item_version(dump, item.key)
        check_settle(dump=dump, item=item, settler=users["lead"], verdict="none", reason=REASON, seen_version=version)
    comment_add(dump=dump, author=users["reviewer"], text=COMMENT)
    if citations:
        comment_add(dump=dump, author=users["lead"], text=COMMENT, item_key=citations[0])


def _all_checked(dump: Dump, editor: Any) -> None:
    done = finished_keys(dump, editor)
    for item in dump_check_items(dump):
        if item.key not in done:
            values = {"verdict": "complete"} if item.kind == "citation" else {"verification_worthy": "yes"}
            _check(dump, item.key, editor, values, {})


def _snapshot_of_first_source(dump: Dump, taker: Any) -> None:
    urls = [source["url"] for source in dump.result["responses"][0]["sources"] if source.get("url")]
    snapshot_paste(url=urls[0], text="熱中症警戒アラートは、暑さ指数が33以上と予測されると発表される。", taken_by=taker)


def _imported(editor: Any) -> int:
    """An import of a dump already stored, a new one and one that is no dump."""
    files = {
        HEAT: (SAMPLES / HEAT).read_bytes(),
        "new.json": json.dumps(sonar_object("新しい回答です[1]。", ["https://example.com/new"])).encode(),
        "broken.json": b'{"id": ',
    }
    return import_queue(name=IMPORTED, data=archive(files), uploaded_by=editor, tags=[]).pk


def _built(django_user_model: Any) -> World:
    users = {
        "reviewer": _user(django_user_model, "yuki", "reviewer"),
        "editor": _user(django_user_model, "hanako", "editor"),
        "second_editor": _user(django_user_model, "taro", "editor"),
        "lead": _user(django_user_model, "sato", "lead"),
        # Staff as `make run` makes the local account: an editor with staff rights.
        "staff": _user(django_user_model, "kanri", "editor", staff=True),
    }
    dumps = {}
    for number, name in enumerate(SAMPLE_NAMES):
        dump = dump_ingest(raw=(SAMPLES / name).read_bytes(), uploaded_by=users["staff"], filename=name)[0]
        assignees = [users["editor"]] if number % 3 else [users["second_editor"]] if number % 2 else []
        dump_organise(dump=dump, title=dump.title, tag_names=["sample", "見本"])
        editors_assign(dump=dump, editors=assignees, by=users["staff"])
        _checked(dump, number, users)
        dumps[name] = dump
    _all_checked(dumps[ALL_CHECKED], users["editor"])
    for name in SNAPSHOTTED:
        _snapshot_of_first_source(dumps[name], users["editor"])
    dumps |= _read_by_a_worker(users["editor"])
    return World(users, dumps, _imported(users["editor"]))


def _read_by_a_worker(editor: Any) -> dict[str, Dump]:
    """One dump waiting for a worker (queued in the database, never run here) and one a worker could
    not read."""
    queue = {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default", "snapshots"]}
    with override_settings(CITEVIEW_READ_IN_TASK_ABOVE=10):
        with override_settings(TASKS={"default": queue}):
            queued = dump_ingest(raw=UNREAD[QUEUED], uploaded_by=editor, filename="queued.json")[0]
        unreadable = dump_ingest(raw=UNREAD[UNREADABLE], uploaded_by=editor, filename="unreadable.json")[0]
    unreadable.refresh_from_db()
    assert (queued.read_state, unreadable.read_state) == (ReadState.QUEUED, ReadState.FAILED)
    return {QUEUED: queued, UNREADABLE: unreadable}


@pytest.fixture(scope="module")
def module_blobs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("blobs")


def _storages(folder: Path) -> dict[str, Any]:
    blobs = {"BACKEND": "citeview.dumps.blobs.BlobFolderStorage", "OPTIONS": {"location": folder, "fsync": False}}
    return {**settings.STORAGES, "blobs": blobs}


@pytest.fixture(autouse=True)
def blob_folder(settings: Any, module_blobs: Path) -> Path:
    """The module's one folder of blobs (tests/conftest.py gives each test its own): the world's dumps
    are stored once, for every test here."""
    settings.STORAGES = _storages(module_blobs)
    return module_blobs


@pytest.fixture(scope="module")
def world(django_db_setup: None, django_db_blocker: Any, module_blobs: Path) -> Iterator[World]:
    """Built once, in a transaction rolled back after the module's last test (each test's own writes
    are rolled back after it, as pytest-django does)."""
    immediate = {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend", "QUEUES": ["default", "snapshots"]}
    storages = _storages(module_blobs)
    with (
        django_db_blocker.unblock(),
        override_settings(STORAGES=storages, TASKS={"default": immediate}),
        transaction.atomic(),
    ):
        cache.clear()
        with TestCase.captureOnCommitCallbacks(execute=True):
            built = _built(get_user_model())
        yield built
        transaction.set_rollback(True)


# ---------------------------------------------------------------------------------------------------
# The pages


CASES = [
    pytest.param(page, role, language, id=f"{page.name}-{role}-{language}")
    for page in PAGES
    for role in page.roles
    for language in LANGUAGES
]


@pytest.mark.django_db
@pytest.mark.parametrize(("page", "role", "language"), CASES)
def test_no_page_shows_pythons_words_in_its_own_text(world: World, page: Page, role: str, language: str) -> None:
    client, url = world.clients[role, language], world.url(page)
    answer = client.post(url, dict(page.form)) if page.form else client.get(url)
    assert answer.status_code == page.status, url
    assert answer["Content-Language"] == language
    text = answer.content.decode()
    dump_text = world.dump_text(page)
    if page.reads_as == "json":
        found = python_words_in_json(answer.json(), dump_text)
    elif page.reads_as == "markdown":
        found = python_words_in_markdown(text, dump_text)
    else:
        found = python_words(text, dump_text)
    assert not found, "\n".join(map(str, found))
