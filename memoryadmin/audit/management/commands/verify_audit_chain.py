from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoryadmin.audit.checkpoints import CheckpointInvalid, anchors_in
from memoryadmin.audit.services import verify_audit_chain


class Command(BaseCommand):
    help = (
        "Verify the audit trail's hash chains and report every break. Checkpoints and erasure receipts "
        "(files, or directories of *.json files; AUDIT_CHECKPOINT_DIR by default) must still be in the chain."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("anchors", nargs="*", help="checkpoint or receipt files, or directories of them")

    def handle(self, *args: Any, **options: Any) -> None:
        paths = options["anchors"] or ([settings.AUDIT_CHECKPOINT_DIR] if settings.AUDIT_CHECKPOINT_DIR else [])
        try:
            anchors = anchors_in(*paths)
        except CheckpointInvalid as exc:
            raise CommandError(str(exc)) from None
        report = verify_audit_chain(anchors=anchors)
        against = f", {report.anchors_checked} anchors checked" if anchors else ", no checkpoints given"
        if not report.ok:
            for brk in report.breaks:
                self.stderr.write(f"event {brk.event_id} (chain {brk.namespace_id or '-'}): {brk.problem}")
            raise CommandError(
                f"audit chain broken at event {report.broken_at}: {report.broken} problem(s) "
                f"in {report.checked} events{against}"
            )
        self.stdout.write(f"audit chain intact: {report.checked} events verified{against}")
