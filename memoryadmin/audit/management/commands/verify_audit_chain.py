from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from memoryadmin.audit.services import verify_audit_chain


class Command(BaseCommand):
    help = "Verify the audit trail's hash chains; report the first broken link."

    def handle(self, *args: Any, **options: Any) -> None:
        report = verify_audit_chain()
        if not report.ok:
            raise CommandError(
                f"audit chain broken at event {report.broken_at}: {report.problem} "
                f"({report.checked} events verified before it)"
            )
        self.stdout.write(f"audit chain intact: {report.checked} events verified")
