from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class LoginFailure(models.Model):
    """One failed login. Kept in the database so that every app server sees the same count."""

    username = models.CharField(max_length=150, db_index=True)
    address = models.GenericIPAddressField(null=True, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)


class ApiToken(models.Model):
    """A key a script sends as ``Authorization: Bearer <key>`` to use the API as its user, with that
    user's role. Only the key's SHA-256 is kept: the key is shown once, when it is made, and a copy
    of the database cannot call the API. Keys are random (256 bits), so a fast hash is enough.
    A token lasts until ``expires_at`` (never when empty, if its user chose so), and is deleted when
    its user's password changes or the account is deactivated (``signals``). ``password_digest`` is
    its user's password as it was when the token was made (``tokens.password_digest``): a password
    changed by a path that sends no signal (``QuerySet.update``, SQL) ends the token at its next use."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens", verbose_name=_("user")
    )
    name = models.CharField(_("name"), max_length=100)
    prefix = models.CharField(_("starts with"), max_length=16)  # the key's start, to tell keys apart
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(_("created"), auto_now_add=True)
    last_used_at = models.DateTimeField(_("last used"), null=True, blank=True)
    expires_at = models.DateTimeField(_("expires"), null=True, blank=True)
    password_digest = models.CharField(max_length=64, default="")

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("API token")
        verbose_name_plural = _("API tokens")

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_expired(self) -> bool:
        """Refused from the moment it expires, that instant included."""
        return self.expires_at is not None and self.expires_at <= timezone.now()


class OidcIdentity(models.Model):
    """The identity provider's account a user signs in with: its issuer and subject (the ID token's
    ``iss`` and ``sub``), stored at the first sign-in. A provider never gives one subject to two
    people nor lets a user change it, unlike a user name or an email, which is why a sign-in is
    matched by these two alone (issue 42, finding 8)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="oidc_identity", verbose_name=_("user")
    )
    issuer = models.CharField(_("issuer (iss)"), max_length=255)
    subject = models.CharField(_("subject (sub)"), max_length=255)
    linked_at = models.DateTimeField(_("linked"), auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["issuer", "subject"], name="oidc_identity_issuer_subject")]
        verbose_name = _("identity at the provider")
        verbose_name_plural = _("identities at the provider")

    def __str__(self) -> str:
        return f"{self.subject} @ {self.issuer}"
