"""The three roles, as Django groups made by a migration, and what each may do.

Reviewers read everything and comment; editors also store dumps, edit their title and tags, and
record checks; leads are editors who also assign dumps to editors and settle where editors disagree.
Staff manage accounts and roles in the admin, and may assign and settle too.
"""

from __future__ import annotations

from typing import Any

EDITOR = "editor"
REVIEWER = "reviewer"
LEAD = "lead"

READ = "dumps.view_dump"
STORE = "dumps.add_dump"
ORGANISE = "dumps.change_dump"
RECORD = "review.record_check"
COMMENT = "review.add_comment"
SETTLE = "review.settle_check"

ROLE_PERMISSIONS = {
    REVIEWER: [READ, "review.view_check", COMMENT],
    EDITOR: [READ, "review.view_check", COMMENT, STORE, ORGANISE, RECORD],
    LEAD: [READ, "review.view_check", COMMENT, STORE, ORGANISE, RECORD, SETTLE],
}


def role_name(user: Any) -> str | None:
    """The user's role, for showing: "lead", "editor", "reviewer", or None while staff have given none."""
    if can_settle(user):
        return LEAD
    if user.has_perm(RECORD):
        return EDITOR
    return REVIEWER if user.has_perm(READ) else None


def fragment_audience(user: Any, *, shows_own_checks: bool = False) -> str:
    """Whom a kept fragment of a page may be shown to (``citeview.dumps.kept_fragments``): everyone of the
    user's role, as a fragment shows what the role's permissions allow; a fragment that shows checks
    blind first keeps from an editor until they check (``checks_visible_to``) only to that editor."""
    role = role_name(user) or "none"
    return f"{role}.{user.pk}" if shows_own_checks and can_record(user) else role


def can_record(user: Any) -> bool:
    return bool(user.has_perm(RECORD))


def can_settle(user: Any) -> bool:
    """Whether ``user`` may give the final verdict where editors disagree: a lead, or staff."""
    return bool(user.is_staff or user.has_perm(SETTLE))


def can_assign(user: Any) -> bool:
    """Whether ``user`` decides who checks a dump (its editors, and how many check each item): a lead,
    or staff. Assigning decides who reads whose verdicts and who may settle, so editors do not."""
    return can_settle(user)


def can_comment(user: Any) -> bool:
    return bool(user.has_perm(COMMENT))


def ensure_roles(group_model: Any, permission_model: Any) -> None:
    """Make both groups with their permissions, leaving any other permission staff gave them."""
    for role, names in ROLE_PERMISSIONS.items():
        group, _ = group_model.objects.get_or_create(name=role)
        for name in names:
            app_label, codename = name.split(".")
            permission = permission_model.objects.filter(content_type__app_label=app_label, codename=codename).first()
            if permission is not None:
                group.permissions.add(permission)
