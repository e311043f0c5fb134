"""Services queue their own app's tasks by name: every name they use is a registered task."""

from __future__ import annotations

import pytest

from memoryadmin.core.queueing import queued
from memoryadmin.extraction.services.scheduling import EXTRACT_SESSION_TASK
from memoryadmin.governance.erasure import ERASURE_TASK
from memoryadmin.governance.forgetting import FORGETTING_RUN_TASK
from memoryadmin.governance.restore_jobs import SNAPSHOT_RESTORE_TASK
from memoryadmin.memories.services.embedding import EMBED_MEMORIES_TASK
from memoryadmin.webhooks.delivery import DELIVER_ENDPOINT_TASK


@pytest.mark.parametrize(
    "name",
    [
        ERASURE_TASK,
        EXTRACT_SESSION_TASK,
        FORGETTING_RUN_TASK,
        SNAPSHOT_RESTORE_TASK,
        EMBED_MEMORIES_TASK,
        DELIVER_ENDPOINT_TASK,
    ],
)
def test_each_task_a_service_queues_by_name_is_registered_under_it(name: str) -> None:
    assert queued(name).name == name


def test_an_unknown_name_fails_at_once() -> None:
    with pytest.raises(ModuleNotFoundError):
        queued("memoryadmin.nowhere.tasks.nothing")
