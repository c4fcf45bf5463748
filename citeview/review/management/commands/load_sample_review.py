"""``python manage.py load_sample_review``: one sample dump checked by two editors, two disagreements
waiting to be settled; and a check plan over the sample batch, a few of its items checked, so that the
plan's page and its estimates show at once (each once; after ``load_sample_dumps``)."""

from __future__ import annotations

import hashlib
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand
from django.db import transaction

from citeview.accounts.roles import EDITOR
from citeview.dumps.management.commands.load_sample_dumps import SAMPLES_DIR
from citeview.dumps.models import Dump
from citeview.review.models import Check, CheckPlan, PlanScopeKind, PlanUnit
from citeview.review.plans import PlanDraft, PlanScope, plan_make
from citeview.review.selectors import dump_check_items, item_version
from citeview.review.services import check_save, editors_assign

SAMPLE = "06-claude-ja-documents-exchange.json"
# Two editors who check every citation of the sample independently, and disagree on the second and the
# third: the third quote says 62% where the answer says 80%, and they judge it differently.
EDITORS = ("sample-aoi", "sample-ben")
VERDICTS = {
    "sample-aoi": ["complete", "complete", "none", "complete", "complete", "complete", "complete"],
    "sample-ben": ["complete", "partial", "partial", "complete", "complete", "complete", "complete"],
}
NOTES = {
    ("sample-aoi", 2): "資料では62%。回答の80%は誤り。",
    ("sample-ben", 2): "地区名は合っているが、率が違う（資料は62%）。",
    ("sample-ben", 1): "9人が1歳児という点のみ。",
}


class Command(BaseCommand):
    help = (
        "Assign a sample dump to two sample editors who have checked it and disagree on two items, so that "
        "the checking workflow shows at once (skipped if that dump has checks or editors already)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        self._sample_review()
        self.stdout.write(_sample_plan())

    def _sample_review(self) -> None:
        sha256 = hashlib.sha256((SAMPLES_DIR / SAMPLE).read_bytes()).hexdigest()
        dump = Dump.objects.filter(sha256=sha256).first()
        if dump is None or not dump.is_ready:
            self.stdout.write(f"Sample review: {SAMPLE} is not stored and read yet; run load_sample_dumps first.")
            return
        if Check.rows.filter(dump=dump).exists() or dump.assignees.exists():
            self.stdout.write("Sample review: already there.")
            return
        with transaction.atomic():
            editors = [_sample_editor(name) for name in EDITORS]
            owner = get_user_model().objects.filter(is_superuser=True).order_by("pk").first()
            editors_assign(dump=dump, editors=editors, by=owner, checks_needed=2)
            citations = [item for item in dump_check_items(dump) if item.kind == "citation"]
            for editor in editors:
                for number, item in enumerate(citations):
                    name = editor.get_username()
                    check_save(
                        dump=dump,
                        item=item,
                        editor=editor,
                        values={
                            "verdict": VERDICTS[name][number % len(VERDICTS[name])],
                            "subject": "yes",
                            "time": "yes",
                            "conditions": "yes",
                            "note": NOTES.get((name, number), ""),
                        },
                        statement_values={"verification_worthy": "yes"},
                        seen_version=item_version(dump, item.key),
                    )
        self.stdout.write(
            f"Sample review: {dump.display_title[:40]}… assigned to {', '.join(EDITORS)}, "
            "with two disagreements waiting to be settled."
        )


def _sample_editor(name: str) -> Any:
    """A sample editor: no one logs in as it (its password is unusable) until staff set one in the admin."""
    user, created = get_user_model().objects.get_or_create(username=name)
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    user.groups.add(Group.objects.get(name=EDITOR))
    return user


# The sample plan: 40 citations of the sample batch's 200 responses (sonar and sonar-pro), its first
# 16 checked, one editor each, so that its estimates show with a wide interval that says "incomplete".
PLAN_BATCH = "25-batch-200-sonar-ja-en.jsonl"
PLAN_NAME = "Sample: 40 citations of the batch"
PLAN_SIZE = 40
PLAN_CHECKED = 16


def _sample_plan() -> str:
    if CheckPlan.objects.filter(name=PLAN_NAME).exists():
        return "Sample plan: already there."
    sha256 = hashlib.sha256((SAMPLES_DIR / PLAN_BATCH).read_bytes()).hexdigest()
    batch = Dump.objects.filter(sha256=sha256).first()
    owner = get_user_model().objects.filter(is_superuser=True).order_by("pk").first()
    if batch is None or not batch.is_ready or owner is None:
        return f"Sample plan: {PLAN_BATCH} is not stored and read yet, or no account made it; skipped."
    editors = [_sample_editor(name) for name in EDITORS]
    with transaction.atomic():
        draft = PlanDraft(
            name=PLAN_NAME,
            unit=PlanUnit.CITATION,
            scope=PlanScope(PlanScopeKind.BATCH, dump=batch),
            size=PLAN_SIZE,
            margin=None,
            editors=editors,
            checks_needed=1,
        )
        plan = plan_make(draft=draft, by=owner)
        items = {item.key: item for item in dump_check_items(batch)}
        for number, drawn in enumerate(plan.items.order_by("position")[:PLAN_CHECKED]):
            item = items[drawn.item_key]
            # Most complete, some partial, a few none: what a real sample of search citations looks like.
            verdict = "none" if number % 7 == 3 else "partial" if number % 5 == 4 else "complete"
            values = {"verdict": verdict} if item.kind == "citation" else {}
            check_save(
                dump=batch,
                item=item,
                editor=editors[number % 2],
                values=values,
                statement_values={"verification_worthy": "yes", "supported_together": "yes"},
                seen_version=item_version(batch, item.key),
            )
    return f"Sample plan: {PLAN_SIZE} citations of the sample batch, {PLAN_CHECKED} checked by {', '.join(EDITORS)}."
