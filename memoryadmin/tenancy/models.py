from __future__ import annotations

import hashlib
import secrets

from django.contrib.postgres.fields import ArrayField
from django.core.validators import RegexValidator
from django.db import models

SLUG_RE = r"^[a-z0-9][a-z0-9-]{0,62}$"
# read: every GET and search; write: every change; erase: data-subject erasure; tombstones: list
# tombstones and lift them (what an operator's admin role may do in the console), which no
# read or write key can, since lifting one lets forgotten text be stored again; webhooks: manage
# the namespace's webhook endpoints (an admin's task in the console), since an endpoint hears of
# every change.
SCOPES = ("read", "write", "erase", "tombstones", "webhooks")


class ExtractionStrategy(models.TextChoices):
    OFFLINE = "offline", "Facts, events and episodes (offline)"
    RULES = "rules", "Rules (offline, first-person facts only)"
    DISCRETE = "discrete", "Discrete facts (LLM)"
    SUMMARY = "summary", "Session summary (LLM)"
    PREFERENCES = "preferences", "Preferences (LLM)"
    CUSTOM = "custom", "Custom prompt (LLM)"


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
