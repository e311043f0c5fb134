"""The API docs page: Swagger UI from our own static files, under the console's Content-Security-Policy."""

from __future__ import annotations

import re

from django.test import Client

from tests.security.test_headers import assert_hardened


def test_the_docs_page_loads_its_scripts_and_styles_from_our_static_files(db) -> None:
    response = Client().get("/api/v1/docs")
    assert response.status_code == 200
    page = response.content.decode()
    urls = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert "/static/ninja/swagger-ui-bundle.js" in urls
    assert "/static/ninja/swagger-ui.css" in urls
    assert all(url.startswith("/static/") for url in urls), urls
    assert "<script>" not in page


def test_the_docs_page_carries_the_headers_and_the_csp(db) -> None:
    assert_hardened(Client().get("/api/v1/docs"), html=True)
