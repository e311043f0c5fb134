"""A webhook receiver on loopback: answers from a script (default 200), records what it was sent."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Answer:
    status: int = 200
    delay: float = 0.0


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    status: int
    at: float = field(default_factory=time.time)

    @property
    def event(self) -> dict[str, Any]:
        return json.loads(self.body)

    @property
    def event_id(self) -> str:
        return self.headers["webhook-id"]


class Receiver:
    def __init__(self) -> None:
        self.script: deque[Answer] = deque()
        self.received: list[Received] = []
        # Requests that arrived, answered or not (one still held is counted).
        self.arrivals = 0
        self.lock = threading.Lock()
        self.closing = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with receiver.lock:
                    receiver.arrivals += 1
                    answer = receiver.script.popleft() if receiver.script else Answer()
                if answer.delay:
                    receiver.closing.wait(answer.delay)
                try:
                    self.send_response(answer.status)
                    self.send_header("Content-Length", "2")
                    self.end_headers()
                    self.wfile.write(b"ok")
                    self.wfile.flush()
                except OSError:
                    return  # the sender went away
                with receiver.lock:
                    receiver.received.append(
                        Received({k.lower(): v for k, v in self.headers.items()}, body, answer.status)
                    )

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> Receiver:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.closing.set()
        self.server.shutdown()
        self.server.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def answer(self, *answers: Answer) -> None:
        with self.lock:
            self.script.extend(answers)

    def acknowledged(self) -> list[Received]:
        """What the receiver answered with a 2xx, in the order it answered."""
        with self.lock:
            return [r for r in self.received if 200 <= r.status < 300]

    def answered(self) -> list[Received]:
        with self.lock:
            return list(self.received)
