"""Tokens made before tokens could expire are given the default lifetime by the migration, from then;
tokens made before they kept their user's password are stamped with the one the user has."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from tests.api.conftest import bearer_client

BEFORE_EXPIRY = [("accounts", "0002_api_tokens")]
WITH_EXPIRY = [("accounts", "0003_api_token_expiry")]


@pytest.mark.django_db(transaction=True)
def test_tokens_made_before_expiry_existed_expire_90_days_after_the_migration(django_user_model):
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE_EXPIRY)
    old_state = executor.loader.project_state(BEFORE_EXPIRY).apps
    user = old_state.get_model("auth", "User").objects.create(username="hanako")
    old_state.get_model("accounts", "ApiToken").objects.create(user=user, name="old", prefix="cv_x", key_hash="0" * 64)
    executor = MigrationExecutor(connection)
    executor.migrate(WITH_EXPIRY)
    token = executor.loader.project_state(WITH_EXPIRY).apps.get_model("accounts", "ApiToken").objects.get()
    assert abs(token.expires_at - (timezone.now() + timedelta(days=90))) < timedelta(minutes=1)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


BEFORE_DIGEST = [("accounts", "0003_api_token_expiry")]
WITH_DIGEST = [("accounts", "0004_api_token_password_digest")]


@pytest.mark.django_db(transaction=True)
def test_tokens_made_before_they_kept_the_password_keep_working_until_it_changes(django_user_model):
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE_DIGEST)
    old_state = executor.loader.project_state(BEFORE_DIGEST).apps
    user = old_state.get_model("auth", "User").objects.create(username="hanako", password="md5$salt$0123")
    token = old_state.get_model("accounts", "ApiToken")
    token.objects.create(user=user, name="old", prefix="cv_x", key_hash=hashlib.sha256(b"cv_old-key").hexdigest())
    executor = MigrationExecutor(connection)
    executor.migrate(WITH_DIGEST)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert bearer_client("cv_old-key").get("/api/dumps").status_code == 403  # known, with no role yet
    django_user_model.objects.filter(username="hanako").update(password="md5$salt$4567")
    assert bearer_client("cv_old-key").get("/api/dumps").status_code == 401
