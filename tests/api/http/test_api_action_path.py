"""The shortcuts of the action path (``POST /v1/games/{id}/actions``): each does what the
general path does, for less.

- the typed decode of an action body (:func:`darkroad.api.http.bodies.parse_action`) gives the
  same action as ``parse_json`` + ``Engine.action_from_json``, and leaves every other body
  to them (the same errors);
- a response of known length goes out in one write (:class:`darkroad.api.http.server._OneWrite`),
  a stream's head at once;
- uvicorn builds an access-log line's arguments only when its level shows the line;
- a Redis node keeps the connections its pipelines used (:meth:`darkroad.api.store.topology.Node.pipeline`),
  with one deadline per pipeline;
- metrics kept in plain numbers (one process) read as ``prometheus_client``'s own would.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import weakref
from typing import Any

import httpx
import prometheus_client
import pytest
import uvicorn
import uvicorn.protocols.http.httptools_impl as uvicorn_httptools
from apiutil import RedisServer, free_port
from prometheus_client import CollectorRegistry, generate_latest
from redis import exceptions as redis_errors
from redis.asyncio.connection import Connection

from darkroad.api.http.bodies import parse_action, parse_json
from darkroad.api.http.problems import Problem
from darkroad.api.http.server import HttpProtocol, _OneWrite
from darkroad.api.metrics import LATENCY_BUCKETS, Metrics
from darkroad.api.store.redis_adapter import packing
from darkroad.api.store.topology import PoolOptions, Standalone
from darkroad.core import Action, BadAction, Engine

BODIES = [
    b'{"type": "move", "seat": 1, "option": "district:bazaar"}',
    b'{"type": "move", "seat": 1, "option": "district:bazaar", "label": "Move to the Great Bazaar"}',
    b'{"seat": 0, "option": "x:1", "type": "companion", "label": ""}',
    b'{"type": "move", "seat": 1, "seat": 0, "option": "o"}',  # a repeated field: the last one, as a dict
    b'{"type": "move", "seat": 1.0, "option": "o"}',  # an integral number with a fraction: an integer
    b'{"type": "move", "seat": 1e0, "option": "o"}',
]
REFUSED = [
    b'{"type": "move", "seat": true, "option": "o"}',
    b'{"type": "move", "seat": "1", "option": "o"}',
    b'{"type": "move", "seat": 1.5, "option": "o"}',
    b'{"type": "move", "option": "o"}',
    b'{"type": "move", "seat": 1, "option": "o", "extra": 1}',
    b'{"type": "move", "seat": 1, "option": "' + b"o" * 1000 + b'"}',
    b'{"type": "' + b"t" * 1000 + b'", "seat": 1, "option": "o"}',
    b'{"type": "move", "seat": 1, "option": "o", "label": "' + b"l" * 1000 + b'"}',
    b'{"type": "move", "seat": 1, "option": "o", "label": null}',
    b'["move", 1, "o"]',
    b"not json",
    b'{"type": "mo\\ud800ve", "seat": 1, "option": "o"}',
    b"[" * 100 + b"]" * 100,
]


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.load()


def general(engine: Engine, body: bytes) -> Action | str:
    """What the general path makes of ``body``: the action, or its error."""
    try:
        return engine.action_from_json(parse_json(body))
    except (BadAction, Problem) as exc:
        return f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize("body", BODIES + REFUSED)
def test_an_action_body_reads_as_the_general_path_reads_it(engine: Engine, body: bytes) -> None:
    try:
        got: Action | str = parse_action(body, engine.action_from_json)
    except (BadAction, Problem) as exc:
        got = f"{type(exc).__name__}: {exc}"
    assert got == general(engine, body)
    assert isinstance(got, Action) == (body in BODIES)


def test_an_action_body_reads_alike_whatever_its_buffer(engine: Engine) -> None:
    """``parse_action`` reads a body the same from bytes or a bytearray (ASGI servers may hand
    either), and refuses a refused one every time."""
    for body in BODIES:
        assert parse_action(bytearray(body), engine.action_from_json) == parse_action(body, engine.action_from_json)
    for body in REFUSED:
        for _ in range(2):
            with pytest.raises((BadAction, Problem)):
                parse_action(body, engine.action_from_json)


class _Transport:
    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed


class _Cycle:
    """The attributes of uvicorn's ``RequestResponseCycle`` that :class:`_OneWrite` reads,
    set as uvicorn sets them before each write."""

    def __init__(self, method: str = "POST") -> None:
        self.scope: dict[str, Any] = {"method": method}
        self.response_started = False
        self.chunked_encoding: bool | None = None
        self.expected_content_length = 0

    def start(self, writer: _OneWrite, length: int | None) -> None:
        self.response_started = True
        if length is None:
            self.chunked_encoding = True
        else:
            self.chunked_encoding, self.expected_content_length = False, length
        writer.write(b"HTTP/1.1 200 OK\r\n\r\n")


def test_a_response_of_known_length_goes_out_in_one_write() -> None:
    transport, cycle = _Transport(), _Cycle()
    writer = _OneWrite(transport, cycle)  # type: ignore[arg-type]
    writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")  # before the response: at once
    assert transport.writes == [b"HTTP/1.1 100 Continue\r\n\r\n"]
    cycle.start(writer, 4)
    assert len(transport.writes) == 1  # the head waits for its body
    writer.write(b"body")
    assert transport.writes[1:] == [b"HTTP/1.1 200 OK\r\n\r\nbody"]


@pytest.mark.parametrize(("method", "length"), [("GET", None), ("HEAD", 4), ("GET", 0)])
def test_a_stream_head_or_empty_body_response_starts_at_once(method: str, length: int | None) -> None:
    transport, cycle = _Transport(), _Cycle(method)
    writer = _OneWrite(transport, cycle)  # type: ignore[arg-type]
    cycle.start(writer, length)
    assert transport.writes == [b"HTTP/1.1 200 OK\r\n\r\n"]
    writer.write(b"chunk")
    assert transport.writes == [b"HTTP/1.1 200 OK\r\n\r\n", b"chunk"]


def test_a_request_cycle_and_its_writer_are_freed_without_the_collector() -> None:
    """uvicorn's cycle holds its transport (the writer, as ``HttpProtocol`` sets it); the writer
    lets go of the cycle once the response has started, so a request's objects are freed by
    reference counting when it ends instead of staying in a reference cycle for the garbage
    collector (about a tenth of a request's objects, and most of the collector's time)."""
    gc.disable()
    try:
        transport, cycle = _Transport(), _Cycle()
        writer = _OneWrite(transport, cycle)  # type: ignore[arg-type]
        cycle.transport = writer  # type: ignore[attr-defined]
        cycle.start(writer, 4)
        writer.write(b"body")
        gone = weakref.ref(cycle)
        del cycle, writer
        assert gone() is None
    finally:
        gc.enable()


def test_a_held_head_is_written_before_the_connection_closes() -> None:
    transport, cycle = _Transport(), _Cycle()
    writer = _OneWrite(transport, cycle)  # type: ignore[arg-type]
    cycle.start(writer, 4)
    writer.close()
    assert transport.writes == [b"HTTP/1.1 200 OK\r\n\r\n"] and transport.closed and writer.is_closing()


class _Records(logging.Handler):
    def __init__(self, records: list[logging.LogRecord]) -> None:
        super().__init__()
        self.records = records

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.mark.parametrize(("level", "shown"), [("info", True), ("warning", False)])
async def test_access_log_arguments_are_built_only_when_the_line_is_logged(
    level: str, shown: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request to a server of ``HttpProtocol`` at ``--log-level info`` is in the access log, as
    with uvicorn's own protocol; at ``warning`` the line's arguments (the client's address, the
    path) are not even built, where uvicorn's protocol builds them for the logger to drop."""
    built: list[Any] = []
    client_addr = uvicorn_httptools.get_client_addr
    monkeypatch.setattr(uvicorn_httptools, "get_client_addr", lambda scope: built.append(scope) or client_addr(scope))

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
            await send({"type": "http.response.body", "body": b"ok"})

    access = logging.getLogger("uvicorn.access")
    saved = access.level, list(access.handlers), access.propagate
    records: list[logging.LogRecord] = []
    port = free_port()
    try:
        config = uvicorn.Config(app, host="127.0.0.1", port=port, http=HttpProtocol, log_level=level, lifespan="off")
        server = uvicorn.Server(config)  # its Config set the access logger's level and handler
        access.addHandler(_Records(records))
        serving = asyncio.create_task(server.serve())
        while not server.started:
            await asyncio.sleep(0.01)
        async with httpx.AsyncClient() as client:
            for _ in range(3):
                assert (await client.get(f"http://127.0.0.1:{port}/somewhere?x=1")).text == "ok"
        server.should_exit = True
        await serving
    finally:
        access.setLevel(saved[0])
        access.handlers[:] = saved[1]
        access.propagate = saved[2]
    lines = [r.getMessage() for r in records]
    if shown:
        assert len(built) == 3 and len(lines) == 3 and all("GET /somewhere?x=1" in line for line in lines)
    else:
        assert built == [] and lines == []


