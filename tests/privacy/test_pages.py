"""The person's own pages, opened with a signed link and nothing else."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import logging
import sys
from datetime import timedelta
from urllib.parse import urlparse

import pytest
from django.core import signing
from django.test import Client
from django.utils import timezone

from memoryadmin.audit.models import AuditEvent
from memoryadmin.core.fingerprints import subject_hmac
from memoryadmin.governance.models import ErasureRequest, PrivacyLink
from memoryadmin.governance.privacy_links import RIGHTS, privacy_link_create
from memoryadmin.memories.models import Memory, Tombstone
from tests.conftest import SYSTEM, ApiClient
from tests.governance.conftest import populate


@pytest.fixture
def browser() -> Client:
    return Client(enforce_csrf_checks=True)


def link_for(namespace, user_id="alice", ttl=3600) -> str:
    url, _ = privacy_link_create(namespace=namespace, user_id=user_id, ttl_seconds=ttl, actor=SYSTEM, grantable=RIGHTS)
    return urlparse(url).path


def csrf_post(client: Client, path: str, data: dict | None = None):
    # The confirmation page always holds a form, so it always sets the CSRF cookie.
    root = path.split("/memories/")[0].removesuffix("erase/").rstrip("/") + "/"
    client.get(root + "erase/")
    token = client.cookies["csrftoken"].value
    return client.post(path, {**(data or {}), "csrfmiddlewaretoken": token})


def test_the_api_hands_out_a_signed_expiring_link(api, namespace) -> None:
    response = api.post("/api/v1/subjects/alice/privacy-link", {"ttl_seconds": 600})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["url"].startswith("http://testserver/privacy/")
    expires = timezone.datetime.fromisoformat(body["expires_at"])
    assert timedelta(seconds=590) < expires - timezone.now() <= timedelta(seconds=600)
    assert AuditEvent.objects.filter(action="privacy_link.create").count() == 1


def test_the_link_is_on_the_public_address_when_one_is_set(api, namespace, settings) -> None:
    settings.PUBLIC_BASE_URL = "https://memory.example.com"
    response = api.post("/api/v1/subjects/alice/privacy-link", {"ttl_seconds": 600})
    assert response.status_code == 200, response.content
    assert response.json()["url"].startswith("https://memory.example.com/privacy/")


def test_the_link_defaults_to_a_day(api, namespace) -> None:
    body = api.post("/api/v1/subjects/alice/privacy-link").json()
    expires = timezone.datetime.fromisoformat(body["expires_at"])
    assert timedelta(hours=23, minutes=59) < expires - timezone.now() <= timedelta(hours=24)


def test_the_link_api_validates_its_input(api, namespace, make_key) -> None:
    assert api.post("/api/v1/subjects/bad%20id/privacy-link").status_code == 400
    assert api.post("/api/v1/subjects/alice/privacy-link", {"ttl_seconds": 5}).status_code == 422
    reader = ApiClient(make_key(namespace, "read")[1])
    assert reader.post("/api/v1/subjects/alice/privacy-link").status_code == 403


def test_it_shows_the_persons_memories_with_their_sources_and_nobody_elses(browser, namespace) -> None:
    populate(namespace, "alice")
    populate(namespace, "bob")
    page = browser.get(link_for(namespace))
    assert page.status_code == 200
    html = page.content.decode()
    assert "alice really likes topic 0" in html and "alice likes topic 1" in html
    assert "alice says thing 0.0" in html  # a source message
    assert "bob" not in html
    assert page["Cache-Control"] == "no-store"
    assert "<script" not in html


def test_the_list_of_memories_is_a_bounded_number_of_queries(browser, namespace, django_assert_max_num_queries):
    populate(namespace, "alice", sessions=6)
    path = link_for(namespace)
    with django_assert_max_num_queries(10):
        assert browser.get(path).status_code == 200


def test_it_downloads_the_persons_data(browser, namespace) -> None:
    populate(namespace, "alice")
    populate(namespace, "bob")
    response = browser.get(link_for(namespace) + "download/")
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment")
    body = b"".join(response.streaming_content)
    assert b'"user_id":"alice"' in body and b"bob" not in body


def test_forget_this_tombstones_one_memory(browser, namespace) -> None:
    person = populate(namespace, "alice")
    target = person.memories[-1]  # pinned by an operator: the person's wish wins
    path = link_for(namespace)
    # "Forget this" asks first, with the memory it is about, and forgets nothing yet.
    asked = csrf_post(browser, f"{path}memories/{target.pk}/forget/")
    assert asked.status_code == 200
    assert "Forget this memory?" in asked.content.decode() and target.text in asked.content.decode()
    assert Memory.objects.filter(pk=target.pk).exists()
    response = csrf_post(browser, f"{path}memories/{target.pk}/forget/", {"confirm": "yes"})
    assert response.status_code == 302 and response["Location"].endswith("?forgotten=1")
    assert not Memory.objects.filter(pk=target.pk).exists()
    stone = Tombstone.objects.get(namespace=namespace, user_id="alice", fingerprint=target.fingerprint)
    assert stone.reason == "forgotten" and stone.text == ""
    event = AuditEvent.objects.get(action="memory.forget", target_id=str(target.pk))
    assert event.actor_type == "subject"


def test_forget_this_cannot_reach_another_persons_memory(browser, namespace) -> None:
    bob = populate(namespace, "bob")
    path = link_for(namespace, "alice")
    csrf_post(browser, f"{path}memories/{bob.memories[0].pk}/forget/", {"confirm": "yes"})
    assert Memory.objects.filter(pk=bob.memories[0].pk).exists()


def test_forget_needs_a_post_with_csrf(browser, namespace) -> None:
    person = populate(namespace, "alice")
    path = link_for(namespace)
    assert browser.get(f"{path}memories/{person.memories[0].pk}/forget/").status_code == 405
    assert browser.post(f"{path}memories/{person.memories[0].pk}/forget/").status_code == 403
    assert Memory.objects.filter(pk=person.memories[0].pk).exists()


def test_erase_everything_needs_the_typed_confirmation(browser, namespace) -> None:
    populate(namespace, "alice")
    path = link_for(namespace) + "erase/"
    response = csrf_post(browser, path, {"confirm": "yes"})
    assert response.status_code == 400
    assert not ErasureRequest.objects.exists()


def test_erase_everything_then_shows_the_receipt(browser, namespace, eager_celery, django_capture_on_commit_callbacks):
    populate(namespace, "alice")
    populate(namespace, "bob")
    path = link_for(namespace)
    with django_capture_on_commit_callbacks(execute=True):
        response = csrf_post(browser, path + "erase/", {"confirm": "erase"})
    assert response.status_code == 302
    erasure = ErasureRequest.objects.get()
    assert erasure.subject_hash == subject_hmac(namespace.pk, "alice")
    receipt = browser.get(response["Location"])
    html = receipt.content.decode()
    assert receipt.status_code == 200 and "Erased" in html
    assert erasure.pk.hex[:8] in html.replace("-", "")
    assert ErasureRequest.objects.get().receipt["receipt_sha256"] in html
    download = path + f"erasures/{erasure.pk}/receipt.json"
    assert f'href="{download}"' in html
    kept = browser.get(download)
    assert kept.status_code == 200 and kept["Content-Disposition"].startswith("attachment")
    # As signed, with the receivers told of it (none here), which is outside the signed body.
    assert json.loads(kept.content) == {**ErasureRequest.objects.get().receipt, "downstream": []}
    assert not Memory.objects.filter(namespace=namespace, user_id="alice").exists()
    assert Memory.objects.filter(namespace=namespace, user_id="bob").exists()
    home = browser.get(path).content.decode()
    assert "We remember nothing about you" in home
    assert f'href="{download}"' in home, "the receipt stays at hand on the person's page"
    # Said in words a person reads, not the names of our tables; and no promise of an audit trail anyone can read.
    assert "Conversations" in html and "Things remembered about you" in html
    for internal in ("audit reasons", "vectors", "snapshot uploads", "working memory keys", "extraction"):
        assert internal not in html.lower(), internal
    assert "anyone can check" not in html


def test_a_receipt_of_someone_else_is_not_shown(browser, namespace) -> None:
    from memoryadmin.governance.erasure import erasure_request
    from tests.conftest import SYSTEM

    theirs = erasure_request(namespace=namespace, user_id="bob", actor=SYSTEM)
    assert browser.get(f"{link_for(namespace, 'alice')}erasures/{theirs.pk}/").status_code == 404
    assert browser.get(f"{link_for(namespace, 'alice')}erasures/{theirs.pk}/receipt.json").status_code == 404


def test_a_tampered_link_shows_a_clear_page_and_nothing_else(browser, namespace) -> None:
    populate(namespace, "alice")
    path = link_for(namespace)
    token = path.split("/")[2]
    # What a link used to be: a signed payload naming the person. No such token opens anything.
    old_style = signing.dumps({"n": namespace.pk, "u": "alice", "e": 4_000_000_000}, salt="memoryadmin.privacy-link")
    for bad in (token[:-2] + ("AA" if not token.endswith("AA") else "BB"), token[::-1], old_style, "x" * 43):
        response = browser.get(f"/privacy/{bad}/")
        assert response.status_code == 403
        html = response.content.decode()
        assert "This link is not valid" in html and "alice" not in html and "topic" not in html
        assert browser.get(f"/privacy/{bad}/download/").status_code == 403


def test_a_link_names_nothing_and_only_its_hash_is_kept(api, namespace) -> None:
    body = api.post("/api/v1/subjects/alice-0042/privacy-link").json()
    token = urlparse(body["url"]).path.split("/")[2]
    link = PrivacyLink.objects.get(pk=body["link_id"])
    readable = token
    for decode in (base64.urlsafe_b64decode, base64.b64decode):
        with contextlib.suppress(ValueError):
            readable += decode(token.split(":")[0] + "==").decode("latin-1")
    for named in ("alice", "0042", str(link.pk), link.pk.hex, f'"n":{namespace.pk}', namespace.slug):
        assert named not in readable, named
    stored = {f.attname: getattr(link, f.attname) for f in PrivacyLink._meta.concrete_fields}
    assert token not in repr(stored) and b"alice" not in bytes(link.subject_sealed)
    assert link.token_hash == hashlib.sha256(token.encode()).hexdigest()


def test_an_expired_link_shows_a_clear_page(browser, namespace) -> None:
    populate(namespace, "alice")
    path = link_for(namespace)
    PrivacyLink.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    response = browser.get(path)
    assert response.status_code == 410
    html = response.content.decode()
    assert "This link has expired" in html and "topic" not in html
    assert browser.get(path + "download/").status_code == 410


def test_a_link_naming_no_stored_link_is_refused(browser, namespace) -> None:
    populate(namespace, "alice")
    path = link_for(namespace)
    PrivacyLink.objects.all().delete()
    assert browser.get(path).status_code == 403


def test_a_malformed_cursor_is_400_and_no_log_line_carries_the_link(browser, namespace, caplog) -> None:
    populate(namespace, "alice")
    path = link_for(namespace)
    token = path.strip("/").split("/")[-1]
    with caplog.at_level(logging.INFO):
        response = browser.get(path + "?cursor=x")
        browser.get(path + "nowhere/")
    assert response.status_code == 400
    assert "This page does not exist" in response.content.decode()
    assert caplog.records, "Django logs a warning for a 4xx answer"
    for record in caplog.records:
        assert token not in record.getMessage()


def test_a_log_line_of_any_handler_never_carries_a_link() -> None:
    from memoryadmin.privacy.log_filters import RedactPrivacyLinks

    record = logging.LogRecord(
        "django.request",
        logging.ERROR,
        __file__,
        1,
        "Internal Server Error: %s",
        ("/privacy/abc.def:ghi/erase/",),
        None,
    )
    try:
        raise ValueError("while serving /privacy/abc.def:ghi/download/")
    except ValueError:
        record.exc_info = sys.exc_info()
    RedactPrivacyLinks().filter(record)
    line = logging.Formatter("%(message)s").format(record)
    assert "abc.def:ghi" not in line
    assert "/privacy/[link]/erase/" in line and "/privacy/[link]/download/" in line


@pytest.mark.parametrize(
    "spelling",
    ["/privacy/./{t}/", "/PRIVACY/{t}/", "/privacy//{t}/download/", "/privacy/%2e/{t}/", "/privacy/x/../{t}/erase/"],
)
def test_no_spelling_of_a_link_path_reaches_a_log(browser, namespace, caplog, spelling) -> None:
    token = link_for(namespace).strip("/").split("/")[-1]
    with caplog.at_level(logging.INFO):
        browser.get(spelling.format(t=token))
    assert caplog.records, "each of these paths answers 4xx, which Django logs"
    for record in caplog.records:
        assert token not in record.getMessage()
    assert any("/privacy/[link]/" in record.getMessage() for record in caplog.records)


def test_the_log_filter_redacts_the_normalised_path() -> None:
    from memoryadmin.privacy.log_filters import redact

    for spelt, logged in [
        ("GET /privacy/./abc/download/?cursor=x", "GET /privacy/[link]/download/?cursor=x"),
        ("Not Found: /PRIVACY/abc/", "Not Found: /privacy/[link]/"),
        ("/%70rivacy/abc/", "/privacy/[link]/"),
        ("/privacy/%252e/abc/", "/privacy/[link]/"),
        ("https://example.org/privacy/x/../abc/erase/ 302", "https://example.org/privacy/[link]/erase/ 302"),
        ("/privacy/abc/%0Aforged%20line", "/privacy/[link]/%0Aforged%20line"),
    ]:
        assert redact(spelt) == logged, spelt
    untouched = "GET /api/v1/privacy-links/5b0c?reason=x 204 and /static/app.css"
    assert redact(untouched) == untouched
