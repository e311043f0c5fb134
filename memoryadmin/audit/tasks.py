from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from memoryadmin.audit.checkpoints import checkpoint_write

logger = logging.getLogger(__name__)


@shared_task(ignore_result=True)
def write_audit_checkpoint() -> str | None:
    if not settings.AUDIT_CHECKPOINT_DIR:
        return None
    path = checkpoint_write(settings.AUDIT_CHECKPOINT_DIR)
    logger.info("audit checkpoint written: %s", path)
    return str(path)
