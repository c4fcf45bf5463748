"""A declared body over the limit is refused before anything else, so its answer must hold nothing an
account could not otherwise read: the refusal comes before any login or permission check."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth.models import Group
from django.urls import URLPattern, URLResolver, get_resolver

from citeview.dumps.models import Tag
from citeview.dumps.services import dump_ingest
from tests.builders import sonar_object

pytestmark = pytest.mark.django_db

LIMIT = 4096
SECRETS = ("secret-title-7", "secret-tag-7", "secret-uploader", "secretanswer", "secret.example")
ROLES = ("anonymous", "no role", "reviewer", "editor", "staff")
# A value for each kind of path parameter in the URLconf.
_ROUTE_PARAMETER = re.compile(r"<(?:(\w+):)?(\w+)>")
_REGEX_GROUP = re.compile(r"\(\?P<(\w+)>([^)]*)\)")


def every_path(patterns: list, prefix: str = "") -> list[str]:
    paths = []
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            paths += every_path(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            paths.append(route)
    return paths


def concrete(route: str, dump_pk: int) -> str:
    """The route with each parameter filled: the stored dump's id for ``pk``, something plausible elsewhere."""
    values = {"pk": str(dump_pk), "index": "0", "key": "r0-c0"}
    route = _ROUTE_PARAMETER.sub(lambda m: values.get(m.group(2), "1"), route)
    route = _REGEX_GROUP.sub(lambda m: m.group(2).split("|")[1] if "|" in m.group(2) else "x", route)
    return "/" + route.replace("^", "").replace("$", "")


@pytest.fixture
def secret_dump(django_user_model):
    uploader = django_user_model.objects.create_user("secret-uploader", password="a-long-test-password")
    raw = json.dumps(sonar_object("secretanswer is here[1].", ["https://secret.example/page"])).encode()
    dump, _ = dump_ingest(raw=raw, uploaded_by=uploader)
    dump.title = "secret-title-7"
    dump.save(update_fields=["title"])
    dump.tags.add(Tag.objects.create(name="secret-tag-7"))
    return dump


def log_in_as(client, django_user_model, role: str) -> None:
    if role == "anonymous":
        return
    user = django_user_model.objects.create_user(f"caller-{role.replace(' ', '-')}", password="a-long-test-password")
    if role in ("reviewer", "editor"):
        user.groups.add(Group.objects.get(name=role))
    if role == "staff":
        user.groups.add(Group.objects.get(name="editor"))
        user.is_staff = user.is_superuser = True
        user.save()
    client.force_login(user)


@pytest.mark.parametrize("role", ROLES)
def test_every_url_refuses_an_oversized_body_with_nothing_from_the_database(
    client, django_user_model, settings, secret_dump, role, django_assert_num_queries
):
    settings.CITEVIEW_MAX_DUMP_BYTES = LIMIT
    settings.CITEVIEW_MAX_IMPORT_BYTES = LIMIT
    log_in_as(client, django_user_model, role)
    paths = [concrete(route, secret_dump.pk) for route in every_path(get_resolver().url_patterns)]
    assert "/" in paths and "/imports/" in paths and "/api/imports" in paths and len(paths) > 40
    for path in paths:
        for method in ("get", "post", "put"):
            with django_assert_num_queries(0):  # answered before the session, the user and any page
                response = getattr(client, method)(f"{path}?q=secret", CONTENT_LENGTH=str(100 * LIMIT))
            body = response.content.decode()
            assert response.status_code == 413, (method, path)
            assert "the limit is 4 KiB" in body, (method, path)  # it says what is wrong
            assert not any(secret in body for secret in SECRETS), (method, path, role)


def test_the_refusal_page_links_back_to_the_form_it_came_from(editor_client, settings):
    settings.CITEVIEW_MAX_IMPORT_BYTES = LIMIT
    response = editor_client.post("/imports/", CONTENT_LENGTH=str(100 * LIMIT))
    assert response.status_code == 413 and 'href="/imports/"' in response.content.decode()
