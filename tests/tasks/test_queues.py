"""The queues citeview's tasks go to: snapshot work and webhook deliveries each on their own, below the
dumps' work, and every queue a task names declared in the settings (a worker without --queue-name
takes them all)."""

from __future__ import annotations

import importlib
from pathlib import Path

from django.tasks import Task

import citeview.settings
from citeview.dumps.management.commands.worker import Command
from citeview.snapshots.tasks import SNAPSHOT_QUEUE, fetch_snapshot
from citeview.webhooks.tasks import WEBHOOK_QUEUE, deliver_webhook
from tests.conftest import PROJECT_DIR, TASK_QUEUES


def our_tasks() -> list[Task]:
    modules = sorted(Path(PROJECT_DIR, "citeview").glob("*/tasks.py"))
    found = []
    for path in modules:
        module = importlib.import_module(f"citeview.{path.parent.name}.tasks")
        found += [value for value in vars(module).values() if isinstance(value, Task)]
    return found


def test_snapshot_work_has_its_own_queue_and_ranks_below_every_task_of_the_dumps():
    tasks = our_tasks()
    assert fetch_snapshot.queue_name == SNAPSHOT_QUEUE
    snapshot_work = [task for task in tasks if task.queue_name == SNAPSHOT_QUEUE]
    dump_work = [task for task in tasks if task.queue_name == "default"]
    assert fetch_snapshot in snapshot_work and len(dump_work) >= 4  # reads, imports, rebuilds
    assert {task.queue_name for task in tasks} == {"default", SNAPSHOT_QUEUE, WEBHOOK_QUEUE}
    assert max(task.priority for task in snapshot_work) < min(task.priority for task in dump_work)


def test_webhook_deliveries_have_their_own_queue_and_rank_below_the_dumps_work_and_fetches():
    tasks = our_tasks()
    assert deliver_webhook.queue_name == WEBHOOK_QUEUE == "webhooks"
    assert [task for task in tasks if task.queue_name == WEBHOOK_QUEUE] == [deliver_webhook]
    others = [task for task in tasks if task.queue_name != WEBHOOK_QUEUE]
    assert deliver_webhook.priority < min(task.priority for task in others)


def test_every_queue_is_declared_and_a_worker_takes_them_all_unless_told(database_queue):
    declared = citeview.settings.TASKS["default"]["QUEUES"]
    assert declared == TASK_QUEUES  # the tests' backends declare what a deployment's does
    assert {task.queue_name for task in our_tasks()} <= set(declared)
    parser = Command().create_parser("manage.py", "worker")
    assert parser.parse_args([]).queue_name == "default,snapshots,webhooks"
    assert parser.parse_args(["--queue-name", "snapshots"]).queue_name == "snapshots"
