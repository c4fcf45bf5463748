"""What the review app tells the apps above it, which it may not import: a check was saved, a dump's
items are all checked, a disagreement was settled. The webhooks app tells the team's pipelines.
Each is sent once the save is committed, with ids only: whoever listens reads the rest, through the
rules that guard it (blind first)."""

from __future__ import annotations

from django.dispatch import Signal

# Sent with ``pk`` (the dump's), ``item_key``, ``editor`` (their user id) and ``check`` (the Check's id).
check_saved = Signal()
# Sent with ``pk`` when a save makes every checkable item of the dump checked by someone.
dump_fully_checked = Signal()
# Sent with ``pk``, ``item_key``, ``settler`` (their user id) and ``check`` (the settlement's id).
disagreement_settled = Signal()
