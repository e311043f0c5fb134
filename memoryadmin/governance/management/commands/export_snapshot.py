from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoryadmin.core.errors import ServiceError
from memoryadmin.governance.management.commands._common import namespace_named
from memoryadmin.governance.snapshots import snapshot_export_lines


class Command(BaseCommand):
    help = "Write a namespace's snapshot (or one person's) as JSON Lines to a file or standard output."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("namespace", help="namespace slug")
        parser.add_argument("--user-id", help="export only this person")
        parser.add_argument("--output", "-o", default="-", help="file to write (default: standard output)")

    def handle(self, *args: Any, **options: Any) -> None:
        namespace = namespace_named(options["namespace"])
        target = options["output"]
        out = sys.stdout.buffer if target == "-" else open(target, "wb")  # noqa: SIM115 - closed below
        records = 0
        try:
            for line in snapshot_export_lines(namespace=namespace, user_id=options["user_id"]):
                out.write(line)
                records += 1
        except ServiceError as exc:
            raise CommandError(exc.message) from None
        finally:
            if out is not sys.stdout.buffer:
                out.close()
        if target != "-":
            self.stderr.write(f"wrote {records - 2} records to {target}")
