from __future__ import annotations

import hashlib
import secrets

from django.contrib.postgres.fields import ArrayField
from django.core.validators import RegexValidator
from django.db import models

# The choices live in enums.py, where the presentation apps import them; SCOPES is imported here
# too, so the data apps' code still finds it beside the models.
from memoryadmin.tenancy.enums import SCOPES, ExtractionStrategy  # noqa: F401

SLUG_RE = r"^[a-z0-9][a-z0-9-]{0,62}$"


class Namespace(models.Model):
    PERSONAL_DATA = "none"

    slug = models.CharField(
        max_length=63,
        unique=True,
        validators=[RegexValidator(SLUG_RE, "lowercase letters, digits and hyphens, starting with a letter or digit")],
    )
    name = models.CharField(max_length=200)
    review_required = models.BooleanField(default=False)
    extraction_strategy = models.CharField(
        max_length=20, choices=ExtractionStrategy.choices, default=ExtractionStrategy.OFFLINE
    )
    extraction_config = models.JSONField(default=dict, blank=True)
    working_memory_ttl_seconds = models.PositiveIntegerField(default=3600)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug


def hash_api_key(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


class ApiKey(models.Model):
    PERSONAL_DATA = "none"

    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=200)
    prefix = models.CharField(max_length=16, db_index=True)
    key_hash = models.CharField(max_length=64, unique=True)
    scopes = ArrayField(models.CharField(max_length=10), default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.name})"

    @staticmethod
    def generate() -> tuple[str, str, str]:
        """Return (raw key, prefix, hash). The raw key is shown once and never stored."""
        prefix = secrets.token_hex(4)
        raw = f"ma_{prefix}_{secrets.token_urlsafe(32)}"
        return raw, prefix, hash_api_key(raw)

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    def has_scope(self, scope: str) -> bool:
        return scope in self.scopes


class OperatorNamespace(models.Model):
    """A namespace an operator or viewer is limited to. No row for a user: every namespace."""

    PERSONAL_DATA = "none"

    user = models.ForeignKey("auth.User", on_delete=models.CASCADE, related_name="namespace_grants")
    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="operator_grants")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "namespace"], name="operator_namespace_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} → {self.namespace_id}"
