"""Console accounts: roles, deactivation and namespace limits, each change audited."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from memoryadmin.audit.models import AuditEvent
from memoryadmin.audit.services import Actor
from memoryadmin.core.errors import Conflict, InvalidInput
from memoryadmin.tenancy.models import OperatorNamespace
from memoryadmin.tenancy.roles import rights_of_user, role_of
from memoryadmin.tenancy.services import (
    operator_create,
    operator_deactivate,
    operator_namespaces_set,
    operator_reactivate,
    operator_role_set,
)
from tests.conftest import PASSWORD, SYSTEM


def make(username: str, role: str, *namespaces) -> User:
    return operator_create(username=username, role=role, password=PASSWORD, actor=SYSTEM, namespaces=namespaces)


def last_event(action: str) -> AuditEvent:
    return AuditEvent.objects.filter(action=action).latest("id")


def test_it_creates_an_operator_limited_to_namespaces(namespace, other_namespace) -> None:
    olivia = make("olivia", "operator", namespace)
    assert rights_of_user(olivia) == ("operator", frozenset({namespace.pk}))
    assert last_event("operator.create").data == {"role": "operator", "namespaces": ["alpha"]}


def test_an_operator_without_limits_sees_every_namespace(namespace) -> None:
    assert rights_of_user(make("olivia", "operator")) == ("operator", None)


def test_it_refuses_to_limit_an_admin(namespace) -> None:
    with pytest.raises(InvalidInput):
        make("alice", "admin", namespace)
    root = make("root", "admin")
    with pytest.raises(InvalidInput):
        operator_namespaces_set(user=root, namespaces=[namespace], actor=SYSTEM)


def test_it_changes_limits_and_records_before_and_after(namespace, other_namespace) -> None:
    olivia = make("olivia", "operator", namespace)
    operator_namespaces_set(user=olivia, namespaces=[other_namespace], actor=Actor.operator("root"))
    assert rights_of_user(olivia) == ("operator", frozenset({other_namespace.pk}))
    event = last_event("operator.namespaces")
    assert (event.actor, event.target_id, event.data) == ("root", "olivia", {"from": ["alpha"], "to": ["bravo"]})
    operator_namespaces_set(user=olivia, namespaces=[], actor=SYSTEM)
    assert rights_of_user(olivia) == ("operator", None)


def test_setting_the_same_limits_again_writes_nothing(namespace) -> None:
    olivia = make("olivia", "operator", namespace)
    before = AuditEvent.objects.count()
    operator_namespaces_set(user=olivia, namespaces=[namespace], actor=SYSTEM)
    assert AuditEvent.objects.count() == before


def test_it_changes_a_role_and_an_admin_loses_their_limits(namespace) -> None:
    make("root", "admin")
    olivia = make("olivia", "operator", namespace)
    operator_role_set(user=olivia, role="viewer", actor=SYSTEM)
    assert role_of(User.objects.get(username="olivia")) == "viewer"
    operator_role_set(user=olivia, role="admin", actor=SYSTEM)
    olivia = User.objects.get(username="olivia")
    assert role_of(olivia) == "admin" and olivia.is_staff
    assert not OperatorNamespace.objects.filter(user=olivia).exists()
    assert last_event("operator.role").data == {"from": "viewer", "to": "admin", "limits_removed": ["alpha"]}


def test_the_last_admin_cannot_be_demoted_or_deactivated(db) -> None:
    root = make("root", "admin")
    with pytest.raises(Conflict) as caught:
        operator_role_set(user=root, role="operator", actor=Actor.operator("root"))
    assert caught.value.code == "last_admin"
    with pytest.raises(Conflict):
        operator_deactivate(user=root, actor=SYSTEM)
    assert role_of(User.objects.get(username="root")) == "admin"
    assert User.objects.get(username="root").is_active


def test_an_admin_can_step_down_when_another_remains(db) -> None:
    root = make("root", "admin")
    make("alice", "admin")
    operator_role_set(user=root, role="operator", actor=Actor.operator("root"))
    assert role_of(User.objects.get(username="root")) == "operator"


def test_an_inactive_admin_does_not_count_as_the_remaining_one(db) -> None:
    root = make("root", "admin")
    alice = make("alice", "admin")
    operator_deactivate(user=alice, actor=Actor.operator("root"))
    with pytest.raises(Conflict):
        operator_role_set(user=root, role="viewer", actor=SYSTEM)


def test_nobody_deactivates_themselves(db) -> None:
    make("root", "admin")
    alice = make("alice", "admin")
    with pytest.raises(Conflict) as caught:
        operator_deactivate(user=alice, actor=Actor.operator("alice"))
    assert caught.value.code == "self"


def test_it_deactivates_and_reactivates_with_an_audit_event_each(db) -> None:
    olivia = make("olivia", "operator")
    operator_deactivate(user=olivia, actor=Actor.operator("root"), reason="left the team")
    assert not User.objects.get(username="olivia").is_active
    assert last_event("operator.deactivate").reason == "left the team"
    operator_reactivate(user=olivia, actor=Actor.operator("root"))
    assert User.objects.get(username="olivia").is_active
    assert last_event("operator.reactivate").target_id == "olivia"


def test_a_superuser_keeps_the_admin_role(db) -> None:
    su = User.objects.create_superuser("su", password=PASSWORD)
    with pytest.raises(Conflict):
        operator_role_set(user=su, role="viewer", actor=SYSTEM)
