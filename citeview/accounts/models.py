from django.db import models


class LoginFailure(models.Model):
    """One failed login. Kept in the database so that every app server sees the same count."""

    username = models.CharField(max_length=150, db_index=True)
    address = models.GenericIPAddressField(null=True, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
