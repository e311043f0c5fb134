"""Signed-in pages are never stored by the browser (its back button shows them as they are now)."""

from __future__ import annotations

from django.test import Client


def test_a_signed_in_page_is_not_stored(viewer_client, make_memory) -> None:
    memory = make_memory()
    response = viewer_client.get(f"/memories/{memory.pk}/")
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]


def test_a_signed_out_page_is_left_alone(db) -> None:
    assert not Client().get("/no-such-page/").has_header("Cache-Control")
