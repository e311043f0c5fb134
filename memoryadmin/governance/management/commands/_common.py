from __future__ import annotations

from django.core.management.base import CommandError

from memoryadmin.tenancy.models import Namespace


def namespace_named(slug: str) -> Namespace:
    namespace = Namespace.objects.filter(slug=slug).first()
    if namespace is None:
        raise CommandError(f"no namespace {slug!r}")
    return namespace
