"""A data subject's privacy link shows that person's data and nobody else's, and acts on nothing else."""

from __future__ import annotations

import re
from urllib.parse import urlparse

import pytest
from django.contrib.auth.models import Group
from django.core import signing
from django.test import Client
from django.urls import reverse

from memoryadmin.audit.models import AuditEvent
from memoryadmin.governance.erasure import erasure_execute, erasure_request
from memoryadmin.governance.models import ErasureRequest, PrivacyLink
from memoryadmin.governance.privacy_links import RIGHTS, privacy_link_create
from memoryadmin.memories.models import Memory
from memoryadmin.tenancy.services import api_key_revoke
from tests.conftest import SYSTEM, ApiClient, operator_user, signed_in
from tests.security.conftest import World


def link(world_ns, user_id: str) -> str:
    url, _ = privacy_link_create(namespace=world_ns, user_id=user_id, ttl_seconds=600, actor=SYSTEM, grantable=RIGHTS)
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
    Client().post(reverse("privacy:forget", args=[token, world.bob_memory.pk]), {"confirm": "yes"})
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
    # The signed payloads links once were, naming bob: whatever the key, they name no link.
    forged = signing.dumps({"n": world.a.pk, "u": "bob", "e": 4102444800}, salt="memoryadmin.privacy-link")
    for bad in (
        forged,
        signing.dumps({"n": world.a.pk, "u": "bob"}),
        token[:-2] + ("AA" if not token.endswith("AA") else "BB"),
    ):
        response = Client().get(reverse("privacy:home", args=[bad]))
        assert response.status_code == 403
        assert b"Bob plays chess" not in response.content
        assert b"green tea" not in response.content


def test_a_link_whose_sealed_person_was_swapped_is_refused(world: World) -> None:
    """The row's sealed user id is checked against its HMAC: changing it in the database opens nothing."""
    url, made = privacy_link_create(namespace=world.a, user_id="alice", actor=SYSTEM, grantable=RIGHTS)
    sealed = bytes(made.subject_sealed)
    swapped = bytes(a ^ b ^ c for a, b, c in zip(sealed, b"alice", b"bob\0\0", strict=True))
    PrivacyLink.objects.filter(pk=made.pk).update(subject_sealed=swapped)
    response = Client().get(urlparse(url).path)
    assert response.status_code == 403 and b"Bob plays chess" not in response.content


def test_an_erasure_request_is_found_only_by_its_person(world: World) -> None:
    mine = erasure_request(namespace=world.a, user_id="alice", actor=SYSTEM, enqueue=False)
    bob_token = token_of(link(world.a, "bob"))
    assert Client().get(reverse("privacy:receipt", args=[bob_token, mine.pk])).status_code == 404


# --- what a link may do is bounded by who made it ---------------------------------------------------


def api_link(client: ApiClient, user_id: str = "alice", **body: object) -> dict:
    response = client.post(f"/api/v1/subjects/{user_id}/privacy-link", body or None)
    assert response.status_code == 200, response.content
    return response.json()


def path_of(url: str) -> str:
    return urlparse(url).path


def test_a_link_from_a_key_without_erase_cannot_erase(world: World, make_key) -> None:
    made = api_link(ApiClient(make_key(world.a, "read,write")[1]))
    assert made["rights"] == ["read", "forget"]
    home = path_of(made["url"])
    page = Client().get(home)
    assert page.status_code == 200 and b"Alice likes green tea" in page.content
    assert b"/erase/" not in page.content
    assert Client().get(home + "erase/").status_code == 403
    assert Client().post(home + "erase/", {"confirm": "erase"}).status_code == 403
    assert not ErasureRequest.objects.filter(namespace=world.a).exclude(pk=world.erasure.pk).exists()
    assert Memory.objects.filter(pk=world.alice_memory.pk).exists()


def test_a_link_from_a_key_without_read_shows_and_downloads_nothing(world: World, make_key) -> None:
    made = api_link(ApiClient(make_key(world.a, "write")[1]))
    assert made["rights"] == ["forget"]
    home = path_of(made["url"])
    page = Client().get(home)
    assert page.status_code == 200
    assert b"green tea" not in page.content and b"Lyon" not in page.content
    download = Client().get(home + "download/")
    assert download.status_code == 403 and b"green tea" not in download.content


