"""Reads of governance data shared by the API, the console and the privacy pages."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from django.contrib.auth.models import User
from django.db.models import Count, Exists, OuterRef, Prefetch, QuerySet

from memoryadmin.core.errors import found
from memoryadmin.core.fingerprints import subject_hmac
from memoryadmin.core.pagination import Page, clamp_limit, keyset_page
from memoryadmin.governance.models import (
    ErasureRequest,
    ErasureStatus,
    ForgettingPolicy,
    ForgettingRun,
    PrivacyLink,
    SnapshotRestore,
)
from memoryadmin.memories.models import Memory, MemoryEvidence, Pin
from memoryadmin.tenancy.models import ApiKey, Namespace


def subject_memories(*, namespace: Namespace, user_id: str, cursor: str | None = None, limit: int = 50) -> Page[Memory]:
    """A person's memories, newest first, each with its evidence messages loaded (three queries a page)."""
    limit = clamp_limit(limit)
    qs = (
        Memory.objects.filter(namespace=namespace, user_id=user_id)
        .defer("search_vector")
        .annotate(pinned=Exists(Pin.objects.filter(memory_id=OuterRef("pk"))))
        .prefetch_related(
            Prefetch(
                "evidence",
                queryset=MemoryEvidence.objects.select_related("message__session").order_by(
                    "message__session__session_id", "message__seq"
                ),
            )
        )
    )
    return keyset_page(qs, tag="subject-memories", key=("created_at", "id"), cursor=cursor, limit=limit)


def erasure_get(erasure_id: uuid.UUID) -> ErasureRequest | None:
    """An erasure by id, whichever namespace it is in (loaded with it)."""
    return ErasureRequest.objects.select_related("namespace").filter(pk=erasure_id).first()


def erasure_in(namespace: Namespace, erasure_id: uuid.UUID) -> ErasureRequest:
    """The namespace's erasure by id; another namespace's is not found."""
    return found(ErasureRequest.objects.filter(namespace=namespace, pk=erasure_id), "Not found.")


def erasure_namespace_id(erasure_id: uuid.UUID) -> int | None:
    return ErasureRequest.objects.filter(pk=erasure_id).values_list("namespace_id", flat=True).first()


def subject_erasure(*, namespace: Namespace, user_id: str, erasure_id: uuid.UUID) -> ErasureRequest | None:
    """One person's own erasure: another's is not found, whatever its id."""
    return ErasureRequest.objects.filter(
        namespace=namespace, pk=erasure_id, subject_hash=subject_hmac(namespace.pk, user_id)
    ).first()


def erasures_page(
    *, namespace: Namespace, user_id: str | None = None, cursor: str | None = None, limit: int = 50
) -> Page[ErasureRequest]:
    """Newest first; `user_id` finds one person's, by the keyed hash the ledger keeps once the id is gone."""
    limit = clamp_limit(limit)
    qs = ErasureRequest.objects.filter(namespace=namespace)
    if user_id is not None:
        qs = qs.filter(subject_hash=subject_hmac(namespace.pk, user_id))
    return keyset_page(qs, tag="erasures", key=("created_at", "id"), cursor=cursor, limit=limit)


def open_erasures_per_namespace(namespace_ids: Sequence[int]) -> dict[int, int]:
    """Erasures pending or running in each namespace (those with none are left out)."""
    return dict(
        ErasureRequest.objects.filter(
            namespace_id__in=list(namespace_ids), status__in=[ErasureStatus.PENDING, ErasureStatus.RUNNING]
        )
        .values_list("namespace_id")
        .annotate(n=Count("id"))
        .values_list("namespace_id", "n")
    )


def erasures_per_namespace(user_id: str, namespace_ids: Sequence[int]) -> dict[int, int]:
    """How many erasures of one person each namespace recorded (the ledger keeps only their keyed hash)."""
    hashes = [subject_hmac(ns, user_id) for ns in namespace_ids]
    rows = (
        ErasureRequest.objects.filter(namespace_id__in=list(namespace_ids), subject_hash__in=hashes)
        .order_by()
        .values("namespace_id")
        .annotate(n=Count("id"))
        .values_list("namespace_id", "n")
    )
    return dict(rows)


def forgetting_runs(namespace: Namespace, limit: int = 20) -> QuerySet[ForgettingRun]:
    return ForgettingRun.objects.filter(namespace=namespace).order_by("-started_at")[:limit]


def forgetting_policy_of(namespace: Namespace) -> ForgettingPolicy:
    """The stored policy, or an unsaved disabled one to start the editor from."""
    return ForgettingPolicy.objects.filter(namespace=namespace).first() or ForgettingPolicy(namespace=namespace)


def restores(namespace: Namespace, limit: int = 20) -> QuerySet[SnapshotRestore]:
    return SnapshotRestore.objects.filter(namespace=namespace).order_by("-created_at")[:limit]


def restore_get(restore_id: uuid.UUID) -> SnapshotRestore | None:
    """A snapshot restore by id, whichever namespace it is in (loaded with it)."""
    return SnapshotRestore.objects.select_related("namespace").filter(pk=restore_id).first()


def restore_namespace_id(restore_id: uuid.UUID) -> int | None:
    return SnapshotRestore.objects.filter(pk=restore_id).values_list("namespace_id", flat=True).first()


def privacy_link_namespace_id(link_id: uuid.UUID) -> int | None:
    return PrivacyLink.objects.filter(pk=link_id).values_list("namespace_id", flat=True).first()


def privacy_links_page(
    *, namespace: Namespace, user_id: str, cursor: str | None = None, limit: int = 50
) -> Page[PrivacyLink]:
    """One person's privacy links, newest first (the privacylink_ns_subject index)."""
    qs = PrivacyLink.objects.filter(namespace=namespace, subject_hash=subject_hmac(namespace.pk, user_id))
    return keyset_page(
        qs,
        tag="privacy-links",
        key=("created_at", "id"),
        cursor=cursor,
        limit=clamp_limit(limit),
    )


def privacy_links_made_by(
    *, key: ApiKey | None = None, user: User | None = None, cursor: str | None = None, limit: int = 50
) -> Page[PrivacyLink]:
    """The privacy links one key or one operator made, newest first (privacylink_key, privacylink_user):
    what to look through when a key leaks or an account is misused."""
    if (key is None) == (user is None):
        raise ValueError("name one maker: a key or a user")
    maker = {"made_by_key": key} if key is not None else {"made_by_user": user}
    qs = PrivacyLink.objects.filter(**maker)
    return keyset_page(
        qs.select_related("namespace"),
        tag="privacy-links-made",
        key=("created_at", "id"),
        cursor=cursor,
        limit=clamp_limit(limit),
    )