async def test_a_connection_redis_dropped_fails_its_pipeline_once(redis_server: RedisServer, redis_url: str) -> None:
    """A node's pipelines take their connections from redis-py's pool and keep a few between
    pipelines; Redis dropping them fails the pipeline that meets one with redis-py's
    ``ConnectionError`` (no resend of redis-py's own: the batcher sends it again), the others
    kept are dropped with it, and the next pipeline gets a new one."""
    topology = Standalone(redis_url, PoolOptions({}))
    try:
        node = topology.single
        assert node is not None
        for n in range(1, 4):
            assert await node.pipeline([("INCR", "n")]) == [n]
        assert sorted(await asyncio.gather(*(node.pipeline([("INCR", "n")]) for _ in range(3)))) == [[4], [5], [6]]
        redis_server.client.client_kill_filter(_type="normal", skipme=True)  # Redis drops the pooled ones
        with pytest.raises(redis_errors.ConnectionError):
            await node.pipeline([("INCR", "n")])
        # Redis's own replies, not redis-py's parsed ones (its SET answers True), an error in its place.
        replies = await node.pipeline([("SET", "s", "v"), ("ZADD", "z", 1, "m"), ("INCR", "z"), ("GET", "n")])
        assert replies[:2] == [b"OK", 1] and isinstance(replies[2], redis_errors.ResponseError)
        assert replies[3] in (b"6", b"7")  # the INCR Redis dropped may or may not have run
    finally:
        await topology.close()