def test_a_key_cannot_grant_a_right_it_lacks(world: World, make_key) -> None:
    client = ApiClient(make_key(world.a, "read,write")[1])
    refused = client.post("/api/v1/subjects/alice/privacy-link", {"rights": ["read", "erase"]})
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "forbidden")
    assert api_link(client, rights=["read"])["rights"] == ["read"]
    full = api_link(ApiClient(make_key(world.a, "read,write,erase")[1]))
    assert full["rights"] == ["read", "forget", "erase"]


def test_an_operators_link_cannot_erase_and_an_admins_can(world: World, operators) -> None:
    for role, rights in (("operator", ["read", "forget"]), ("admin", ["read", "forget", "erase"])):
        response = signed_in(operators[role]).post(f"/subjects/{world.a.pk}/alice/privacy-link/")
        assert response.status_code == 200
        assert PrivacyLink.objects.order_by("-created_at").first().rights == rights, role


def test_every_use_of_a_link_is_audited(world: World, make_key) -> None:
    made = api_link(ApiClient(make_key(world.a, "read,write,erase")[1]))
    home = path_of(made["url"])
    Client().get(home)
    b"".join(Client().get(home + "download/").streaming_content)
    Client().post(home + f"memories/{world.candidate.pk}/forget/", {"confirm": "yes"})
    uses = AuditEvent.objects.filter(action="privacy_link.use", target_id=made["link_id"]).order_by("id")
    assert [e.data["page"] for e in uses] == ["home", "download", "forget"]
    assert all(e.actor == f"privacy-link:{made['link_id']}" for e in uses)
    forgot = AuditEvent.objects.get(action="memory.forget", target_id=str(world.candidate.pk))
    assert (forgot.actor_type, forgot.actor) == ("subject", f"privacy-link:{made['link_id']}")
    assert PrivacyLink.objects.get(pk=made["link_id"]).last_used_at is not None


def test_links_are_listed_per_person_and_revoked_one_by_one(world: World, make_key) -> None:
    client = ApiClient(make_key(world.a, "read,write")[1])
    first, second = api_link(client), api_link(client)
    api_link(client, user_id="bob")
    listed = client.get("/api/v1/subjects/alice/privacy-links").json()["items"]
    assert [item["link_id"] for item in listed][:2] == [second["link_id"], first["link_id"]]
    assert {item["status"] for item in listed} == {"active"}
    assert client.delete(f"/api/v1/privacy-links/{first['link_id']}?reason=sent+twice").status_code == 204
    withdrawn = Client().get(path_of(first["url"]))
    assert withdrawn.status_code == 410 and b"withdrawn" in withdrawn.content
    assert Client().get(path_of(second["url"])).status_code == 200
    statuses = {i["link_id"]: i["status"] for i in client.get("/api/v1/subjects/alice/privacy-links").json()["items"]}
    assert (statuses[first["link_id"]], statuses[second["link_id"]]) == ("revoked", "active")
    assert AuditEvent.objects.filter(action="privacy_link.revoke", target_id=first["link_id"]).exists()


def test_an_operator_revokes_one_link_in_the_console(world: World, operators) -> None:
    operator = signed_in(operators["operator"])
    operator.post(f"/subjects/{world.a.pk}/alice/privacy-link/")
    mine = PrivacyLink.objects.order_by("-created_at").first()
    page = operator.get(f"/subjects/{world.a.pk}/alice/").content.decode()
    assert f"/privacy-links/{mine.pk}/revoke/" in page
    response = operator.post(
        f"/subjects/{world.a.pk}/alice/privacy-links/{mine.pk}/revoke/", headers={"HX-Request": "true"}
    )
    assert response.status_code == 200 and "Revoked" in response.content.decode()
    mine.refresh_from_db()
    world.privacy_link.refresh_from_db()
    assert mine.revoked_at is not None and world.privacy_link.revoked_at is None
    # A link is revoked only through the person it is for.
    other = operator.post(f"/subjects/{world.a.pk}/bob/privacy-links/{world.privacy_link.pk}/revoke/")
    assert other.status_code == 404


# --- every privacy page x every set of rights ----------------------------------------------------------

