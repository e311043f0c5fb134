"""The namespace an object named in a console URL belongs to, for the scope wall of limited operators.

Every path parameter of a console route is listed here: one naming an object says how to find
its namespace, the others (a person's id, a console account) say they name none. A parameter
missing from both is refused, so a new route cannot slip past the wall unnoticed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.db.models import Model

from memoryadmin.conversations.models import Session
from memoryadmin.governance.models import ErasureRequest, PrivacyLink, SnapshotRestore
from memoryadmin.memories.models import Memory, Tombstone
from memoryadmin.tenancy.models import ApiKey, Namespace
from memoryadmin.webhooks.models import WebhookDelivery, WebhookEndpoint


def _by_pk(model: type[Model]) -> Callable[[Any], int | None]:
    def lookup(value: Any) -> int | None:
        return model.objects.filter(pk=value).values_list("namespace_id", flat=True).first()  # type: ignore[attr-defined]

    return lookup


OWNERS: dict[str, Callable[[Any], int | None]] = {
    "slug": lambda slug: Namespace.objects.filter(slug=slug).values_list("pk", flat=True).first(),
    "namespace_id": lambda pk: Namespace.objects.filter(pk=pk).values_list("pk", flat=True).first(),
    "memory_id": _by_pk(Memory),
    "session_pk": _by_pk(Session),
    "tombstone_id": _by_pk(Tombstone),
    "key_id": _by_pk(ApiKey),
    "erasure_id": _by_pk(ErasureRequest),
    "restore_id": _by_pk(SnapshotRestore),
    "link_id": _by_pk(PrivacyLink),
    "webhook_id": _by_pk(WebhookEndpoint),
    "delivery_id": lambda pk: (
        WebhookDelivery.objects.filter(pk=pk).values_list("endpoint__namespace_id", flat=True).first()
    ),
}
# Parameters that name no namespace's object: the person of a subject page (the namespace is
# its own parameter) and a console account (admin pages, which no limited operator reaches).
NEUTRAL = {"user_id", "username"}


class UnknownParameter(LookupError):
    pass


def namespaces_named(kwargs: Mapping[str, Any]) -> list[int | None]:
    """The namespace of each object the URL names; None for an object that does not exist."""
    owners = []
    for name, value in kwargs.items():
        if name in NEUTRAL:
            continue
        if name not in OWNERS:
            raise UnknownParameter(name)
        owners.append(OWNERS[name](value))
    return owners