def test_metrics_kept_in_plain_numbers_read_as_prometheus_client_writes_its_own() -> None:
    metrics = Metrics()
    native = CollectorRegistry(auto_describe=True)
    requests = prometheus_client.Counter(
        "darkroad_http_requests_total", "HTTP requests answered.", ("method", "route", "status"), registry=native
    )
    latency = prometheus_client.Histogram(
        "darkroad_http_request_duration_seconds", "Time to answer an HTTP request.", ("method", "route"),
        registry=native, buckets=LATENCY_BUCKETS,
    )  # fmt: skip
    created = prometheus_client.Counter("darkroad_games_created_total", "Games created.", registry=native)
    for n, (method, route, status) in enumerate([("POST", "/a", "200"), ("GET", "/b", "404"), ("POST", "/a", "200")]):
        metrics.requests.inc(method, route, status)
        requests.labels(method, route, status).inc()
        for seconds in (0.0, 0.001, 0.0011, 0.3 * n, 5.0, 7.5):  # on, between and past the bounds
            metrics.latency.observe(seconds, method, route)
            latency.labels(method, route).observe(seconds)
    metrics.games_created.inc(amount=2.5)
    created.inc(2.5)

    def families(registry: CollectorRegistry) -> dict[str, str]:
        texts = generate_latest(registry).decode().split("# HELP ")[1:]
        return {text.split(" ", 1)[0]: text for text in texts}

    ours, theirs = families(metrics.registry), families(native)
    assert len(theirs) == 3
    for name, text in theirs.items():
        assert ours[name] == text


async def test_a_pipeline_past_its_deadline_fails_and_drops_its_connection(redis_url: str) -> None:
    """A pipeline (its write and every reply) has one deadline, ``PoolOptions.timeout``
    (``redis_adapter.Pipelines``): past it, redis-py's ``TimeoutError`` (which the batcher
    retries), and the next pipeline gets a connection that answers."""
    topology = Standalone(redis_url, PoolOptions({}, timeout=0.3))
    try:
        node = topology.single
        assert node is not None
        assert await node.pipeline([("SET", "k", "v"), ("GET", "k")]) == [b"OK", b"v"]
        with pytest.raises(redis_errors.TimeoutError):
            await node.pipeline([("BLPOP", "nothing", 2)])  # blocks past the deadline
        assert await node.pipeline([("GET", "k")]) == [b"v"]
    finally:
        await topology.close()


async def test_a_pipeline_cancelled_from_outside_stays_cancelled(redis_url: str) -> None:
    """A pipeline cancelled from outside (a client gone) stays a ``CancelledError``, not a
    timeout; its connection, whose replies are left unread, is not handed out again: the next
    pipeline reads its own replies."""
    topology = Standalone(redis_url, PoolOptions({}, timeout=5.0))
    try:
        node = topology.single
        assert node is not None
        task = asyncio.create_task(node.pipeline([("BLPOP", "nothing", 2)]))
        await asyncio.sleep(0.2)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert await node.pipeline([("SET", "k", "v"), ("GET", "k")]) == [b"OK", b"v"]
    finally:
        await topology.close()


def test_the_store_connections_pack_as_redis_py_does() -> None:
    """``redis_adapter.packing``: hiredis packs the same bytes as redis-py's own connection, a command
    name of two words (redis-py's typed methods send ``"SCRIPT LOAD"``) included."""
    ours, theirs = packing(Connection)(host="localhost"), Connection(host="localhost")
    for args in [
        ("SET", "k", "v"),
        ("EVALSHA", "0" * 40, 2, "game:{a}", "game:{a}:events", b"\x00\xff\r\n", "é", -1, 2**53),
        ("SCRIPT LOAD", "return 1"),
        (b"CLIENT SETNAME", "x"),
        ("XINFO", "GROUPS", "jobs:{0}"),
        ("ZADD", "clocks:{0}", repr(1.5), "g"),
    ]:
        assert b"".join(ours.pack_command(*args)) == b"".join(theirs.pack_command(*args)), args
