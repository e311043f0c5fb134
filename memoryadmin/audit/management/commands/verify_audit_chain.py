from __future__ import annotations

from typing import Any

from django.apps import apps
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
        # Every namespace's chain begins with its creation: one emptied shows even without checkpoints.
        founded = apps.get_model("tenancy", "Namespace").objects.values_list("pk", flat=True)
        report = verify_audit_chain(anchors=anchors, founded=founded)
        against = f", {report.anchors_checked} anchors checked" if anchors else ", no checkpoints given"
        if not report.ok:
            for brk in report.breaks:
                where = f"event {brk.event_id}" if brk.event_id else "chain"
                self.stderr.write(f"{where} (chain {brk.namespace_id or '-'}): {brk.problem}")
            raise CommandError(
                f"audit chain broken at {f'event {report.broken_at}' if report.broken_at else 'a chain'}: "
                f"{report.broken} problem(s) "
                f"in {report.checked} events{against}"
            )
        self.stdout.write(f"audit chain intact: {report.checked} events verified{against}")
