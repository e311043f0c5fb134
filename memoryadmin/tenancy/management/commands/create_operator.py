from __future__ import annotations

import getpass
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoryadmin.audit.services import Actor
from memoryadmin.core.errors import ServiceError
from memoryadmin.tenancy.models import Namespace
from memoryadmin.tenancy.roles import ROLES
from memoryadmin.tenancy.services import operator_create


class Command(BaseCommand):
    help = "Create a console operator with a role: viewer, operator or admin."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--role", required=True, help="|".join(ROLES))
        parser.add_argument("--password", default=None)
        parser.add_argument(
            "--namespaces", default="", help="comma-separated slugs an operator or viewer is limited to (default: all)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["role"] not in ROLES:
            raise CommandError(f"unknown role {options['role']!r}; roles are {', '.join(ROLES)}")
        slugs = [slug.strip() for slug in options["namespaces"].split(",") if slug.strip()]
        namespaces = list(Namespace.objects.filter(slug__in=slugs))
        missing = sorted(set(slugs) - {ns.slug for ns in namespaces})
        if missing:
            raise CommandError(f"no such namespace: {', '.join(missing)}")
        password = options["password"]
        if password is None:
            password = getpass.getpass("Password: ")
        try:
            user = operator_create(
                username=options["username"],
                role=options["role"],
                password=password,
                namespaces=namespaces,
                actor=Actor.system("manage.py"),
            )
        except ServiceError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(f"Created {options['role']} {user.username}")
