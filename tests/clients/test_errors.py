"""Every error code docs/api.md lists has its own exception in the Python client, under its status's family."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from memoryadmin_client import errors

API_DOCS = Path(__file__).resolve().parents[2] / "docs" / "api.md"
ROW = re.compile(r"^\| (\d{3}) \| (.+?) \| .+ \|$")


def documented_codes() -> list[tuple[int, str]]:
    """(status, code) of each row of the error table in docs/api.md."""
    codes = []
    for line in API_DOCS.read_text().splitlines():
        if match := ROW.match(line):
            status, cell = match.groups()
            codes += [(int(status), code) for code in re.findall(r"`([a-z_]+)`", cell)]
    return codes


def test_the_table_is_read() -> None:
    codes = {code: status for status, code in documented_codes()}
    assert codes["precondition_failed"] == 412
    assert {"invalid_id", "uri_too_long", "headers_too_large", "invalid_precondition"} <= set(codes)


@pytest.mark.parametrize(("status", "code"), documented_codes())
def test_each_documented_code_raises_its_own_class_within_its_status_family(status: int, code: str) -> None:
    response = httpx.Response(status, json={"error": {"code": code, "message": "m", "details": {"x": 1}}})
    raised = errors.error_from_response(response)
    assert type(raised) is errors.BY_CODE[code]
    assert isinstance(raised, errors.BY_STATUS[status])
    assert (raised.status, raised.code, raised.message, raised.details) == (status, code, "m", {"x": 1})


def test_a_code_the_client_does_not_know_falls_back_to_its_status_family() -> None:
    raised = errors.error_from_response(httpx.Response(409, json={"error": {"code": "brand_new", "message": "m"}}))
    assert type(raised) is errors.ConflictError and raised.code == "brand_new"
