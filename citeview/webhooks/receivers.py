"""The events the apps below send (``citeview.dumps.signals``, ``citeview.review.signals``), each made a
delivery for every endpoint that wants it."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from citeview.dumps.signals import dump_read_failed, dump_stored
from citeview.review.signals import check_saved, disagreement_settled, dump_fully_checked
from citeview.webhooks.events import check_data, dump_fully_checked_data, dump_read_failed_data, dump_stored_data
from citeview.webhooks.services import deliveries_queue


@receiver(dump_stored, dispatch_uid="citeview-webhook-dump-stored")
def _dump_stored(sender: Any, pk: int, **kwargs: Any) -> None:
    deliveries_queue("dump.stored", lambda endpoint: dump_stored_data(pk))


@receiver(dump_read_failed, dispatch_uid="citeview-webhook-dump-read-failed")
def _dump_read_failed(sender: Any, pk: int, code: str, **kwargs: Any) -> None:
    deliveries_queue("dump.read_failed", lambda endpoint: dump_read_failed_data(pk, code))


@receiver(check_saved, dispatch_uid="citeview-webhook-check-saved")
def _check_saved(sender: Any, check: int, **kwargs: Any) -> None:
    deliveries_queue("check.saved", lambda endpoint: check_data(check, endpoint))


@receiver(dump_fully_checked, dispatch_uid="citeview-webhook-dump-fully-checked")
def _dump_fully_checked(sender: Any, pk: int, **kwargs: Any) -> None:
    deliveries_queue("dump.fully_checked", lambda endpoint: dump_fully_checked_data(pk))


@receiver(disagreement_settled, dispatch_uid="citeview-webhook-disagreement-settled")
def _disagreement_settled(sender: Any, check: int, **kwargs: Any) -> None:
    deliveries_queue("disagreement.settled", lambda endpoint: check_data(check, endpoint))
