"""The README's picture of a check plan's estimates: a lead makes a citation plan over the sample batch
(``25-batch-200-sonar-ja-en.jsonl``), two editors check most of its items (agreeing on most, and a
lead settling none of their disagreements), and the figures page with the plan's estimates is captured
in English at 1280 pixels wide into OUT (docs/sample-figures.png by default). Run from the project
root, after `make setup` has made `.venv`:

    .venv/bin/python scripts/sample_screenshot.py [OUT]

It works on a database of its own in a temporary folder, with Django's development server, so it
leaves the project's database alone. The plan's draw and the verdicts use fixed seeds (a real plan's
seed is fresh), so the picture is the same on every run. It needs Chromium (CHROMIUM, default
/usr/bin/chromium).
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

ROOT = Path.cwd()
PYTHON = str(ROOT / ".venv" / "bin" / "python")
PASSWORD = "a-sample-password-1"
VIEWPORT = {"width": 1280, "height": 900}
BATCH = "25-batch-200-sonar-ja-en.jsonl"

# Made in the checkout's own Django shell: the people, the plan over the batch, and the editors' checks
# of its first items in the plan's random order. Each editor's verdict comes from a fixed seed: the
# second editor agrees with the first nine times in ten.
SETUP = """
import random
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from citeview.core.checking import sampling
from citeview.dumps.models import Dump
from citeview.dumps.selectors import dump_check_items
from citeview.review.plans import PlanDraft, PlanScope, plan_make
from citeview.review.selectors import item_version
from citeview.review.services import check_save

User = get_user_model()
people = {}
for name, role in {"aoi": "editor", "ben": "editor", "lead": "lead"}.items():
    user = User.objects.filter(username=name).first() or User.objects.create_user(name, password=PASSWORD)
    user.groups.add(Group.objects.get(name=role))
    people[name] = user
batch = Dump.objects.get(filename=BATCH)
draft = PlanDraft(
    name="Sample batch, July", unit="citation", scope=PlanScope(kind="batch", dump=batch), size=120,
    margin=None, editors=[people["aoi"], people["ben"]], checks_needed=2,
)
sampling.new_seed = lambda: PLAN_SEED  # the same sample on every run, for the same picture
plan = plan_make(draft=draft, by=people["lead"])
items = {item.key: item for item in dump_check_items(batch)}
rng = random.Random(45)
verdicts = ["complete"] * 72 + ["partial"] * 14 + ["none"] * 9 + ["inaccessible"] * 3 + ["unclear"] * 2
for drawn in plan.items.order_by("position")[:CHECKED]:
    item = items[drawn.item_key]
    first = rng.choice(verdicts)
    second = first if rng.random() < 0.9 else rng.choice(verdicts)
    together = "yes" if rng.random() < 0.8 else "no"
    for name, verdict in (("aoi", first), ("ben", second)):
        check_save(dump=batch, item=item, editor=people[name], values={"verdict": verdict, "subject": "yes"},
                   statement_values={"verification_worthy": "yes", "supported_together": together},
                   seen_version=item_version(batch, item.key))
print("SAMPLE", json.dumps({"plan": plan.pk}))
"""
CHECKED = 90  # of the plan's 120 items: the picture shows an unfinished plan saying so
PLAN_SEED = 20261206


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/sample-figures.png").resolve()
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{folder}/sample.sqlite3", "BLOB_ROOT": f"{folder}/blobs"}
        env |= {"DEBUG": "true", "CITEVIEW_FETCH_ENABLED": "false"}
        manage = [PYTHON, "manage.py"]
        for command in (["migrate", "--noinput", "-v0"], ["compile_translations"], ["load_sample_dumps"]):
            subprocess.run(manage + command, env=env, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        setup = (
            f"import json\nPASSWORD = {PASSWORD!r}\nBATCH = {BATCH!r}\nCHECKED = {CHECKED}\nPLAN_SEED = {PLAN_SEED}\n"
            + SETUP
        )
        made = subprocess.run(
            [*manage, "shell", "-c", setup], env=env, check=True, cwd=ROOT, capture_output=True, text=True
        )
        plan = json.loads(made.stdout.split("SAMPLE ", 1)[1])["plan"]
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
            _shoot(f"http://127.0.0.1:{port}", plan, out)
        finally:
            server.terminate()
            server.wait()
    print(f"The figures of plan {plan} in {out}")


def _shoot(base: str, plan: int, out: Path) -> None:
    """The figures page from its top to the end of the plan's estimates."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"), args=["--no-sandbox", "--disable-gpu"]
        )
        context = browser.new_context(
            base_url=base, viewport=VIEWPORT, locale="en-US", extra_http_headers={"Accept-Language": "en"}
        )
        page = context.new_page()
        page.goto("/accounts/login/")
        page.fill("input[name=username]", "lead")
        page.fill("input[name=password]", PASSWORD)
        with page.expect_navigation():
            page.press("input[name=password]", "Enter")
        page.goto(f"/figures/?plan={plan}")
        section = page.locator(".cv-plan-estimates").bounding_box()
        assert section is not None, "the figures page shows no plan's estimates"
        bottom = section["y"] + section["height"] + 16
        page.screenshot(
            path=str(out), full_page=True, clip={"x": 0, "y": 0, "width": VIEWPORT["width"], "height": bottom}
        )
        browser.close()


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
