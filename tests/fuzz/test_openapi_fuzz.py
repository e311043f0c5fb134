"""Schemathesis against the live server's /api/v1/openapi.json with a valid key: every operation.

Requests are generated from the schema, valid ones and deliberately invalid
ones (wrong types, missing fields, NUL bytes, odd Unicode, huge numbers);
some are aimed at real objects so handlers get past the lookup. Every
response must be no 5xx, documented by status and content type, and match
its schema. The default suite runs a few examples per operation; the slow
suite runs at least 200.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode

from memoryadmin.api.api import api
from memoryadmin.conversations.models import Session
from memoryadmin.governance.models import ErasureRequest, PrivacyLink
from memoryadmin.memories.models import Tombstone
from tests.fuzz.conftest import CHECKS, Seeds

QUICK_EXAMPLES = 8
THOROUGH_EXAMPLES = 200
FUZZ_SETTINGS = {
    "deadline": None,
    "database": None,
    "suppress_health_check": list(HealthCheck),
}


def registered_operations() -> dict[tuple[str, str], str]:
    """{(METHOD, path): tag} of every operation the API serves, read from the app itself."""
    paths = api.get_openapi_schema()["paths"]
    return {
        (method.upper(), path): (op.get("tags") or ["untagged"])[0]
        for path, ops in paths.items()
        for method, op in ops.items()
    }


OPERATIONS = sorted(registered_operations())
OPERATION_IDS = [f"{method} {path}" for method, path in OPERATIONS]
TAGS = sorted(set(registered_operations().values()))


def aim(case, seeds: Seeds, data) -> None:
    """Swap some generated ids for ones that exist, so the handler behind the lookup is fuzzed too."""
    params = case.path_parameters or {}
    for name in list(params):
        if not data.draw(st.booleans(), label=f"real {name}"):
            continue
        if name == "memory_id":
            params[name] = seeds.memory_id()
        elif name == "session_id":
            if not Session.objects.filter(namespace=seeds.namespace, session_id=seeds.session_id).exists():
                seeds.ensure_session()
            params[name] = seeds.session_id
        elif name == "user_id":
            params[name] = seeds.user_id
        elif name == "erasure_id":
            erasure = ErasureRequest.objects.filter(namespace=seeds.namespace).first()
            if erasure is not None:
                params[name] = str(erasure.pk)
        elif name == "tombstone_id":
            tombstone = Tombstone.objects.filter(namespace=seeds.namespace).first()
            if tombstone is not None:
                params[name] = tombstone.pk
        elif name == "link_id":
            link = PrivacyLink.objects.filter(namespace=seeds.namespace).first()
            if link is not None:
                params[name] = str(link.pk)


def fuzz(api_schema, method: str, path: str, seeds: Seeds, key: str, examples: int) -> None:
    operation = api_schema[path][method]
    # Valid requests and deliberately invalid ones (wrong types, missing or extra fields).
    cases = st.one_of(
        operation.as_strategy(generation_mode=GenerationMode.POSITIVE),
        operation.as_strategy(generation_mode=GenerationMode.NEGATIVE),
    )

    @given(case=cases, data=st.data())
    @settings(max_examples=examples, **FUZZ_SETTINGS)
    def run(case, data) -> None:
        aim(case, seeds, data)
        case.call_and_validate(headers={"Authorization": f"Bearer {key}"}, checks=CHECKS, timeout=60)

    run()


def fuzz_tag(api_schema, tag: str, seeds: Seeds, key: str, examples: int) -> None:
    """Every operation of one resource; each runs even when an earlier one fails, and all failures are reported."""
    failures = []
    for (method, path), op_tag in sorted(registered_operations().items()):
        if op_tag != tag:
            continue
        try:
            fuzz(api_schema, method, path, seeds, key, examples)
        except Exception as exc:
            failures.append(f"{method} {path}:\n{exc}")
    assert not failures, "\n\n".join(failures)


@pytest.mark.parametrize("tag", TAGS)
def test_every_operation_answers_generated_requests_within_its_contract(api_schema, tag, seeds, fuzz_key) -> None:
    # One test per resource keeps the live server's set-up and teardown off each operation.
    fuzz_tag(api_schema, tag, seeds, fuzz_key, QUICK_EXAMPLES)


@pytest.mark.slow
@pytest.mark.parametrize(("method", "path"), OPERATIONS, ids=OPERATION_IDS)
def test_every_operation_answers_hundreds_of_generated_requests_within_its_contract(
    api_schema, method, path, seeds, fuzz_key
) -> None:
    fuzz(api_schema, method, path, seeds, fuzz_key, THOROUGH_EXAMPLES)


NARROW_EXAMPLES = 25


@pytest.mark.slow
@pytest.mark.parametrize("scopes", ["read", "read,write"])
@pytest.mark.parametrize("tag", TAGS)
def test_a_key_with_fewer_scopes_meets_the_contract_on_every_operation(
    api_schema, tag, scopes, seeds, namespace, make_key
) -> None:
    """A read key and a read+write key: refusals are documented 403s, never a 5xx or a body off its schema."""
    fuzz_tag(api_schema, tag, seeds, make_key(namespace, scopes)[1], NARROW_EXAMPLES)
