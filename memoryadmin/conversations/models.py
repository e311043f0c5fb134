from __future__ import annotations

from django.db import models
from django.db.models import Q

from memoryadmin.conversations.enums import MessageKind, Role


class Session(models.Model):
    ERASURE_STORE = "sessions"

    # Every index and constraint of the table starts with the namespace: a FK index of its own
    # would only cost a write per append (the counter's UPDATE cannot be HOT).
    # Deletes cascade in the database (DB_CASCADE) down the whole chain: a session's messages,
    # extraction runs and evidence go with it whoever deletes it, raw SQL included.
    namespace = models.ForeignKey(
        "tenancy.Namespace", on_delete=models.DB_CASCADE, related_name="sessions", db_index=False
    )
    session_id = models.CharField(max_length=128)
    user_id = models.CharField(max_length=128)
    agent_id = models.CharField(max_length=128, blank=True, default="")
    metadata = models.JSONField(default=dict, blank=True)
    # Doubles as the seq counter: an append bumps it with UPDATE ... RETURNING.
    message_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    last_message_at = models.DateTimeField(null=True, blank=True)
    # Sessions sort by activity; a session with no message yet sorts by creation.
    last_activity_at = models.DateTimeField(db_index=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["namespace", "session_id"], name="session_unique_per_namespace"),
        ]
        indexes = [
            models.Index(fields=["namespace", "user_id", "-last_activity_at", "-id"], name="session_ns_user_activity"),
            models.Index(fields=["namespace", "-last_activity_at", "-id"], name="session_ns_activity"),
        ]

    def __str__(self) -> str:
        return self.session_id


class Message(models.Model):
    ERASURE_STORE = "messages"

    # (session, seq) is unique, and that index serves every lookup by session.
    session = models.ForeignKey(Session, on_delete=models.DB_CASCADE, related_name="messages", db_index=False)
    seq = models.PositiveIntegerField()
    role = models.CharField(max_length=10, choices=Role.choices)
    kind = models.CharField(max_length=20, choices=MessageKind.choices, default=MessageKind.MESSAGE)
    content = models.TextField(blank=True, default="")
    name = models.CharField(max_length=128, blank=True, default="")
    run_id = models.CharField(max_length=128, blank=True, default="")
    tool_calls = models.JSONField(null=True, blank=True)
    tool_call_id = models.CharField(max_length=128, blank=True, default="")
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField()
    persisted_at = models.DateTimeField(auto_now_add=True)
    extracted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["session", "seq"], name="message_seq_unique_per_session"),
        ]
        indexes = [
            models.Index(fields=["session", "run_id"], name="message_run", condition=~Q(run_id="")),
            models.Index(fields=["session", "seq"], name="message_unextracted", condition=Q(extracted_at__isnull=True)),
        ]

    def __str__(self) -> str:
        return f"{self.session_id}#{self.seq}"

    @property
    def is_injected(self) -> bool:
        return self.kind != MessageKind.MESSAGE
