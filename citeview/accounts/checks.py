"""`manage.py check --deploy`: settings that make the login pause count the wrong thing."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Tags, Warning, register


@register(Tags.security, deploy=True)
def trusted_proxies_check(app_configs: Any, **kwargs: Any) -> list[Warning]:
    # Behind a proxy with none trusted, every visitor has the proxy's address: a few failed logins
    # from anyone would pause everyone's.
    if settings.SECURE_PROXY_SSL_HEADER is None or settings.TRUSTED_PROXIES:
        return []
    return [
        Warning(
            "BEHIND_TLS_PROXY is on but TRUSTED_PROXIES is empty: every visitor is counted under the "
            "proxy's address, so failed logins from one pause logins for all.",
            hint="Set TRUSTED_PROXIES to the proxy's address or network, e.g. TRUSTED_PROXIES=127.0.0.1.",
            id="accounts.W001",
        )
    ]
