from __future__ import annotations

import uuid

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import Q

from memoryadmin.memories.enums import DatePrecision, MemorySource, MemoryStatus, MemoryType, TombstoneReason
from memoryadmin.memories.fields import EmbeddingField

# The limits of a memory's labels, defined with the columns that hold them. Every path that writes
# a memory (API, console, extraction, merge, restore) checks them through the services' cleaning,
# and the API's schema publishes them, so no path can store what another would refuse or truncate.
MAX_TOPIC_CHARS = 100
MAX_ENTITY_CHARS = 200
MAX_LABELS = 50


class Memory(models.Model):
    ERASURE_STORE = "memories"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # No index of its own: every index of the table starts with the namespace.
    # Deletes cascade in the database (DB_CASCADE): revisions, evidence, pins and every other
    # child of a memory go with it whoever deletes it, raw SQL included.
    namespace = models.ForeignKey(
        "tenancy.Namespace", on_delete=models.DB_CASCADE, related_name="memories", db_index=False
    )
    user_id = models.CharField(max_length=128)
    session_id = models.CharField(max_length=128, blank=True, default="")
    agent_id = models.CharField(max_length=128, blank=True, default="")
    text = models.TextField()
    memory_type = models.CharField(max_length=12, choices=MemoryType.choices, default=MemoryType.SEMANTIC)
    status = models.CharField(max_length=10, choices=MemoryStatus.choices, default=MemoryStatus.ACTIVE)
    topics = ArrayField(models.CharField(max_length=MAX_TOPIC_CHARS), default=list, blank=True)
    entities = ArrayField(models.CharField(max_length=MAX_ENTITY_CHARS), default=list, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    source = models.CharField(max_length=12, choices=MemorySource.choices, default=MemorySource.API)
    fingerprint = models.CharField(max_length=64)
    search_vector = models.GeneratedField(
        expression=SearchVector("text", config="english"),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    last_accessed_at = models.DateTimeField(null=True, blank=True)
    access_count = models.PositiveIntegerField(default=0)
    revision = models.PositiveIntegerField(default=1)
    # Who the memory is about when that is not simply its user (a speaker of a group chat), and
    # which single-valued attribute of theirs it states ("residence", "car"). A newer memory of the
    # same user, subject and attribute supersedes it. Blank for memories that state no such attribute.
    subject = models.CharField(max_length=200, blank=True, default="")
    attribute = models.CharField(max_length=100, blank=True, default="")
    # The day the event it records happened, resolved from what was said ("yesterday", "last week").
    event_date = models.DateField(null=True, blank=True)
    event_date_precision = models.CharField(
        max_length=5, choices=DatePrecision.choices, blank=True, default="", db_default=""
    )
    # When its content was last said (its newest evidence message, or as the app gave it; else when it was
    # written): the newer statement wins a supersession, and a question naming a time prefers it.
    stated_at = models.DateTimeField(null=True, blank=True)
    # The memory that replaced it, once superseded. Not a foreign key: the replacement may later be
    # forgotten, and the history that it was replaced stays true.
    superseded_by = models.UUIDField(null=True, blank=True)
    superseded_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # The exact-duplicate rule, enforced even under concurrent writers.
            models.UniqueConstraint(fields=["namespace", "user_id", "fingerprint"], name="memory_unique_text_per_user"),
        ]
        indexes = [
            # btree_gin: lets a user's search start from that user's memories instead of intersecting
            # with every match of a common word. A GIN index serves a condition on any of its columns
            # alike, so the same index answers full text across a namespace: no second one to write.
            GinIndex(fields=["user_id", "search_vector"], name="memory_user_search"),
            GinIndex(fields=["text"], name="memory_text_trgm", opclasses=["gin_trgm_ops"]),
            models.Index(fields=["namespace", "user_id", "-created_at", "-id"], name="memory_ns_user_created"),
            # No index may hold last_accessed_at or access_count, not even as an included column:
            # the access stats a search records are then HOT updates (see migration 0004), which
            # matters more than an index-only scan for the forgetting selection.
            models.Index(fields=["namespace", "-created_at", "-id"], name="memory_ns_created"),
            models.Index(fields=["namespace", "status", "created_at", "id"], name="memory_ns_status_created"),
            # A question naming a time finds a person's memories said then.
            models.Index(fields=["namespace", "user_id", "stated_at"], name="memory_ns_user_stated"),
            # ... and the memories of what happened then ("What happened in November?"); only dated ones.
            models.Index(
                fields=["namespace", "user_id", "event_date"],
                name="memory_ns_user_event",
                condition=Q(event_date__isnull=False),
            ),
            # Supersession looks up the memories stating one attribute of one subject.
            models.Index(
                fields=["namespace", "user_id", "attribute", "subject"],
                name="memory_attribute",
                condition=~Q(attribute=""),
            ),
        ]

    def __str__(self) -> str:
        return self.text[:60]


class MemoryRevision(models.Model):
    ERASURE_STORE = "revisions"

    # Indexed by revision_unique_per_memory, which starts with the memory.
    memory = models.ForeignKey(Memory, on_delete=models.DB_CASCADE, related_name="revisions", db_index=False)
    revision = models.PositiveIntegerField()
    text = models.TextField()
    # The fingerprint of this revision's text: forgetting tombstones every text a memory ever had.
    fingerprint = models.CharField(max_length=64, blank=True, default="")
    memory_type = models.CharField(max_length=12, choices=MemoryType.choices)
    topics = ArrayField(models.CharField(max_length=MAX_TOPIC_CHARS), default=list, blank=True)
    entities = ArrayField(models.CharField(max_length=MAX_ENTITY_CHARS), default=list, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    actor = models.CharField(max_length=220)
    reason = models.TextField(blank=True, default="")
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["revision"]
        constraints = [
            models.UniqueConstraint(fields=["memory", "revision"], name="revision_unique_per_memory"),
        ]

    def __str__(self) -> str:
        return f"{self.memory_id} r{self.revision}"


class MemoryEvidence(models.Model):
    ERASURE_STORE = "evidence"

    # Indexed by evidence_unique, which starts with the memory.
    memory = models.ForeignKey(Memory, on_delete=models.DB_CASCADE, related_name="evidence", db_index=False)
    message = models.ForeignKey("conversations.Message", on_delete=models.DB_CASCADE, related_name="evidence")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["memory", "message"], name="evidence_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.memory_id} <- {self.message_id}"


class Pin(models.Model):
    ERASURE_STORE = "pins"

    memory = models.OneToOneField(Memory, on_delete=models.DB_CASCADE, primary_key=True, related_name="pin")
    pinned_by = models.CharField(max_length=220)
    reason = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"pin {self.memory_id}"


class Tombstone(models.Model):
    ERASURE_STORE = "tombstones"

    # Indexed by tombstone_unique (namespace, user_id, fingerprint), which also serves lookups
    # by (namespace, user_id).
    namespace = models.ForeignKey(
        "tenancy.Namespace", on_delete=models.CASCADE, related_name="tombstones", db_index=False
    )
    user_id = models.CharField(max_length=128)
    fingerprint = models.CharField(max_length=64)
    reason = models.CharField(max_length=10, choices=TombstoneReason.choices)
    # Kept only for operator rejections; a person's own request keeps nothing but the fingerprint.
    text = models.TextField(blank=True, default="")
    memory_type = models.CharField(max_length=12, blank=True, default="")
    actor = models.CharField(max_length=220)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["namespace", "user_id", "fingerprint"], name="tombstone_unique"),
        ]
        indexes = [
            models.Index(fields=["namespace", "-created_at", "-id"], name="tombstone_ns_created"),
        ]

    def __str__(self) -> str:
        return f"tombstone {self.fingerprint[:12]} ({self.reason})"


