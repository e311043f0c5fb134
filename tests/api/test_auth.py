"""The key lookup every API request starts with."""

from __future__ import annotations

from memoryadmin.tenancy.models import Namespace, hash_api_key
from memoryadmin.tenancy.queries import api_key_live
from memoryadmin.tenancy.services import api_key_revoke
from tests.conftest import SYSTEM, ApiClient


def test_it_loads_the_key_with_its_namespace_in_one_query(make_namespace, make_key, django_assert_num_queries) -> None:
    namespace = make_namespace("loaded", extraction_strategy="discrete")
    # A JSON column: read back as data, not as its text.
    Namespace.objects.filter(pk=namespace.pk).update(extraction_config={"max_memories": 3})
    key, raw = make_key(namespace, scopes="read,write")
    with django_assert_num_queries(1):
        found = api_key_live(hash_api_key(raw))
        assert (found.pk, found.prefix, sorted(found.scopes)) == (key.pk, key.prefix, ["read", "write"])
        assert found.namespace == namespace
        assert found.namespace.extraction_config == {"max_memories": 3}
        assert found.namespace.extraction_strategy == "discrete"


def test_a_key_revoked_after_use_is_refused_on_the_very_next_request(namespace, make_key) -> None:
    key, raw = make_key(namespace)
    client = ApiClient(raw)
    assert client.get("/api/v1/sessions").status_code == 200
    api_key_revoke(key=key, actor=SYSTEM)
    assert client.get("/api/v1/sessions").status_code == 401
    assert api_key_live(hash_api_key(raw)) is None
