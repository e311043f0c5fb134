"""A request head that reaches the server in more than one read is still answered by the application.

The kernel may hand a long request target to the server in pieces. The server's own limit on a head it is
still reading (h11's, 16 KiB by default) must sit above the application's (settings.MAX_REQUEST_LINE_BYTES),
as the web worker's does (memoryadmin.web_worker.MAX_HEAD_BYTES), or a 40 KiB target sent in two parts is
refused by the server and its connection reset, instead of answered 414 with the API's error body.
"""

from __future__ import annotations

import socket
import time
from urllib.parse import urlparse


def test_a_long_target_sent_in_two_parts_is_answered_414_with_the_error_body(asgi_server, namespace, make_key):
    _, raw = make_key(namespace)
    address = urlparse(asgi_server.url)
    target = "/api/v1/memories?user_id=" + "a" * 40_000
    head = (
        f"GET {target} HTTP/1.1\r\nHost: {address.hostname}\r\nAuthorization: Bearer {raw}\r\nConnection: close\r\n\r\n"
    ).encode()
    with socket.create_connection((address.hostname, address.port), timeout=30) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.sendall(head[:20_000])
        # The server has read the first part, and waits for the rest of the head.
        time.sleep(0.5)
        sock.sendall(head[20_000:])
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    status_line = answer.partition(b"\r\n")[0]
    assert status_line.split()[1] == b"414", answer[:300]
    assert b'"code": "uri_too_long"' in answer, answer[:600]