# (page, method, the rights of which it needs one; none: any link)
PAGES = [
    ("home", "GET", ()),
    ("download", "GET", ("read",)),
    ("forget", "POST", ("forget",)),
    ("erase", "GET", ("erase",)),
    ("erase", "POST", ("erase",)),
    ("receipt", "GET", ("read", "erase")),
    ("receipt_download", "GET", ("read", "erase")),
]
RIGHT_SETS = [(r,) for r in RIGHTS] + [("read", "forget"), ("forget", "erase"), RIGHTS]


@pytest.mark.parametrize("rights", RIGHT_SETS, ids=["+".join(r) for r in RIGHT_SETS])
def test_each_privacy_page_needs_the_right_it_uses(world: World, rights: tuple[str, ...]) -> None:
    url, link = privacy_link_create(namespace=world.a, user_id="alice", actor=SYSTEM, grantable=RIGHTS, rights=rights)
    home = urlparse(url).path
    mine = erasure_request(namespace=world.a, user_id="alice", actor=SYSTEM, enqueue=False)
    paths = {
        "home": home,
        "download": home + "download/",
        "forget": home + f"memories/{world.candidate.pk}/forget/",
        "erase": home + "erase/",
        "receipt": home + f"erasures/{mine.pk}/",
        "receipt_download": home + f"erasures/{mine.pk}/receipt.json",
    }
    for page, method, needs in PAGES:
        client = Client()
        # "Forget this" confirmed; the erasure not ("no" is not the word it asks for).
        answer = {"confirm": "yes" if page == "forget" else "no"}
        response = client.get(paths[page]) if method == "GET" else client.post(paths[page], answer)
        allowed = not needs or any(right in rights for right in needs)
        assert (response.status_code != 403) == allowed, (page, method, rights, response.status_code)
        assert response.status_code < 500
    # What a refused page did not do: the memory is still there unless the link may forget.
    assert Memory.objects.filter(pk=world.candidate.pk).exists() == ("forget" not in rights)
    uses = set(
        AuditEvent.objects.filter(action="privacy_link.use", target_id=str(link.pk)).values_list(
            "data__page", flat=True
        )
    )
    assert uses == {page for page, _, needs in PAGES if not needs or set(needs) & set(rights)}


# --- a link follows its maker's rights -------------------------------------------------------------


def console_link(client: Client, world: World, user_id: str = "alice") -> str:
    """The path of a link made on the person's console page (shown once, in the answer)."""
    response = client.post(f"/subjects/{world.a.pk}/{user_id}/privacy-link/")
    assert response.status_code == 200
    found = re.search(r"/privacy/([^/\"<\s]+)/", response.content.decode())
    assert found, "the new link is shown"
    return found.group(0)


def test_a_link_stops_opening_once_the_key_that_made_it_is_revoked(
    world: World, make_key, operators, django_capture_on_commit_callbacks
) -> None:
    key, raw = make_key(world.a, "read,write,erase")
    client = ApiClient(raw)
    made = api_link(client)
    home = path_of(made["url"])
    assert Client().get(home).status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        revoked = signed_in(operators["admin"]).post(
            reverse("console:api_key_revoke", args=[world.a.slug, key.pk]), {"reason": "leaked"}
        )
    assert revoked.status_code == 302
    assert client.get("/api/v1/subjects/alice/privacy-links").status_code == 401
    for page in ("", "download/", "erase/"):
        response = Client().get(home + page)
        assert response.status_code == 410, page
        assert b"green tea" not in response.content
    Client().post(home + "erase/", {"confirm": "erase"})
    assert not ErasureRequest.objects.filter(namespace=world.a).exclude(pk=world.erasure.pk).exists()
    event = AuditEvent.objects.get(action="privacy_link.revoke", target_id=made["link_id"])
    assert event.actor == "adam" and key.prefix in event.reason
    assert PrivacyLink.objects.get(pk=made["link_id"]).revoked_at is not None


def test_a_link_follows_its_key_however_the_key_was_revoked(world: World, make_key) -> None:
    key, raw = make_key(world.a, "read,write,erase")
    home = path_of(api_link(ApiClient(raw))["url"])
    api_key_revoke(key=key, actor=SYSTEM)
    assert Client().get(home).status_code == 410


