from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoryadmin.audit.services import Actor
from memoryadmin.core.errors import ServiceError
from memoryadmin.tenancy.models import Namespace
from memoryadmin.tenancy.services import api_key_create


class Command(BaseCommand):
    help = "Create an API key for a namespace. The key is printed once, alone on the last line."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--name", default="key")
        parser.add_argument("--scopes", default="read,write", help="comma-separated: read,write,erase")

    def handle(self, *args: Any, **options: Any) -> None:
        namespace = Namespace.objects.filter(slug=options["slug"]).first()
        if namespace is None:
            raise CommandError(f"no namespace {options['slug']!r}; create it with create_namespace")
        try:
            key, raw = api_key_create(
                namespace=namespace,
                name=options["name"],
                scopes=options["scopes"].split(","),
                actor=Actor.system("manage.py"),
            )
        except ServiceError as exc:
            raise CommandError(exc.message) from None
        self.stderr.write(f"API key {key.prefix} for {namespace.slug}, scopes {','.join(key.scopes)}. Shown once:")
        self.stdout.write(raw)
