"""The HTTP server of ``darkroad serve``: uvicorn, with a request deadline and its own
errors as problem details.

Why uvicorn: it is the fastest of the three ASGI servers the service could use here
(docs/performance.md), and it takes the client address from trusted
proxies (``forwarded_allow_ips``). None of the three bounds how long a client may take to
send a request, which is what a slow-loris attack exploits: uvicorn has no header or body
timeout at all (its keep-alive timeout only runs between requests and restarts with every
byte; the request timeouts of its issue #157 were never added), hypercorn's
``read_timeout`` restarts with every read (a client sending a byte now and then is never
cut), and granian bounds the head (``--http1-header-read-timeout``) but not the body,
while changing the server under the app (its own ASGI implementation, no proxy headers).
So the service stays on uvicorn and :class:`HttpProtocol` (uvicorn's httptools protocol,
passed as ``http=``, the documented way to choose the protocol class) adds the deadline:

* **A whole request within ``Settings.request_timeout`` of its first byte** (or of the
  connection opening, for a client that connects and sends nothing): head and body. A
  request still incomplete then is answered ``408 request-timeout`` (if no answer has
  started) and its connection closed; an app waiting for the body sees the client
  disconnect. Time between requests of a keep-alive connection is uvicorn's keep-alive
  timeout (5 s).
* **uvicorn's own 400s** (a malformed request line or header, an invalid
  ``Content-Length``), sent before the app sees the request, are problem details like
  every other error of the API instead of ``text/plain``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import Any

import msgspec
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from darkroad.api.http.problems import PROBLEM_MEDIA_TYPE, PROBLEM_TYPES, ProblemDetails
from darkroad.api.settings import Settings


def problem_bytes(code: str, detail: str) -> bytes:
    """A problem details body of type ``code`` (no ``instance``: the request was not understood)."""
    problem = PROBLEM_TYPES[code]
    return msgspec.json.encode(
        ProblemDetails(type=problem.code, title=problem.title, status=problem.status, detail=detail)
    )


def raw_problem_response(code: str, detail: str, default_headers: list[tuple[bytes, bytes]]) -> bytes:
    """A whole HTTP/1.1 response carrying a problem, closing the connection."""
    problem = PROBLEM_TYPES[code]
    body = problem_bytes(code, detail)
    reason = problem.title.encode()
    head = [b"HTTP/1.1 %d %s\r\n" % (problem.status, reason)]
    head += [name + b": " + value + b"\r\n" for name, value in default_headers]
    head += [
        b"content-type: " + PROBLEM_MEDIA_TYPE.encode() + b"\r\n",
        b"content-length: %d\r\n" % len(body),
        b"connection: close\r\n",
        b"\r\n",
    ]
    return b"".join(head) + body


@functools.cache
def request_timeout() -> float:
    """``Settings.request_timeout`` of this server process (from ``DARKROAD_REQUEST_TIMEOUT``)."""
    return Settings.from_env().request_timeout


class _OneWrite:
    """The transport as one request's uvicorn cycle sees it: a response whose length is known
    (``Content-Length``) goes out in one write, its head held back until its body comes.

    uvicorn writes the head (on ``http.response.start``) and the body (on
    ``http.response.body``) in two ``transport.write`` calls, each a ``send`` system call and
    a loopback or network segment of its own that wakes the client, for every answer (a
    system call costs more than the rest of a small answer's writing). The ASGI spec allows the hold ("the protocol server must not start sending the
    response to the client until it has received at least one Response Body event").
    Responses without a length (event streams, chunked) and heads of ``HEAD`` requests are
    written at once, as before; a held head is written before anything else, and on close.
    """

    __slots__ = ("_transport", "_cycle", "_head", "_headless")

    def __init__(self, transport: asyncio.Transport, cycle: Any) -> None:
        self._transport = transport
        self._cycle = cycle
        self._head: bytes | None = None
        self._headless = True
        """Whether the head is still to come (the first write once the response started)."""

    def write(self, data: bytes) -> None:
        head, cycle = self._head, self._cycle
        if head is not None:
            self._head = None
            self._transport.write(head + data)
        elif self._headless and cycle.response_started:
            self._headless = False
            # The cycle holds this transport: let go of it, the last time it is read, so that
            # the request's objects are freed when it ends instead of waiting for the collector.
            self._cycle = None
            if not cycle.chunked_encoding and cycle.expected_content_length > 0 and cycle.scope["method"] != "HEAD":
                self._head = data  # its body follows
            else:
                self._transport.write(data)
        else:
            self._transport.write(data)

    def close(self) -> None:
        head = self._head
        if head is not None:
            self._head = None
            self._transport.write(head)
        self._transport.close()

    def is_closing(self) -> bool:
        return self._transport.is_closing()


class HttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a deadline per request, problem-details 400s and a
    response of known length sent in one write (:class:`_OneWrite`).

    The deadline's timer is lazy: a request notes when it began (``_since``) and a timer is
    armed only when the connection has none; when it fires it cuts a request past its
    deadline, waits again for a later request's, or stops between requests. A connection
    serving request after request keeps one timer that fires once per ``request_timeout``,
    instead of a timer armed and cancelled for every request (a handle in the event loop's
    heap and its cancellation each time)."""

    _deadline: asyncio.TimerHandle | None = None
    _since: float | None = None
    """When the request under way began (its first byte, or the connection opening for a
    client that sends nothing); ``None`` between requests."""
    _in_head = True
    """Whether the request under way has not sent its whole head yet (or none has begun)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        # uvicorn formats each response's access-log arguments (the client's address, the path
        # and query) whenever its access logger has a handler, and only then lets the logger
        # drop the line below its level: work for every request at ``--log-level warning``.
        # The log is written as before whenever its level shows it.
        self.access_log = self.access_log and self.access_logger.isEnabledFor(logging.INFO)
        self._begin()

    def connection_lost(self, exc: Exception | None) -> None:
        self._since = None
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head = True
        self._begin()  # this request's head and body, from its first byte

    def on_headers_complete(self) -> None:
        self._in_head = False
        previous = self.cycle
        super().on_headers_complete()
        if self.cycle is not previous:  # a new request (not an upgrade): its task has not run yet
            self.cycle.transport = _OneWrite(self.transport, self.cycle)  # type: ignore[assignment]

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._since = None  # received in time: a timer armed finds no request

    def _begin(self) -> None:
        self._since = since = self.loop.time()
        if self._deadline is None:
            self._deadline = self.loop.call_at(since + request_timeout(), self._due)

    def _due(self) -> None:
        self._deadline = None
        if self._since is None:
            return  # between requests: the next one arms a timer
        due = self._since + request_timeout()
        if self.loop.time() < due:  # a later request than the timer's: wait for its deadline
            self._deadline = self.loop.call_at(due, self._due)
            return
        self._expired()

    def _expired(self) -> None:
        self._since = None
        if self.transport.is_closing():
            return
        # The request whose body is awaited (while a head is coming, ``cycle`` is the last one's).
        current: Any = None if self._in_head else self.cycle
        if current is not None and not current.response_complete:
            current.disconnected = True  # the app waiting for the body gets http.disconnect
            current.message_event.set()
        if current is None or not current.response_started:
            detail = f"The request was not received within {request_timeout():g} seconds."
            self.transport.write(raw_problem_response("request-timeout", detail, self.server_state.default_headers))
        self.transport.close()

    def send_400_response(self, msg: str) -> None:
        self.transport.write(raw_problem_response("bad-request", msg, self.server_state.default_headers))
        self.transport.close()
