"""A small OpenAI-compatible chat-completions server on loopback, answering from a script."""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Answer:
    content: str | None = None
    status: int = 200
    delay: float = 0.0
    raw: bytes | None = None  # sent as the body instead of a chat completion


class ScriptedLLM:
    """Answers requests in order from `script`; records every request it receives."""

    def __init__(self) -> None:
        self.script: deque[Answer] = deque()
        self.requests: list[dict[str, Any]] = []
        self.closing = threading.Event()
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                with server.lock:
                    server.requests.append(
                        {"path": self.path, "headers": dict(self.headers), "body": json.loads(body or b"{}")}
                    )
                    answer = server.script.popleft() if server.script else Answer(status=500, raw=b"unscripted")
                if answer.delay:
                    server.closing.wait(answer.delay)
                payload = answer.raw
                if payload is None:
                    payload = json.dumps(
                        {
                            "id": "chatcmpl-test",
                            "object": "chat.completion",
                            "choices": [{"index": 0, "message": {"role": "assistant", "content": answer.content}}],
                        }
                    ).encode()
                try:
                    self.send_response(answer.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except OSError:
                    pass  # the client gave up (timeout, or its worker was killed)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def answer(self, content: str | dict | list, **kwargs: Any) -> None:
        text = content if isinstance(content, str) else json.dumps(content)
        self.script.append(Answer(content=text, **kwargs))

    def fail(self, status: int, **kwargs: Any) -> None:
        self.script.append(Answer(status=status, raw=b'{"error": {"message": "scripted failure"}}', **kwargs))

    def start(self) -> ScriptedLLM:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.closing.set()
        self.httpd.shutdown()
        self.httpd.server_close()
