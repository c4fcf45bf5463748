"""django-oauth-toolkit's OpenID provider (``tests/oidc_provider``) run on loopback in a process of its
own, for the sign-in tests: a real provider, its login page, tokens signed with its own RSA key."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conftest import PROJECT_DIR

CLIENT_ID = "citeview-test-client"
CLIENT_SECRET = "citeview-test-secret-" + "s" * 30


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Provider:
    url: str
    process: subprocess.Popen[bytes]
    env: dict[str, str]

    def user(self, name: str, password: str, *groups: str) -> None:
        """A user of the provider in exactly ``groups`` (made, or changed)."""
        _run(self.env, "user", name, password, *groups)

    def rename(self, name: str, new_name: str) -> None:
        """The provider's user ``name`` renamed ``new_name`` (email too): the same subject."""
        _run(self.env, "rename", name, new_name)

    def settings(self) -> dict[str, Any]:
        """citeview's settings that point it at this provider."""
        return {
            "OIDC_RP_CLIENT_ID": CLIENT_ID,
            "OIDC_RP_CLIENT_SECRET": CLIENT_SECRET,
            "OIDC_OP_AUTHORIZATION_ENDPOINT": f"{self.url}/o/authorize/",
            "OIDC_OP_TOKEN_ENDPOINT": f"{self.url}/o/token/",
            "OIDC_OP_USER_ENDPOINT": f"{self.url}/o/userinfo/",
            "OIDC_OP_JWKS_ENDPOINT": f"{self.url}/o/.well-known/jwks.json",
            "OIDC_OP_LOGOUT_ENDPOINT": f"{self.url}/o/logout/",
            "CITEVIEW_OIDC_NAME": "Test IdP",
        }

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def _run(env: dict[str, str], *arguments: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "tests.oidc_provider.setup", *arguments], cwd=PROJECT_DIR, env=env, check=True
    )


def start_provider(folder: Path, redirect_uris: list[str], logout_uris: list[str]) -> Provider:
    """The provider on a free loopback port, with citeview registered for ``redirect_uris``."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")},
        "DJANGO_SETTINGS_MODULE": "tests.oidc_provider.settings",
        "OIDC_PROVIDER_DB": str(folder / "provider.sqlite3"),
    }
    _run(env, "client", CLIENT_ID, CLIENT_SECRET, *redirect_uris, "--logout", *logout_uris)
    port = free_port()
    command = [sys.executable, "-m", "django", "runserver", f"127.0.0.1:{port}", "--noreload", "--skip-checks"]
    process = subprocess.Popen(command, cwd=PROJECT_DIR, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(f"{url}/o/.well-known/jwks.json", timeout=2).read()
            return Provider(url, process, env)
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                raise
            time.sleep(0.1)
