"""``python -m tests.oidc_provider.setup client CLIENT_ID SECRET REDIRECT_URI… --logout URI…``: the
provider's database made, with citeview registered as a client (authorization code, RS256, no consent
screen). ``… setup user NAME PASSWORD GROUP…``: a user of the provider, in exactly those groups.
``… setup rename NAME NEW_NAME``: the user renamed (their email follows), as a user may do at some
providers: the same account, so the same subject."""

from __future__ import annotations

import os
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.oidc_provider.settings")

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from oauth2_provider.models import get_application_model  # noqa: E402


def user(name: str, password: str, *groups: str) -> None:
    from django.contrib.auth.models import Group, User

    account, _ = User.objects.get_or_create(username=name, defaults={"email": f"{name}@example.com"})
    account.set_password(password)
    account.save()
    account.groups.set([Group.objects.get_or_create(name=group)[0] for group in groups])


def rename(name: str, new_name: str) -> None:
    from django.contrib.auth.models import User

    User.objects.filter(username=name).update(username=new_name, email=f"{new_name}@example.com")


def client(arguments: list[str]) -> None:
    client_id, secret, *rest = arguments
    split = rest.index("--logout")
    redirects, logouts = rest[:split], rest[split + 1 :]
    call_command("migrate", verbosity=0)
    get_application_model().objects.create(
        name="citeview",
        client_id=client_id,
        client_secret=secret,
        client_type="confidential",
        authorization_grant_type="authorization-code",
        redirect_uris=" ".join(redirects),
        post_logout_redirect_uris=" ".join(logouts),
        algorithm="RS256",
        skip_authorization=True,
    )


if __name__ == "__main__":
    if sys.argv[1] == "user":
        user(*sys.argv[2:])
    elif sys.argv[1] == "rename":
        rename(*sys.argv[2:])
    else:
        client(sys.argv[2:])
