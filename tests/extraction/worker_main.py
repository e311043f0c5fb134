"""A Celery worker in its own process, for tests that kill it: python -m tests.extraction.worker_main NAME.

The environment names the test database and broker; TEST_VISIBILITY_TIMEOUT makes the broker
hand an unacknowledged task to the next worker after that many seconds instead of an hour.
"""

from __future__ import annotations

import os
import sys

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memoryadmin.settings")
django.setup()

from memoryadmin.celery import app  # noqa: E402 - Django must be set up first


def main() -> None:
    app.conf.broker_transport_options = {
        "visibility_timeout": float(os.environ["TEST_VISIBILITY_TIMEOUT"]),
        # Look for abandoned tasks every second rather than every 100.
        "unacked_restore_interval": 1,
        "unacked_restore_throttle": 1,
    }
    app.worker_main(
        [
            "worker",
            "--pool=solo",
            "--concurrency=1",
            "--loglevel=INFO",
            "--without-heartbeat",
            "--without-mingle",
            "--without-gossip",
            f"--hostname={sys.argv[1]}@%h",
        ]
    )


if __name__ == "__main__":
    main()
