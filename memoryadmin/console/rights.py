"""The signed-in operator's rights, read once per request: what the access checks and the error pages share."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest

from memoryadmin.tenancy.roles import ROLES, rights_of_user


@dataclass(frozen=True)
class Rights:
    """The signed-in operator's role, for views and templates (`request.can.operator`), and the
    namespaces they are limited to (None: every namespace)."""

    role: str | None
    namespace_ids: frozenset[int] | None = None

    @property
    def limited(self) -> bool:
        return self.namespace_ids is not None

    def sees(self, namespace_id: int | None) -> bool:
        return self.namespace_ids is None or namespace_id in self.namespace_ids

    def at_least(self, role: str) -> bool:
        return self.role is not None and ROLES.index(self.role) >= ROLES.index(role)

    @property
    def viewer(self) -> bool:
        return self.at_least("viewer")

    @property
    def operator(self) -> bool:
        return self.at_least("operator")

    @property
    def admin(self) -> bool:
        return self.at_least("admin")


def rights_of(request: HttpRequest) -> Rights:
    # One query per request (groups and namespace limits), however many checks the page makes.
    rights = getattr(request, "can", None)
    if rights is None:
        rights = Rights(*rights_of_user(request.user))
        request.can = rights  # type: ignore[attr-defined]
    return rights
