"""The scope wall and the scopes, for every operation the NinjaAPI has registered.

The routes come from the API object itself, so a new operation is in the
matrix the moment it exists; it fails here until CALLS says how to call it.
For every operation that names an object (a path id, a user_id in the query
or body, memory ids in the body), a key of namespace B gets exactly what a
missing object gets in namespace A, and namespace A is left untouched.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import pytest

from memoryadmin.api.api import api
from memoryadmin.governance.erasure import erasure_execute
from memoryadmin.governance.models import ErasureRequest
from memoryadmin.tenancy.models import SCOPES
from tests.conftest import ApiClient
from tests.security.conftest import World, holdings

GHOSTS = {
    "memory_id": "00000000-0000-4000-8000-000000000000",
    "session_id": "no-such-session",
    "user_id": "nobody",
    "erasure_id": "00000000-0000-4000-8000-000000000001",
    "tombstone_id": "999999999",
    "link_id": "00000000-0000-4000-8000-000000000002",
    "webhook_id": "00000000-0000-4000-8000-000000000003",
    "delivery_id": "999999999",
}


@dataclass(frozen=True)
class Route:
    method: str
    path: str  # with {name} placeholders
    name: str  # the view function's name
    scope: str | None  # None: open to anyone

    @property
    def label(self) -> str:
        return f"{self.method} {self.path}"

    @property
    def path_ids(self) -> list[str]:
        return re.findall(r"{(\w+)}", self.path)


def registered_routes() -> list[Route]:
    routes = []
    for router in api._get_bound_routers():
        for path, path_view in router.path_operations.items():
            for operation in path_view.operations:
                scopes = [getattr(auth, "scope", "?") for auth in operation.auth_callbacks]
                clean = re.sub(r"{\w+:(\w+)}", r"{\1}", path)
                for method in operation.methods:
                    routes.append(
                        Route(method, "/api/v1" + clean, operation.view_func.__name__, scopes[0] if scopes else None)
                    )
    return sorted(routes, key=lambda r: r.label)


ROUTES = registered_routes()
ROUTE_IDS = [r.label for r in ROUTES]

# How to call each operation so that validation passes and the wall is what decides:
# (query string, body). "{memory_id}" and "{user_id}" are filled like path ids.
# Operations whose query or body names an object list those names in NAMED.
CALLS: dict[str, tuple[str, Any]] = {
    "health": ("", None),
    "session_put": ("", {"user_id": "alice"}),
    "session_read": ("", None),
    "session_remove": ("?memories=delete&force=true", None),
    "session_list": ("?user_id={user_id}", None),
    "messages_append": ("", {"messages": [{"role": "user", "content": "I live in Oslo"}]}),
    "messages_list": ("", None),
    "messages_remove_run": ("?run_id=r1", None),
    "state_read": ("", None),
    "state_replace": ("", {"state": {"mood": "bored"}}),
    "state_merge": ("", {"state": {"mood": None}}),
    "state_remove": ("", None),
    "context_read": ("?query=tea", None),
    "memory_add": ("", {"text": "Alice likes green tea", "user_id": "{user_id}"}),
    "memory_list": ("?user_id={user_id}&status=any", None),
    "memory_search": ("", {"query": "tea", "user_id": "{user_id}", "status": "any"}),
    "memory_bulk": ("", {"action": "forget", "ids": ["{memory_id}"]}),
    "memory_read": ("", None),
    "memory_edit": ("", {"text": "Alice likes black tea", "metadata": {"x": 1}}),
    "memory_remove": ("?force=true", None),
    "memory_revision_list": ("", None),
    "memory_evidence_list": ("", None),
    "memory_pin_add": ("", {"reason": "important"}),
    "memory_pin_remove": ("", None),
    "memory_approve_one": ("", {}),
    "memory_reject_one": ("", {}),
    "extraction_start": ("", None),
    "extraction_runs": ("", None),
    "forget": ("", {"policy": {"max_age_days": 0}, "user_id": "{user_id}", "dry_run": False}),
    "snapshot_export": ("?user_id={user_id}", None),
    "subject_export": ("", None),
    "snapshot_restore_view": ("?dry_run=false", None),
    "subject_erase": ("", None),
    "erasure_get": ("", None),
    "privacy_link": ("", None),
    "tombstone_list": ("?user_id={user_id}", None),
    "privacy_link_list": ("", None),
    "privacy_link_list_mine": ("", None),
    "privacy_link_remove": ("?reason=sent+to+the+wrong+address", None),
    "tombstone_lift_one": ("?reason=asked+by+support", None),
    "webhook_list": ("", None),
    "webhook_add": ("", {"url": "https://93.184.215.14/in", "events": ["memory.created"]}),
    "webhook_detail": ("", None),
    "webhook_change": ("", {"status": "paused"}),
    "webhook_remove": ("", None),
    "webhook_new_secret": ("", None),
    "webhook_test": ("", None),
    "webhook_deliveries": ("", None),
    "webhook_redeliver": ("", None),
}
NAMED = {
    "session_list",
    "memory_add",
    "memory_list",
    "memory_search",
    "memory_bulk",
    "forget",
    "snapshot_export",
    "tombstone_list",
}
ALL_SCOPES = ",".join(SCOPES)


def fill(template: Any, ids: dict[str, str]) -> Any:
    if isinstance(template, str):
        for name, value in ids.items():
            template = template.replace("{" + name + "}", value)
        return template
    if isinstance(template, dict):
        return {k: fill(v, ids) for k, v in template.items()}
    if isinstance(template, list):
        return [fill(v, ids) for v in template]
    return template


def call(client: ApiClient, route: Route, ids: dict[str, str]):
    query, body = CALLS[route.name]
    url = fill(route.path, ids) + fill(query, ids)
    method = route.method.lower()
    if route.name == "snapshot_restore_view":
        response = client.post(url, data=b"", content_type="application/x-ndjson")
    elif body is None:
        response = getattr(client, method)(url)
    else:
        response = getattr(client, method)(url, fill(body, ids))
    if response.streaming:
        # Read to the end, as a server would (the test client closes it then): an export holds
        # its transaction until its last line.
        response.streamed = b"".join(response.streaming_content)
    return response


def answer(response) -> tuple[Any, ...]:
    """What a client learns from a response, minus what differs between any two calls (ids, times)."""
    kind = response.get("Content-Type", "")
    if response.status_code == 204:
        return (204,)
    if "ndjson" in kind:
        records = [line for line in response.streamed.splitlines() if line.strip()]
        return (response.status_code, "records", len(records) - 2)
    body = response.json() if not response.streaming else json.loads(response.streamed)
    if "error" in body:
        return (response.status_code, body["error"]["code"])
    if "items" in body:
        return (response.status_code, "items", len(body["items"]))
    if "failed" in body:
        return (response.status_code, sorted(f["error"]["code"] for f in body["failed"]), len(body["done"]))
    if "deleted" in body and "selected" in body:
        return (response.status_code, "forgot", body["deleted"], len(body["selected"]))
    return (response.status_code, "object", sorted(body))


def test_every_operation_is_in_the_matrix() -> None:
    missing = sorted({r.name for r in ROUTES} - set(CALLS))
    assert not missing, f"teach tests/security/test_api_matrix.py CALLS how to call: {missing}"
    unknown_ids = sorted({i for r in ROUTES for i in r.path_ids} - set(GHOSTS))
    assert not unknown_ids, f"teach the matrix a missing value of these path ids: {unknown_ids}"


def names_an_object(route: Route) -> bool:
    return bool(route.path_ids) or route.name in NAMED


WALLED = [r for r in ROUTES if names_an_object(r)]


@pytest.mark.parametrize("route", WALLED, ids=[r.label for r in WALLED])
def test_a_key_of_another_namespace_gets_what_a_missing_object_gets(route: Route, world: World, make_key) -> None:
    outsider = ApiClient(make_key(world.b, ALL_SCOPES)[1])
    insider = ApiClient(make_key(world.a, ALL_SCOPES)[1])
    before = holdings(world.a)

    theirs = call(outsider, route, world.ids())
    their_answer = answer(theirs)
    # Whatever the outsider started (an erasure) runs to the end before A is compared.
    for erasure in ErasureRequest.objects.filter(namespace=world.b):
        erasure_execute(erasure_id=erasure.pk)
    assert holdings(world.a) == before, f"{route.label} by namespace B changed namespace A"

    missing = answer(call(insider, route, GHOSTS))
    assert their_answer == missing
    assert theirs.status_code < 500


# Refusals first: a refused call must change nothing the allowed ones then meet.
KEY_SCOPES = ["none", *SCOPES, "read,write,erase", ALL_SCOPES]


@pytest.mark.parametrize("route", ROUTES, ids=ROUTE_IDS)
def test_each_key_gets_what_its_scopes_allow(route: Route, world: World, make_key) -> None:
    refused = sorted(KEY_SCOPES, key=lambda scopes: route.scope is not None and route.scope in scopes.split(","))
    for scopes in refused:
        client = ApiClient(None if scopes == "none" else make_key(world.a, scopes)[1])
        response = call(client, route, world.ids())
        got = (scopes, response.status_code)
        if route.scope is None:
            assert response.status_code not in (401, 403), got
        elif scopes == "none":
            assert got == (scopes, 401)
            assert response.json()["error"]["code"] == "unauthorized"
        elif route.scope not in scopes.split(","):
            assert got == (scopes, 403)
            assert response.json()["error"]["code"] == "forbidden"
        else:
            assert response.status_code not in (401, 403), got
        assert response.status_code < 500, got


def test_a_privacy_link_of_another_namespace_shows_nothing_of_this_one(world: World, make_key) -> None:
    outsider = ApiClient(make_key(world.b)[1])
    url = outsider.post("/api/v1/subjects/alice/privacy-link").json()["url"]
    page = ApiClient(None).get(url.split("testserver", 1)[-1])
    assert page.status_code == 200
    assert b"green tea" not in page.content
    assert b"Lyon" not in page.content
