"""A small OpenAI-compatible /v1/embeddings server on loopback: deterministic vectors, or scripted failures."""

from __future__ import annotations

import hashlib
import json
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np


def text_vector(text: str, dimension: int) -> list[float]:
    """A fixed vector per text: a bag of hashed words, so texts sharing words are similar."""
    vector = np.zeros(dimension)
    for word in text.lower().split():
        vector[int(hashlib.sha256(word.encode()).hexdigest(), 16) % dimension] += 1.0
    return vector.tolist()


@dataclass
class Failure:
    status: int = 500
    delay: float = 0.0
    raw: bytes | None = None  # sent with status 200 instead of a failure


class EmbeddingsServer:
    """Answers each request with the texts' vectors, unless a failure is scripted first; records requests."""

    def __init__(self, dimension: int = 8) -> None:
        self.dimension = dimension
        self.failures: deque[Failure] = deque()
        self.requests: list[dict[str, Any]] = []
        self.closing = threading.Event()
        self.lock = threading.Lock()
        # Run (in the request's thread) with the texts of the next request answered with vectors, once.
        self.before_next: Callable[[list[str]], None] | None = None
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                with server.lock:
                    server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                    failure = server.failures.popleft() if server.failures else None
                if failure is not None and failure.delay:
                    server.closing.wait(failure.delay)
                status = 200
                if failure is not None and failure.raw is not None:
                    payload = failure.raw
                elif failure is not None:
                    status, payload = failure.status, b'{"error": {"message": "scripted failure"}}'
                else:
                    texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                    with server.lock:
                        before, server.before_next = server.before_next, None
                    if before is not None:
                        before(texts)
                    data = [
                        {"object": "embedding", "index": i, "embedding": text_vector(t, server.dimension)}
                        for i, t in enumerate(texts)
                    ]
                    # Answered out of order: clients must follow `index`.
                    payload = json.dumps({"object": "list", "data": data[::-1], "model": body["model"]}).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:
                    pass

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def fail(self, status: int = 500, **kwargs: Any) -> None:
        self.failures.append(Failure(status=status, **kwargs))

    def start(self) -> EmbeddingsServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.closing.set()
        self.httpd.shutdown()
        self.httpd.server_close()
