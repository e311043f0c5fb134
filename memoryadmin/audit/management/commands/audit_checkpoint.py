from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from memoryadmin.audit.checkpoints import checkpoint_make, checkpoint_write


class Command(BaseCommand):
    help = (
        "Write a signed checkpoint of every audit chain's head into DIR (AUDIT_CHECKPOINT_DIR by default), "
        "or print it when neither is given. Keep checkpoints where the database cannot rewrite them."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dir", default=settings.AUDIT_CHECKPOINT_DIR)

    def handle(self, *args: Any, **options: Any) -> None:
        if options["dir"]:
            self.stdout.write(str(checkpoint_write(options["dir"])))
        else:
            self.stdout.write(json.dumps(checkpoint_make(), indent=1, sort_keys=True))
