"""A loopback HTTP server answering from a script, to watch how the client waits and retries."""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: Any = field(default_factory=lambda: {"status": "ok", "database": "ok", "redis": "ok"})
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


class ScriptedServer:
    def __init__(self, *replies: Reply) -> None:
        self.script: deque[Reply] = deque(replies)
        self.seen: list[tuple[float, str, str]] = []  # (monotonic time, method, path)
        self.headers: list[dict[str, str]] = []
        self.closing = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                server.seen.append((time.monotonic(), self.command, self.path))
                server.headers.append(dict(self.headers))
                reply = server.script.popleft() if server.script else Reply(500, {"error": {"code": "unscripted"}})
                if reply.delay:
                    server.closing.wait(reply.delay)
                payload = json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:
                    pass

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> ScriptedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.closing.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def gaps(self) -> list[float]:
        """Seconds between consecutive requests."""
        times = [t for t, _, _ in self.seen]
        return [b - a for a, b in itertools.pairwise(times)]