def test_an_admins_link_loses_erase_when_demoted_and_ends_when_made_viewer(world: World, operators) -> None:
    ada = operator_user("ada", "admin")
    home = console_link(signed_in(ada), world)
    assert Client().get(home + "erase/").status_code == 200
    adam = signed_in(operators["admin"])
    assert adam.post(reverse("console:person_role", args=["ada"]), {"role": "operator"}).status_code == 302
    page = Client().get(home)
    assert page.status_code == 200 and b"Alice likes green tea" in page.content
    assert b"/erase/" not in page.content
    assert Client().get(home + "erase/").status_code == 403
    assert Client().post(home + "erase/", {"confirm": "erase"}).status_code == 403
    narrowed = AuditEvent.objects.get(action="privacy_link.narrow")
    assert narrowed.data == {"from": ["read", "forget", "erase"], "to": ["read", "forget"]}
    assert adam.post(reverse("console:person_role", args=["ada"]), {"role": "viewer"}).status_code == 302
    assert Client().get(home).status_code == 410
    assert AuditEvent.objects.filter(action="privacy_link.revoke", actor="adam").count() == 1
    # Made admin again, ada's old link stays ended: rights once taken are not handed back.
    adam.post(reverse("console:person_role", args=["ada"]), {"role": "admin"})
    assert Client().get(home).status_code == 410


def test_an_operators_link_follows_their_role_however_it_changed(world: World, operators) -> None:
    home = console_link(signed_in(operators["operator"]), world)
    operators["operator"].groups.set([Group.objects.get(name="viewer")])
    assert Client().get(home).status_code == 410


def test_a_deactivated_operators_links_end_for_good(world: World, operators) -> None:
    otto = operators["operator"]
    home = console_link(signed_in(otto), world)
    adam = signed_in(operators["admin"])
    adam.post(reverse("console:person_deactivate", args=["otto"]), {"reason": "left"})
    assert Client().get(home).status_code == 410
    assert AuditEvent.objects.filter(action="privacy_link.revoke", actor="adam").count() == 1
    adam.post(reverse("console:person_reactivate", args=["otto"]))
    assert Client().get(home).status_code == 410


def test_an_operator_limited_elsewhere_no_longer_opens_links_here(world: World, operators) -> None:
    home = console_link(signed_in(operators["operator"]), world)
    adam = signed_in(operators["admin"])
    adam.post(reverse("console:person_namespaces", args=["otto"]), {"namespaces": [world.b.slug]})
    assert Client().get(home).status_code == 410


def test_a_key_lists_the_links_it_made_and_nothing_else(world: World, make_key) -> None:
    client = ApiClient(make_key(world.a, "read,write")[1])
    other = ApiClient(make_key(world.a, "read,write")[1])
    first, second = api_link(client), api_link(client, user_id="bob")
    theirs = api_link(other)
    page = client.get("/api/v1/privacy-links?limit=1").json()
    assert [item["link_id"] for item in page["items"]] == [second["link_id"]]
    rest = client.get(f"/api/v1/privacy-links?cursor={page['next_cursor']}").json()
    assert [item["link_id"] for item in rest["items"]] == [first["link_id"]] and rest["next_cursor"] is None
    assert theirs["link_id"] not in str(rest) + str(page)
    assert [i["link_id"] for i in other.get("/api/v1/privacy-links").json()["items"]] == [theirs["link_id"]]
    assert ApiClient(make_key(world.a, "read")[1]).get("/api/v1/privacy-links").status_code == 403


def test_the_console_lists_the_links_of_a_key_and_of_an_account(world: World, make_key, operators) -> None:
    key, raw = make_key(world.a, "read,write")
    by_key = api_link(ApiClient(raw))
    console_link(signed_in(operators["operator"]), world)
    by_otto = PrivacyLink.objects.get(made_by_user=operators["operator"])
    adam = signed_in(operators["admin"])
    key_page = adam.get(reverse("console:api_key", args=[world.a.slug, key.pk])).content.decode()
    assert f'id="pl-{by_key["link_id"]}"' in key_page and f'id="pl-{by_otto.pk}"' not in key_page
    person_page = adam.get(reverse("console:person", args=["otto"])).content.decode()
    assert f'id="pl-{by_otto.pk}"' in person_page and f'id="pl-{by_key["link_id"]}"' not in person_page
    adam.post(reverse("console:api_key_revoke", args=[world.a.slug, key.pk]))
    key_page = adam.get(reverse("console:api_key", args=[world.a.slug, key.pk])).content.decode()
    assert "revoked" in key_page.split(f'id="pl-{by_key["link_id"]}"')[1].split("</tr>")[0]
