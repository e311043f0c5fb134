"""A data subject's privacy link shows that person's data and nobody else's, and acts on nothing else."""

from __future__ import annotations

from django.core import signing
from django.test import Client
from django.urls import reverse

from memoryadmin.governance.erasure import erasure_execute, erasure_request
from memoryadmin.governance.models import ErasureRequest
from memoryadmin.governance.privacy_links import SALT, privacy_link_create
from memoryadmin.memories.models import Memory
from tests.conftest import SYSTEM
from tests.security.conftest import World


def link(world_ns, user_id: str) -> str:
    url, _ = privacy_link_create(namespace=world_ns, user_id=user_id, ttl_seconds=600)
    return url


def token_of(url: str) -> str:
    return url.rstrip("/").rsplit("/", 1)[-1]


def test_a_link_shows_its_person_and_nobody_else(world: World) -> None:
    page = Client().get(link(world.a, "alice"))
    assert page.status_code == 200
    assert b"Alice likes green tea" in page.content
    assert b"Bob plays chess" not in page.content


def test_the_download_holds_only_its_person(world: World) -> None:
    token = token_of(link(world.a, "bob"))
    response = Client().get(reverse("privacy:download", args=[token]))
    body = b"".join(response.streaming_content)
    assert b"Bob plays chess" in body
    assert b"alice" not in body.lower()


def test_a_link_cannot_forget_another_persons_memory(world: World) -> None:
    token = token_of(link(world.a, "alice"))
    Client().post(reverse("privacy:forget", args=[token, world.bob_memory.pk]))
    assert Memory.objects.filter(pk=world.bob_memory.pk).exists()


def test_a_link_cannot_read_another_persons_erasure_receipt(world: World) -> None:
    token = token_of(link(world.a, "alice"))
    response = Client().get(reverse("privacy:receipt", args=[token, world.erasure.pk]))
    assert response.status_code == 404
    assert b"carol" not in response.content


def test_a_link_of_the_same_name_in_another_namespace_shows_nothing_here(world: World) -> None:
    page = Client().get(link(world.b, "alice"))
    assert page.status_code == 200
    assert b"green tea" not in page.content


def test_erasing_through_a_link_erases_only_its_person(world: World) -> None:
    token = token_of(link(world.a, "bob"))
    Client().post(reverse("privacy:erase", args=[token]), {"confirm": "erase"})
    for erasure in ErasureRequest.objects.filter(namespace=world.a, status="pending").exclude(pk=world.erasure.pk):
        erasure_execute(erasure_id=erasure.pk)
    assert not Memory.objects.filter(user_id="bob").exists()
    assert Memory.objects.filter(pk=world.alice_memory.pk).exists()


def test_a_tampered_link_shows_nothing(world: World) -> None:
    token = token_of(link(world.a, "alice"))
    payload = signing.loads(token, salt=SALT)
    forged = signing.dumps({**payload, "u": "bob"}, salt=SALT, key="not-the-secret-key")
    for bad in (forged, token[:-2] + ("AA" if not token.endswith("AA") else "BB")):
        response = Client().get(reverse("privacy:home", args=[bad]))
        assert response.status_code == 403
        assert b"Bob plays chess" not in response.content
        assert b"green tea" not in response.content


def test_a_link_signed_for_another_purpose_is_refused(world: World) -> None:
    other_purpose = signing.dumps({"n": world.a.pk, "u": "bob", "e": 4102444800})
    assert Client().get(reverse("privacy:home", args=[other_purpose])).status_code == 403


def test_an_erasure_request_is_found_only_by_its_person(world: World) -> None:
    mine = erasure_request(namespace=world.a, user_id="alice", actor=SYSTEM, enqueue=False)
    bob_token = token_of(link(world.a, "bob"))
    assert Client().get(reverse("privacy:receipt", args=[bob_token, mine.pk])).status_code == 404
