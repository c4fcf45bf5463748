"""The walk of issue 30 in screenshots: two editors, a reviewer and a lead check the sample dump 1
(Japanese) and dump 3 (English), and the pages they met are captured at desktop and phone widths,
in both languages, into OUT (docs/walk/after/ by default). Run from the project root, after `make
setup` has made `.venv`:

    .venv/bin/python scripts/walk_screenshots.py [OUT]

It works on a database of its own in a temporary folder, with Django's development server, so it
leaves the project's database alone. A page a checkout does not have yet (the settle queue, before
it was built) is skipped and listed. It needs Chromium (CHROMIUM, default /usr/bin/chromium).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path.cwd()
PYTHON = str(ROOT / ".venv" / "bin" / "python")
PASSWORD = "a-walk-password-1"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

# Made in the checkout's own Django shell: the accounts, the roles, and the two editors' checks of
# dump 1, which disagree on two items; ed2 leaves the last items unchecked.
SETUP = """
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from citeview.dumps.models import Dump
from citeview.dumps.selectors import dump_check_items
from citeview.review.selectors import item_version
from citeview.review.services import check_save

User = get_user_model()
roles = {"ed1": "editor", "ed2": "editor", "rev": "reviewer", "lead": "lead"}
for name, role in roles.items():
    user = User.objects.filter(username=name).first() or User.objects.create_user(name, password=PASSWORD)
    group, _ = Group.objects.get_or_create(name=role)
    if role == "lead" and not group.permissions.exists():  # a checkout without the lead role: an editor
        group = Group.objects.get(name="editor")
    user.groups.add(group)
dump = Dump.objects.order_by("pk").first()
items = dump_check_items(dump)
citations = [item for item in items if item.kind == "citation"]
verdicts = {"ed1": ["complete", "partial", "complete", "none"], "ed2": ["complete", "none", "complete", "partial"]}
for name, given in verdicts.items():
    editor = User.objects.get(username=name)
    for position, item in enumerate(citations[: None if name == "ed1" else 4]):
        values = {"verdict": given[position % 4], "subject": "yes", "time": "", "conditions": "",
                  "note": f"{name}: {given[position % 4]}", "evidence_quote": "暑さ指数（WBGT）" if position == 1 else ""}
        check_save(dump=dump, item=item, editor=editor, values=values,
                   statement_values={"verification_worthy": "yes"}, seen_version=item_version(dump, item.key))
    if name == "ed1":
        for item in items:
            if item.kind == "statement":
                check_save(dump=dump, item=item, editor=editor, values={"verification_worthy": "no", "note": ""},
                           statement_values={}, seen_version=item_version(dump, item.key))
