from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoryadmin.audit.services import Actor
from memoryadmin.core.errors import ServiceError
from memoryadmin.tenancy.services import namespace_create


class Command(BaseCommand):
    help = "Create a namespace (one app or agent family; the tenant boundary)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--name", default="")
        parser.add_argument("--review-required", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            namespace = namespace_create(
                slug=options["slug"],
                name=options["name"],
                review_required=options["review_required"],
                actor=Actor.system("manage.py"),
            )
        except ServiceError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(f"Created namespace {namespace.slug}")
