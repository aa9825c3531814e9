"""A webhook receiver over real HTTP on loopback, for the webhook tests: it records every
request (headers and body) and answers with the statuses it is told to, in order."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from standardwebhooks import Webhook


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    at: float = field(default_factory=time.monotonic)
    """When it arrived (``time.monotonic()``)."""


@dataclass
class Receiver:
    """What the server answers: ``statuses`` in turn (then ``status``), after ``delays`` in turn
    (then ``delay``) seconds."""

    url: str = ""
    status: int = 204
    statuses: list[int] = field(default_factory=list)
    delay: float = 0.0
    delays: list[float] = field(default_factory=list)
    """Delays of the first requests, in turn (then ``delay``)."""
    received: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def verified(self, secret: str) -> list[dict[str, Any]]:
        """Every body received, each verified by the ``standardwebhooks`` library (raises if not)."""
        with self.lock:
            got = list(self.received)
        return [Webhook(secret).verify(item.body, item.headers) for item in got]

    def ids(self) -> list[str]:
        with self.lock:
            return [item.headers["webhook-id"] for item in self.received]

    def wait_for(self, count: int, timeout: float = 30.0) -> list[Received]:
        """Block until ``count`` requests arrived (AssertionError after ``timeout``)."""
        deadline = time.monotonic() + timeout
        while True:
            with self.lock:
                if len(self.received) >= count:
                    return list(self.received)
            assert time.monotonic() < deadline, f"{len(self.received)} of {count} requests arrived in time"
            time.sleep(0.02)


@contextmanager
def receiver(**options: Any) -> Iterator[Receiver]:
    """A receiver listening on a free loopback port for as long as the context lasts."""
    state = Receiver(**options)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            length = int(self.headers.get("content-length", "0"))
            body = self.rfile.read(length)
            with state.lock:
                state.received.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                status = state.statuses.pop(0) if state.statuses else state.status
                delay = state.delays.pop(0) if state.delays else state.delay
            if delay:
                time.sleep(delay)
            self.send_response(status)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
