from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from memoryadmin.audit.services import Actor
from memoryadmin.core.errors import ServiceError
from memoryadmin.governance.erasure import erasure_execute, erasure_receipt, erasure_request
from memoryadmin.governance.management.commands._common import namespace_named


class Command(BaseCommand):
    help = "Erase everything about one person in a namespace, now, and print the receipt as JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("namespace", help="namespace slug")
        parser.add_argument("user_id", help="the person's user_id")
        parser.add_argument("--reason", default="", help="recorded in the audit trail")
        parser.add_argument("--operator", default="", help="who asked (recorded as the actor)")

    def handle(self, *args: Any, **options: Any) -> None:
        namespace = namespace_named(options["namespace"])
        actor = Actor.operator(options["operator"]) if options["operator"] else Actor.system("erase_subject")
        try:
            # No worker needed: the command does the work itself once the request is committed.
            with transaction.atomic():
                erasure = erasure_request(
                    namespace=namespace,
                    user_id=options["user_id"],
                    actor=actor,
                    reason=options["reason"],
                    enqueue=False,
                )
        except ServiceError as exc:
            raise CommandError(exc.message) from None
        erasure = erasure_execute(erasure_id=erasure.pk)
        if erasure.status != "completed":
            raise CommandError(f"erasure {erasure.pk} {erasure.status}: {erasure.error}")
        self.stdout.write(json.dumps(erasure_receipt(erasure), indent=2))
