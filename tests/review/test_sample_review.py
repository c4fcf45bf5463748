"""``make run`` shows the checking workflow at once (issue 41): a sample dump assigned to two editors who
have checked it, with two disagreements waiting for the local account (staff, who settle) to settle."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse

from citeview.review.management.commands.load_sample_review import EDITORS, SAMPLE
from citeview.review.models import Check
from citeview.review.selectors import disputes_waiting, settle_waiting_count

pytestmark = pytest.mark.django_db


def test_make_run_loads_a_dump_two_editors_checked_with_two_disagreements_to_settle(client, capsys):
    call_command("ensure_local_account")
    call_command("load_sample_dumps")
    call_command("load_sample_review")
    assert "two disagreements waiting to be settled" in capsys.readouterr().out
    local = get_user_model().objects.get(username="editor")
    disputes, total = disputes_waiting(local)
    assert total == 2 and {dispute.dump.filename for dispute in disputes} == {SAMPLE}
    dump = disputes[0].dump
    assert sorted(dump.assignees.values_list("username", flat=True)) == sorted(EDITORS)
    assert dump.checks_needed == 2 and not any(user.has_usable_password() for user in dump.assignees.all())
    assert settle_waiting_count(local) == 2

    client.force_login(local)
    viewer = client.get(dump.get_absolute_url()).content.decode()
    assert "assigned to sample-aoi, sample-ben" in viewer and "7 of 7 items have their 2 independent checks" in viewer
    settle = client.get(reverse("review:settle_queue")).content.decode()
    assert "2 items where editors gave different verdicts have not been settled" in settle

    checks = Check.objects.count()
    call_command("load_sample_review")  # once: run again, it changes nothing
    assert "already there" in capsys.readouterr().out and Check.objects.count() == checks