class MemoryVector(models.Model):
    """A memory's embedding by one model. Vectors of different models are never compared.

    The rows go with their memory in the database itself: migration 0007 declares the
    foreign keys ON DELETE CASCADE, so forgetting and erasure remove them whatever path
    deletes the memory, and Django never loads them to delete them (hence DO_NOTHING and
    no constraint of Django's own here). The namespace and user_id are
    the memory's, kept here so erasure finds and verifies this table like any other that
    holds a person's data, and so a vector search can be scoped without a join.
    """

    ERASURE_STORE = "vectors"
    # Travels inside its memory's snapshot record (`vector`), not as records of its own.
    SNAPSHOT_EXPORT = False

    memory = models.ForeignKey(
        Memory, on_delete=models.DO_NOTHING, related_name="vectors", db_index=False, db_constraint=False
    )
    namespace = models.ForeignKey(
        "tenancy.Namespace",
        on_delete=models.DO_NOTHING,
        related_name="memory_vectors",
        db_index=False,
        db_constraint=False,
    )
    user_id = models.CharField(max_length=128)
    model = models.CharField(max_length=200)
    dimension = models.PositiveSmallIntegerField()
    embedding = EmbeddingField()
    # The same vector in int8 with its float32 scale (vectors.vector_codes): a quarter of the bytes, and
    # held in the person index below, so a search reads a person's vectors from that index alone.
    code = models.BinaryField(null=True)
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["memory", "model"], name="memory_vector_unique_model"),
        ]
        indexes = [
            # Covering: a person's ids and codes, and the rows' ids for their mark (vectors.person_codes_sql),
            # an index-only scan of a few pages (the table is only inserted into and deleted from, so its
            # pages stay all-visible).
            models.Index(
                fields=["namespace", "user_id", "model"],
                include=["memory", "code", "id"],
                name="memory_vector_person_marks",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.memory_id} ({self.model})"
