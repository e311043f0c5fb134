"""Forgetting by policy through the API: the Redis Agent Memory Server cases, and what a run leaves behind."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.db import DataError
from django.utils import timezone

from memoryadmin.audit.models import AuditEvent
from memoryadmin.governance.models import ForgettingRun
from memoryadmin.memories.models import Memory, MemoryRevision, Tombstone, TombstoneReason
from memoryadmin.memories.services import memory_create, memory_pin
from tests.conftest import SYSTEM

AMS_POLICY = {"max_age_days": 30, "max_inactive_days": 30, "hard_age_multiplier": 12.0}


def remember(namespace, text, *, age_days, idle_days=None, user_id="alice", memory_type="semantic", session_id=""):
    now = timezone.now()
    memory = memory_create(
        namespace=namespace,
        user_id=user_id,
        text=text,
        actor=SYSTEM,
        memory_type=memory_type,
        session_id=session_id,
        created_at=now - timedelta(days=age_days),
    ).memory
    if idle_days is not None:
        Memory.objects.filter(pk=memory.pk).update(last_accessed_at=now - timedelta(days=idle_days))
    return memory


def forget(api, policy, **body):
    response = api.post("/api/v1/memories/forget", {"policy": policy, **body})
    assert response.status_code == 200, response.content
    content = b"".join(response.streaming_content) if response.streaming else response.content
    return json.loads(content)


def selected_ids(answer):
    return {item["id"]: item["reason"] for item in answer["selected"]}


def test_a_60_day_old_memory_used_yesterday_is_kept(api, namespace) -> None:
    memory = remember(namespace, "User likes tea", age_days=60, idle_days=1)
    answer = forget(api, AMS_POLICY)
    assert str(memory.pk) not in selected_ids(answer)
    assert answer["scanned"] == 1


def test_a_60_day_old_memory_idle_for_45_days_is_forgotten(api, namespace) -> None:
    memory = remember(namespace, "User likes tea", age_days=60, idle_days=45)
    assert selected_ids(forget(api, AMS_POLICY)) == {str(memory.pk): "inactive_and_age"}


def test_a_400_day_old_memory_used_5_days_ago_is_forgotten_by_the_hard_age_rule(api, namespace) -> None:
    memory = remember(namespace, "User likes tea", age_days=400, idle_days=5)
    assert selected_ids(forget(api, AMS_POLICY)) == {str(memory.pk): "hard_age"}


def test_a_5_day_old_memory_is_kept(api, namespace) -> None:
    remember(namespace, "User likes tea", age_days=5)
    answer = forget(api, AMS_POLICY)
    assert answer["selected"] == [] and answer["scanned"] == 1


def test_a_budget_of_2_over_five_ages_keeps_the_two_freshest(api, namespace) -> None:
    ages = [1, 10, 20, 40, 80]
    memories = {age: remember(namespace, f"Fact number {age}", age_days=age) for age in ages}
    answer = forget(api, {"budget": 2})
    assert selected_ids(answer) == {str(memories[age].pk): "budget" for age in (20, 40, 80)}


def test_a_time_in_the_future_held_from_an_older_release_does_not_break_a_budget_run(api, namespace) -> None:
    # Every path refuses such a time now; a row restored before that may still hold one.
    ages = [1, 10, 20]
    memories = {age: remember(namespace, f"Fact number {age}", age_days=age) for age in ages}
    odd = remember(namespace, "Fact from nowhere", age_days=0)
    Memory.objects.filter(pk=odd.pk).update(created_at=datetime(9999, 12, 30, tzinfo=UTC), last_accessed_at=None)
    answer = forget(api, {"budget": 2})
    # Counted as new (age 0), it is among the two freshest.
    assert answer["scanned"] == 4
    assert selected_ids(answer) == {str(memories[age].pk): "budget" for age in (10, 20)}
    forget(api, {"budget": 2}, dry_run=False)
    assert set(Memory.objects.filter(namespace=namespace).values_list("pk", flat=True)) == {memories[1].pk, odd.pk}


def test_pinned_memories_are_never_selected(api, namespace) -> None:
    old = remember(namespace, "User likes tea", age_days=400, idle_days=400)
    memory_pin(memory=old, actor=SYSTEM)
    fresh = remember(namespace, "User likes coffee", age_days=1)
    answer = forget(api, {**AMS_POLICY, "budget": 0})
    assert selected_ids(answer) == {str(fresh.pk): "budget"}
    forget(api, {**AMS_POLICY, "budget": 0}, dry_run=False)
    assert Memory.objects.filter(pk=old.pk).exists()


def test_only_max_age_or_only_max_inactive_is_enough_on_its_own(api, namespace) -> None:
    old_but_used = remember(namespace, "Old but used", age_days=50, idle_days=1)
    young_but_idle = remember(namespace, "Young but idle", age_days=20, idle_days=20)
    assert selected_ids(forget(api, {"max_age_days": 30})) == {str(old_but_used.pk): "age"}
    idle_only = selected_ids(forget(api, {"max_inactive_days": 10}))
    assert idle_only == {str(young_but_idle.pk): "inactive"}


def test_types_outside_the_allow_list_are_never_selected(api, namespace) -> None:
    episodic = remember(namespace, "Went to Paris", age_days=100, memory_type="episodic")
    remember(namespace, "Likes tea", age_days=100, memory_type="preference")
    answer = forget(api, {"max_age_days": 30, "memory_type_allowlist": ["episodic"]})
    assert selected_ids(answer) == {str(episodic.pk): "age"}


def test_it_scopes_to_a_user_or_a_session(api, namespace) -> None:
    mine = remember(namespace, "Mine", age_days=100, user_id="alice", session_id="s1")
    remember(namespace, "Theirs", age_days=100, user_id="bob", session_id="s2")
    assert selected_ids(forget(api, {"max_age_days": 30}, user_id="alice")) == {str(mine.pk): "age"}
    assert selected_ids(forget(api, {"max_age_days": 30}, session_id="s1")) == {str(mine.pk): "age"}


def test_a_dry_run_changes_nothing(api, namespace) -> None:
    remember(namespace, "User likes tea", age_days=100)
    forget(api, {"max_age_days": 30})
    assert Memory.objects.filter(namespace=namespace).count() == 1
    assert not Tombstone.objects.exists()


def test_a_real_run_deletes_leaves_policy_tombstones_and_one_audit_event(api, namespace) -> None:
    old = [remember(namespace, f"Old fact {i}", age_days=100 + i) for i in range(3)]
    kept = remember(namespace, "New fact", age_days=1)
    answer = forget(api, {"max_age_days": 30}, dry_run=False)
    assert answer["dry_run"] is False
    assert answer["deleted"] == 3
    assert {item["id"] for item in answer["selected"]} == {str(m.pk) for m in old}
    assert list(Memory.objects.filter(namespace=namespace).values_list("pk", flat=True)) == [kept.pk]
    assert not MemoryRevision.objects.filter(memory_id__in=[m.pk for m in old]).exists()
    stones = Tombstone.objects.filter(namespace=namespace)
    assert stones.count() == 3
    assert set(stones.values_list("reason", flat=True)) == {TombstoneReason.POLICY}
    assert set(stones.values_list("text", flat=True)) == {""}
    events = AuditEvent.objects.filter(action="forgetting.run")
    assert events.count() == 1
    assert events.get().data["deleted"] == 3 and events.get().data["reasons"] == {"age": 3}
    run = ForgettingRun.objects.get()
    assert (run.scanned, run.selected, run.deleted, run.trigger) == (4, 3, 3, "api")


def test_forgotten_text_does_not_come_back(api, namespace) -> None:
    remember(namespace, "User likes tea", age_days=100)
    forget(api, {"max_age_days": 30}, dry_run=False)
    response = api.post("/api/v1/memories", {"text": "user likes tea!", "user_id": "alice"})
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "tombstoned"


def test_it_deletes_in_batches(api, namespace, monkeypatch) -> None:
    from memoryadmin.memories import forgetting

    monkeypatch.setattr(forgetting, "DELETE_BATCH", 2)
    for i in range(5):
        remember(namespace, f"Old fact {i}", age_days=100)
    answer = forget(api, {"max_age_days": 30}, dry_run=False)
    assert answer["deleted"] == 5
    assert not Memory.objects.filter(namespace=namespace).exists()


def test_it_checks_namespace(api, other_api, namespace) -> None:
    remember(namespace, "User likes tea", age_days=100)
    answer = forget(other_api, {"max_age_days": 30}, dry_run=False)
    assert answer == {"dry_run": False, "scanned": 0, "selected": [], "deleted": 0, "run_id": answer["run_id"]}
    assert Memory.objects.filter(namespace=namespace).count() == 1


def test_it_requires_write_scope(namespace, make_key) -> None:
    from tests.conftest import ApiClient

    reader = ApiClient(make_key(namespace, "read")[1])
    response = reader.post("/api/v1/memories/forget", {"policy": {"max_age_days": 1}})
    assert response.status_code == 403


def test_it_requires_a_key(anon_api) -> None:
    assert anon_api.post("/api/v1/memories/forget", {"policy": {}}).status_code == 401


@pytest.mark.parametrize(
    "body",
    [
        {"policy": {"max_age_days": -1}},
        {"policy": {"budget": 1.5}},
        {"policy": {"memory_type_allowlist": ["feelings"]}},
        {"policy": {"hard_age_multiplier": 0}},
        {"policy": "all"},
        {"policy": {"max_age": 30}},
        {},
    ],
)
def test_bad_policies_are_422(api, body) -> None:
    response = api.post("/api/v1/memories/forget", body)
    assert response.status_code == 422
    assert response.json()["error"]["code"] == "validation_error"


def test_a_bad_user_id_is_400(api) -> None:
    response = api.post("/api/v1/memories/forget", {"policy": {"max_age_days": 1}, "user_id": "bad id"})
    assert response.status_code == 400


def test_beat_runs_each_due_policy_once(namespace, other_namespace, eager_celery) -> None:
    from memoryadmin.governance.forgetting import forgetting_policy_save, policy_clean
    from memoryadmin.governance.models import ForgettingPolicy
    from memoryadmin.governance.tasks import run_due_forgetting_policies

    remember(namespace, "Old fact", age_days=100)
    kept = remember(other_namespace, "Old fact elsewhere", age_days=100)
    forgetting_policy_save(namespace=namespace, actor=SYSTEM, enabled=True, policy=policy_clean(max_age_days=30))
    forgetting_policy_save(namespace=other_namespace, actor=SYSTEM, enabled=False, policy=policy_clean(max_age_days=30))
    assert run_due_forgetting_policies() == [namespace.pk]
    assert not Memory.objects.filter(namespace=namespace).exists()
    assert Memory.objects.filter(pk=kept.pk).exists()
    assert run_due_forgetting_policies() == []
    ForgettingPolicy.objects.filter(namespace=namespace).update(last_run_at=timezone.now() - timedelta(hours=25))
    assert run_due_forgetting_policies() == [namespace.pk]
    assert ForgettingRun.objects.filter(namespace=namespace, trigger="schedule").count() == 2


def test_an_enabled_policy_needs_a_rule(namespace) -> None:
    from memoryadmin.core.errors import InvalidInput
    from memoryadmin.governance.forgetting import forgetting_policy_save, policy_clean

    with pytest.raises(InvalidInput):
        forgetting_policy_save(namespace=namespace, actor=SYSTEM, enabled=True, policy=policy_clean())


def test_a_queued_run_is_recorded_pending_and_runs_once(namespace, django_capture_on_commit_callbacks) -> None:
    from memoryadmin.governance.forgetting import forgetting_queued_run, forgetting_run_queue, policy_clean

    remember(namespace, "An old fact", age_days=90)
    policy = policy_clean(max_age_days=30)
    with django_capture_on_commit_callbacks():  # the worker is played by the calls below
        run = forgetting_run_queue(namespace=namespace, policy=policy, actor=SYSTEM)
    assert ForgettingRun.objects.get().status == "pending"

    done = forgetting_queued_run(run_id=str(run.pk), policy=policy, actor=SYSTEM)
    assert done is not None and done.pk == run.pk and done.status == "succeeded" and done.deleted == 1
    # Delivered a second time, the task finds the run taken and leaves it.
    assert forgetting_queued_run(run_id=str(run.pk), policy=policy, actor=SYSTEM) is None
    assert ForgettingRun.objects.count() == 1
    assert AuditEvent.objects.filter(action="forgetting.run").count() == 1


def test_a_queued_run_that_fails_is_marked_failed_and_forgets_nothing(
    namespace, django_capture_on_commit_callbacks
) -> None:
    from memoryadmin.governance.forgetting import Policy, forgetting_queued_run, forgetting_run_queue

    memory = remember(namespace, "An old fact", age_days=90)
    broken = Policy(max_age_days="thirty")  # type: ignore[arg-type]  # what no cleaned policy can be
    with django_capture_on_commit_callbacks():
        run = forgetting_run_queue(namespace=namespace, policy=Policy(max_age_days=30), actor=SYSTEM)
    with pytest.raises(DataError):  # refused by the database, inside the run's transaction
        forgetting_queued_run(run_id=str(run.pk), policy=broken, actor=SYSTEM)
    run.refresh_from_db()
    assert run.status == "failed" and run.error and run.finished_at is not None
    assert Memory.objects.filter(pk=memory.pk).exists()


def test_a_run_whose_worker_was_lost_is_taken_over_later(namespace, django_capture_on_commit_callbacks) -> None:
    from memoryadmin.governance.forgetting import forgetting_queued_run, forgetting_run_queue, policy_clean

    remember(namespace, "An old fact", age_days=90)
    policy = policy_clean(max_age_days=30)
    with django_capture_on_commit_callbacks():
        run = forgetting_run_queue(namespace=namespace, policy=policy, actor=SYSTEM)
    ForgettingRun.objects.filter(pk=run.pk).update(status="running", started_at=timezone.now() - timedelta(minutes=5))
    # Running in a worker a few minutes ago: a second delivery leaves it to that worker.
    assert forgetting_queued_run(run_id=str(run.pk), policy=policy, actor=SYSTEM) is None

    ForgettingRun.objects.filter(pk=run.pk).update(started_at=timezone.now() - timedelta(hours=2))
    done = forgetting_queued_run(run_id=str(run.pk), policy=policy, actor=SYSTEM)
    assert done is not None and done.status == "succeeded" and done.deleted == 1
