"""Timeouts at the edge: a client slower than ``DARKROAD_REQUEST_TIMEOUT`` to send its
request (head and body) is cut with a ``408`` problem, whatever it trickles; a slow but
timely client is served. On a real ``darkroad serve`` (the deadline is the server's).
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator

import httpx
import pytest
from apiutil import ApiServer, parse_response, read_response

from darkroad.api.settings import Settings

TIMEOUT = 1.5
"""The deadline of the fast tests' server, in seconds."""
SLACK = 1.5
"""What a loaded CI machine may add to it."""


pytestmark = pytest.mark.xdist_group("store-cluster")
"""The module on one worker under ``--dist loadgroup`` (:func:`server` is a module fixture, started
once per worker that runs one of its tests): the worker holding the Redis Cluster, the run's lane of
tests that mostly wait (tests/api/conftest.py's :data:`STORES`), as these wait for deadlines."""


@pytest.fixture(scope="module")
def server() -> Iterator[ApiServer]:
    api = ApiServer(None, env={"DARKROAD_REQUEST_TIMEOUT": str(TIMEOUT)}).start()
    yield api
    log = api.stop()
    assert "Traceback" not in log and "ERROR" not in log, log


def cut_after(port: int, parts: list[tuple[float, bytes]], limit: float) -> tuple[float, bytes]:
    """Send each part after its pause on one connection; return when the server closed
    it (seconds since connecting) and what it sent."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=limit) as sock:
        received = b""
        for pause, data in parts:
            time.sleep(pause)
            try:
                sock.sendall(data)
            except (BrokenPipeError, ConnectionResetError):
                break
        try:
            while chunk := sock.recv(65536):
                received += chunk
        except ConnectionResetError:
            pass
    return time.monotonic() - started, received


def assert_408(received: bytes) -> None:
    status, headers, body = parse_response(received)
    assert status == 408, received
    assert headers["content-type"] == "application/problem+json"
    assert headers["connection"] == "close"
    assert json.loads(body)["type"] == "request-timeout"


HEAD = b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n"


def test_a_body_that_never_comes_is_cut(server: ApiServer) -> None:
    """The slow-loris of the issue: ``Content-Length: 10`` and no body."""
    elapsed, received = cut_after(server.port, [(0, HEAD)], limit=TIMEOUT + 10)
    assert TIMEOUT * 0.9 <= elapsed < TIMEOUT + SLACK, elapsed
    assert_408(received)


def test_a_trickled_body_is_cut(server: ApiServer) -> None:
    trickle = [(0, HEAD)] + [(0.4, b" ")] * 9
    elapsed, received = cut_after(server.port, trickle, limit=TIMEOUT + 10)
    assert elapsed < TIMEOUT + SLACK, elapsed
    assert_408(received)


def test_a_trickled_head_is_cut(server: ApiServer) -> None:
    trickle = [(0, b"GET /healthz HTTP/1.1\r\nHost: x\r\n")] + [(0.3, b"X-Slow: 1\r\n")] * 20
    elapsed, received = cut_after(server.port, trickle, limit=TIMEOUT + 10)
    assert elapsed < TIMEOUT + SLACK, elapsed
    assert_408(received)


def test_a_silent_connection_is_cut(server: ApiServer) -> None:
    elapsed, received = cut_after(server.port, [], limit=TIMEOUT + 10)
    assert TIMEOUT * 0.9 <= elapsed < TIMEOUT + SLACK, elapsed
    assert_408(received)


def test_a_slow_but_timely_client_is_served(server: ApiServer) -> None:
    body = b'{"players":2}'
    head = HEAD.replace(b"Content-Length: 10", b"Content-Length: %d" % len(body))
    parts = [(0, head[:20]), (0.3, head[20:]), (0.3, body[:5]), (0.3, body[5:])]
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        for pause, data in parts:
            time.sleep(pause)
            sock.sendall(data)
        status, _, _ = read_response(sock)
        assert status == 201
        # The connection lives on for the next request (keep-alive), with a fresh deadline.
        time.sleep(TIMEOUT * 0.7)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert read_response(sock)[0] == 200
    # A request whose answer takes long (a long poll) is not cut: the deadline is for sending it.
    with httpx.Client(base_url=server.url, timeout=10) as client:
        game = client.post("/v1/games", json={"players": 2}).json()
        started = time.monotonic()
        page = client.get(f"/v1/games/{game['id']}/log", params={"after": 10**6, "wait": TIMEOUT + 1})
        assert page.status_code == 200 and time.monotonic() - started >= TIMEOUT + 0.9


def test_a_later_request_on_a_connection_gets_its_own_deadline(server: ApiServer) -> None:
    """The deadline runs from each request's first byte: a request that begins on a kept-alive
    connection after an earlier one is cut ``TIMEOUT`` after it began, neither at the earlier
    request's deadline nor never."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=TIMEOUT + 10) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert read_response(sock)[0] == 200
        time.sleep(TIMEOUT * 0.6)  # the connection's first deadline would fall in the next request
        began = time.monotonic()
        sock.sendall(HEAD)  # and no body
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
        elapsed = time.monotonic() - began
    assert TIMEOUT * 0.9 <= elapsed < TIMEOUT + SLACK, elapsed
    assert_408(received)


@pytest.mark.slow
def test_the_default_deadline_cuts_a_slow_loris() -> None:
    """Default settings: ``Content-Length: 10`` and no body is cut after 10 s (the documented bound)."""
    timeout = Settings().request_timeout
    assert timeout == 10.0
    api = ApiServer(None).start()
    try:
        elapsed, received = cut_after(api.port, [(0, HEAD)], limit=timeout + 10)
        print(f"slow-loris cut after {elapsed:.1f} s (request timeout {timeout:g} s)")
        assert timeout * 0.95 <= elapsed < timeout + SLACK, elapsed
        assert_408(received)
    finally:
        assert "Traceback" not in api.stop()
