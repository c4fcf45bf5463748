"""``python manage.py ensure_local_account``: a first account for local use, with a generated password."""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand

from citeview.accounts.roles import EDITOR

LOCAL_USERNAME = "editor"


class Command(BaseCommand):
    help = "Create a local editor account with staff rights and a generated password if there is no account yet."

    def handle(self, *args: Any, **options: Any) -> None:
        users = get_user_model().objects
        if users.exists():
            name = users.order_by("pk").values_list("username", flat=True).first()
            self.stdout.write(
                f"Accounts exist already; log in as one of them (e.g. {name}). "
                f"Forgot the password? python manage.py changepassword {name}"
            )
            return
        password = secrets.token_urlsafe(12)
        # An editor who is also staff: records checks, and manages accounts and roles in the admin.
        user = users.create_superuser(username=LOCAL_USERNAME, password=password, email="")
        user.groups.add(Group.objects.get(name=EDITOR))
        self.stdout.write(self.style.SUCCESS("Created a local account (an editor, with staff rights):"))
        self.stdout.write(f"  user name: {LOCAL_USERNAME}\n  password:  {password}")
