from __future__ import annotations

from tests.governance.conftest import eager_celery

__all__ = ["eager_celery"]
