from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoryadmin.audit.services import Actor
from memoryadmin.core.errors import ServiceError
from memoryadmin.governance.management.commands._common import namespace_named
from memoryadmin.governance.snapshots import snapshot_restore


class Command(BaseCommand):
    help = (
        "Restore a JSON Lines snapshot into its namespace. Validates the whole file first, then applies it in one "
        "transaction; a tombstone or a later erasure always wins. Prints the counts as JSON."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("namespace", help="namespace slug (must match the snapshot's)")
        parser.add_argument("file", help="the snapshot file")
        parser.add_argument("--dry-run", action="store_true", help="report what would change, change nothing")
        parser.add_argument("--reason", default="restore_snapshot command")

    def handle(self, *args: Any, **options: Any) -> None:
        namespace = namespace_named(options["namespace"])
        try:
            with open(options["file"], "rb") as source:
                result = snapshot_restore(
                    namespace=namespace,
                    source=source,
                    actor=Actor.system("restore_snapshot"),
                    dry_run=options["dry_run"],
                    reason=options["reason"],
                )
        except OSError as exc:
            raise CommandError(f"cannot read {options['file']}: {exc}") from None
        except ServiceError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(
            json.dumps(
                {
                    "dry_run": result.dry_run,
                    "records": result.records,
                    "counts": result.counts,
                    "by_type": result.by_type,
                },
                indent=2,
            )
        )
