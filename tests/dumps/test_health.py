"""The health check answers without a login and without touching the database (these tests have no
database access: pytest-django fails any query they would make)."""

from __future__ import annotations


def test_the_health_check_answers_ok_without_a_login(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response.content == b"ok"


def test_the_health_check_only_answers_get(client):
    assert client.post("/healthz").status_code == 405
