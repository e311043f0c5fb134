"""The namespace an object named in a console URL belongs to, for the scope wall of limited operators.

Every path parameter of a console route is listed here: one naming an object says how to find
its namespace, the others (a person's id, a console account) say they name none. A parameter
missing from both is refused, so a new route cannot slip past the wall unnoticed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from memoryadmin.conversations.queries import session_namespace_id
from memoryadmin.governance.queries import erasure_namespace_id, privacy_link_namespace_id, restore_namespace_id
from memoryadmin.memories.queries import memory_namespace_id, tombstone_namespace_id
from memoryadmin.tenancy.queries import api_key_namespace_id, namespace_id_of
from memoryadmin.webhooks.queries import delivery_namespace_id, webhook_namespace_id

OWNERS: dict[str, Callable[[Any], int | None]] = {
    "slug": lambda slug: namespace_id_of(slug=slug),
    "namespace_id": lambda pk: namespace_id_of(namespace_id=pk),
    "memory_id": memory_namespace_id,
    "session_pk": session_namespace_id,
    "tombstone_id": tombstone_namespace_id,
    "key_id": api_key_namespace_id,
    "erasure_id": erasure_namespace_id,
    "restore_id": restore_namespace_id,
    "link_id": privacy_link_namespace_id,
    "webhook_id": webhook_namespace_id,
    "delivery_id": delivery_namespace_id,
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
