"""Where a webhook may be sent: http(s) URLs whose every address is a public one, unless settings allow more.

A URL is checked when an endpoint is saved and again at each delivery, on the addresses the host
resolves to then; the connection goes to the address that was checked (the URL's host is kept for
the Host header and TLS), so a DNS answer that changes between the check and the connection
(rebinding) cannot point a delivery inside the network. Receivers inside the network are
legitimate when an operator says so: `WEBHOOK_ALLOW_PRIVATE_URLS`, or the networks listed in
`WEBHOOK_ALLOWED_NETWORKS`.
"""

from __future__ import annotations

import ipaddress
import socket
from functools import cache
from urllib.parse import urlsplit

from django.conf import settings

from memoryadmin.core.errors import InvalidInput

type Address = ipaddress.IPv4Address | ipaddress.IPv6Address
MAX_URL_CHARS = 2000


class UrlRefused(InvalidInput, code="url_not_allowed"): ...


@cache
def _allowed_networks(spec: tuple[str, ...]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(cidr, strict=False) for cidr in spec)


def address_allowed(address: Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if settings.WEBHOOK_ALLOW_PRIVATE_URLS:
        return not address.is_unspecified
    if any(address in network for network in _allowed_networks(tuple(settings.WEBHOOK_ALLOWED_NETWORKS))):
        return True
    return address.is_global and not (address.is_multicast or address.is_reserved or address.is_link_local)


def url_parts(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of an acceptable webhook URL, or UrlRefused saying why not."""
    if len(url) > MAX_URL_CHARS:
        raise UrlRefused(f"the URL is longer than {MAX_URL_CHARS} characters", details={"field": "url"})
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise UrlRefused("the URL cannot be parsed", details={"field": "url"}) from None
    if parts.scheme not in ("http", "https"):
        raise UrlRefused("the URL must be http or https", details={"field": "url"})
    if not parts.hostname:
        raise UrlRefused("the URL has no host", details={"field": "url"})
    if parts.username is not None or parts.password is not None:
        raise UrlRefused(
            "the URL must not carry credentials; sign with the endpoint's secret", details={"field": "url"}
        )
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80)


def resolve_allowed(host: str, port: int) -> list[Address]:
    """Every address `host` resolves to, each allowed, or UrlRefused (naming no address: the answer is the
    caller's, and an address inside our network is none of its business)."""
    try:
        literal: Address | None = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        addresses = [literal]
    else:
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError):
            raise UrlRefused("the URL's host does not resolve", details={"field": "url"}) from None
        addresses = list(dict.fromkeys(ipaddress.ip_address(info[4][0].split("%", 1)[0]) for info in infos))
    if not addresses or not all(address_allowed(a) for a in addresses):
        raise UrlRefused(
            "the URL points at a private, loopback, link-local or reserved address, which this server does not "
            "send to (an operator may allow private receivers: WEBHOOK_ALLOW_PRIVATE_URLS)",
            details={"field": "url"},
        )
    return addresses


def url_clean(url: str) -> str:
    url = url.strip()
    _, host, port = url_parts(url)
    resolve_allowed(host, port)
    return url