import json
print("WALK", json.dumps({"dump": dump.pk, "unchecked": citations[4].key}))
"""


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/walk/after").resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{folder}/walk.sqlite3", "BLOB_ROOT": f"{folder}/blobs"}
        env |= {"DEBUG": "true", "CITEVIEW_FETCH_ENABLED": "false"}
        manage = [PYTHON, "manage.py"]
        for command in (["migrate", "--noinput", "-v0"], ["compile_translations"], ["load_sample_dumps"]):
            subprocess.run(manage + command, env=env, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        made = subprocess.run(
            [*manage, "shell", "-c", f"PASSWORD = {PASSWORD!r}\n" + SETUP],
            env=env,
            check=True,
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        walk = json.loads(made.stdout.split("WALK ", 1)[1])
        port = _free_port()
        server = subprocess.Popen(
            [*manage, "runserver", "--noreload", f"127.0.0.1:{port}"],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _wait_for(port)
            skipped = _walk(f"http://127.0.0.1:{port}", out, walk)
        finally:
            server.terminate()
            server.wait()
    print(f"Screenshots in {out}" + (f"; not in this checkout: {', '.join(skipped)}" if skipped else ""))


try:
    from playwright.sync_api import Error as PlaywrightError
except ImportError:  # pragma: no cover - the dev requirements have it
    PlaywrightError = Exception


def _walk(base: str, out: Path, walk: dict[str, Any]) -> list[str]:
    from playwright.sync_api import sync_playwright

    skipped: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"), args=["--no-sandbox", "--disable-gpu"]
        )
        for lang, locale in (("ja", "ja-JP"), ("en", "en-US")):
            for width, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
                shots = _Shots(browser, base, out, lang, locale, width, viewport, skipped, walk)
                shots.reviewer()
                shots.editor()
                shots.lead()
        browser.close()
    return sorted(set(skipped))


class _Shots:
    def __init__(self, browser, base, out, lang, locale, width, viewport, skipped, walk) -> None:
        self.dump, self.unchecked = walk["dump"], walk["unchecked"]
        self.browser, self.base, self.out, self.lang = browser, base, out, lang
        self.locale, self.width, self.viewport, self.skipped = locale, width, viewport, skipped

    def _page(self, user: str):
        context = self.browser.new_context(
            base_url=self.base,
            viewport=self.viewport,
            locale=self.locale,
            extra_http_headers={"Accept-Language": self.lang},
        )
        page = context.new_page()
        page.goto("/accounts/login/")
        page.fill("input[name=username]", user)
        page.fill("input[name=password]", PASSWORD)
        with page.expect_navigation():
            page.press("input[name=password]", "Enter")
        return page

    def _shot(self, page, name: str, full: bool = False) -> None:
        page.screenshot(path=str(self.out / f"{name}-{self.lang}-{self.width}.png"), full_page=full)

    def _visit(self, page, path: str, name: str) -> bool:
        response = page.goto(path)
        if response is None or response.status >= 400:
            self.skipped.append(name)
            return False
        return True

    def reviewer(self) -> None:
        page = self._page("rev")
        if self._visit(page, f"/dumps/{self.dump}/check/", "reviewer-check"):
            self._shot(page, "01-reviewer-check")
        if self._visit(page, f"/dumps/{self.dump}/report/", "report"):
            self._shot(page, "02-reviewer-report")
        if self._visit(page, "/figures/", "figures"):
            self._shot(page, "03-figures")
        page.context.close()

    def editor(self) -> None:
        page = self._page("ed2")
        if self._visit(page, f"/dumps/{self.dump}/report/", "report"):
            self._shot(page, "04-editor-report")
        if not self._visit(page, f"/dumps/{self.dump}/check/{self.unchecked}/", "editor-check"):
            return
        self._shot(page, "05-editor-check")
        # Decide first, then attach the page as proof: the order that lost the work.
        page.locator("input[name=verdict][value=partial]").first.check(force=True)
        note = page.locator("textarea[name=note]").first
        note.fill("下書き: 条件を確認中" if self.lang == "ja" else "draft: checking the conditions")
        try:
            self._paste_snapshot(page)
        except PlaywrightError:  # a layout where the paste box cannot be reached: said, not hidden
            self.skipped.append(f"06-editor-after-snapshot-paste ({self.width})")
        else:
            self._shot(page, "06-editor-after-snapshot-paste")
        page.context.close()

    def _paste_snapshot(self, page) -> None:
        paste = page.locator("textarea[name=text]").first
        if not paste.is_visible():
            page.locator(".cv-snapshot-take summary, [data-opens-paste]").first.click(timeout=20000)
        paste.fill("東京都は暑さ指数（WBGT）が33以上の日に熱中症特別警戒アラートを発表します。", timeout=20000)
        with page.expect_navigation():
            paste.locator("xpath=ancestor::form").locator("button[type=submit]").first.click(timeout=20000)

    def lead(self) -> None:
        page = self._page("lead")
        for path, name in (
            ("/settle/", "07-lead-settle-queue"),
            (f"/dumps/{self.dump}/check/", "08-lead-check"),
        ):
            if self._visit(page, path, name):
                self._shot(page, name)
        page.context.close()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for(port: int) -> None:
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("the development server did not start")


if __name__ == "__main__":
    main()
