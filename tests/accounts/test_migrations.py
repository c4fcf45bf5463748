"""Tokens made before tokens could expire are given the default lifetime by the migration, from then."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

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
