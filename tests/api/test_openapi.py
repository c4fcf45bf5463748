"""The OpenAPI document describes exactly the API there is."""

from __future__ import annotations

import re

import pytest
from django.urls import get_resolver

from citeview.api.openapi import openapi_document

pytestmark = pytest.mark.django_db


def routes() -> set[str]:
    """Every API route, written the way OpenAPI writes paths."""
    api = next(p for p in get_resolver().url_patterns if str(p.pattern) == "api/")
    paths = set()
    for pattern in api.url_patterns:
        route = str(pattern.pattern)
        if route.startswith("^"):  # the catch-all that answers unknown paths in JSON
            continue
        paths.add("/api/" + re.sub(r"<int:(\w+)>", "{id}", route))
    return paths


def test_every_route_is_documented_and_every_documented_path_exists():
    assert set(openapi_document()["paths"]) == routes()


def test_the_document_is_served_without_logging_in(client):
    response = client.get("/api/openapi.json")
    assert response.status_code == 200 and response.json()["openapi"].startswith("3.1")


def test_every_operation_can_answer_401_and_403_in_the_error_shape():
    for path, operations in openapi_document()["paths"].items():
        for method, operation in operations.items():
            if operation.get("security") == []:
                continue
            assert {"401", "403"} <= set(operation["responses"]), f"{method.upper()} {path}"
