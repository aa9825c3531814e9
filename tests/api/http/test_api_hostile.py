"""Hostile and careless requests: every one gets a 4xx problem (or a success), never a 5xx.

A corpus of malformed bodies, headers, queries and paths is thrown at every route of a
live game, in-process on both stores; a real ``darkroad serve`` then gets requests its
HTTP parser refuses (uvicorn's own 400s must be problems too) and random bytes from
hypothesis. After each batch the game is unchanged and the server still plays it.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from apiutil import ApiServer, NewGame, awaited_seat, create_game, legal, parse_response, raw_exchange, serve
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from litestar import Litestar

from darkroad.api.http.bodies import MAX_JSON_DEPTH
from darkroad.api.settings import Settings

PROBLEM = "application/problem+json"
JSON = {"Content-Type": "application/json"}
pytestmark = pytest.mark.stores("memory", "redis")
"""The in-process tests' stores (those taking ``target``): a hostile request is refused, or
answered, the same whatever store the game lies in; the stores' contract, on the Cluster and
the Sentinels too, is tests/api/store/test_api_store.py's."""


def nested(depth: int, opening: bytes = b"[", closing: bytes = b"]", inner: bytes = b"1") -> bytes:
    return opening * depth + inner + closing * depth


def nested_objects(depth: int) -> bytes:
    return b'{"a":' * depth + b"1" + b"}" * depth


# -- the corpus: (name, body, expected status or None for "any 4xx") ---------------------------------

INVALID_UTF8 = [
    ("utf8-ff-in-string", b'{"players": 2, "companions": ["\xff"]}', 400),
    ("utf8-truncated-in-string", b'{"type": "plan", "seat": 0, "option": "\xc3"}', 400),
    ("utf8-overlong-slash", b'{"type": "plan", "seat": 0, "option": "\xc0\xaf"}', 400),
    ("utf8-encoded-surrogate", b'{"type": "plan", "seat": 0, "option": "\xed\xa0\x80"}', 400),
    ("utf8-in-key", b'{"pl\xfeyers": 2}', 400),
    ("utf8-outside-strings", b"\xff{}", 400),
    ("utf16-bom", b'\xff\xfe{\x00}\x00', 400),
]
DEEP = [
    ("arrays-1000", nested(1000), 400),
    ("objects-1000", nested_objects(1000), 400),
    ("mixed-1000", b'{"a":[' * 500 + b"1" + b"]}" * 500, 400),
    ("arrays-100k-unclosed", b"[" * 60000, 400),
    ("just-over-limit", nested(MAX_JSON_DEPTH + 1), 400),
    ("deep-inside-a-field", b'{"players": 2, "variants": ' + nested(900, b"{\"x\":", b"}") + b"}", 400),
    ("deep-in-action-option", b'{"type": "plan", "seat": 0, "option": ' + nested(2000) + b"}", 400),
]
MALFORMED = [
    ("empty", b"", 400),
    ("whitespace", b" \n\t ", 400),
    ("null", b"null", None),
    ("true", b"true", None),
    ("string", b'"x"', None),
    ("array", b"[]", None),
    ("object", b"{}", None),
    ("trailing-garbage", b"{} x", 400),
    ("two-documents", b"{}{}", 400),
    ("comment", b"{/* c */}", 400),
    ("single-quotes", b"{'players': 2}", 400),
    ("trailing-comma", b'{"players": 2,}', 400),
    ("raw-newline-in-string", b'{"type": "plan", "seat": 0, "option": "a\nb"}', 400),
    ("lone-surrogate-escape", b'{"type": "plan", "seat": 0, "option": "\\ud800"}', 400),
    ("reversed-surrogates", b'{"type": "plan", "seat": 0, "option": "\\udc00\\ud800"}', 400),
    ("truncated-escape", b'{"type": "plan", "seat": 0, "option": "\\u12"}', 400),
    ("nul-escape", b'{"type": "plan", "seat": 0, "option": "\\u0000"}', None),
    ("bidi-escape", b'{"type": "plan", "seat": 0, "option": "\\u202e", "label": "\\uffff"}', None),
    ("nan", b'{"players": NaN}', 400),
    ("infinity", b'{"players": Infinity}', 400),
    ("exponent-huge", b'{"players": 1e999}', None),
    ("exponent-negative-huge", b'{"players": -1e999, "seed": 1e-999}', None),
    ("integral-fraction", b'{"players": 2.0000000000000001, "seed": 1e3}', None),
    ("digits-400", b'{"players": 2, "seed": ' + b"9" * 400 + b"}", None),
    ("seat-2-64", b'{"type": "plan", "seat": 18446744073709551616, "option": "x"}', None),
    ("seat-negative", b'{"type": "plan", "seat": -9223372036854775809, "option": "x"}', None),
    ("seat-float", b'{"type": "plan", "seat": 0.5, "option": "x"}', None),
    ("duplicate-keys", b'{"type": "plan", "type": "move", "seat": 0, "option": "x"}', None),
    ("many-keys", b"{" + b",".join(b'"k%d": %d' % (i, i) for i in range(5000)) + b"}", None),
    ("long-option", json.dumps({"type": "plan", "seat": 0, "option": "x" * 60000}).encode(), None),
    ("long-label", json.dumps({"type": "plan", "seat": 0, "option": "x", "label": "y" * 60000}).encode(), None),
    ("long-type", json.dumps({"type": "t" * 60000, "seat": 0, "option": "x"}).encode(), None),
    ("long-building-ids", json.dumps({"players": 2, "buildings": ["b" * 15000] * 4}).encode(), None),
    ("many-companions", json.dumps({"players": 2, "companions": ["x"] * 7000}).encode(), None),
    ("wrong-types", b'{"players": {"$gt": 1}, "seed": [], "variants": "all"}', None),
    ("prototype-pollution", b'{"__proto__": {"admin": true}, "constructor": {}}', None),
    ("too-large", b'{"players": 2, "x": "' + b"a" * 70000 + b'"}', 413),
]
BODIES = INVALID_UTF8 + DEEP + MALFORMED

CONTENT_TYPES = [
    ("text/plain", 415),
    ("application/x-www-form-urlencoded", 415),
    ("multipart/form-data; boundary=x", 415),
    (None, 415),
    ("", 415),
    ("application/jsonx", 415),
    ("application/json-patch+json", 415),
    ("application/json; charset=latin-1", 415),
    ("text/json", 415),
    ("APPLICATION/JSON", None),
    ("application/json;charset=UTF-8", None),
    ('application/json; charset="utf-8"; x=y', None),
    ("application/json;;;", None),
]

HEADERS: list[tuple[str, str, dict[str, Any]]] = [
    # (name, which route, headers)
    ("bearer-10k", "act", {"Authorization": "Bearer " + "x" * 10000}),
    ("bearer-latin1", "act", {"Authorization": b"Bearer \xff\xfe"}),
    ("bearer-spaces", "act", {"Authorization": "Bearer a b c"}),
    ("bearer-lowercase-only", "act", {"Authorization": "bearer"}),
    ("basic", "act", {"Authorization": "Basic Zm9vOmJhcg=="}),
    ("two-schemes", "read", {"Authorization": "Bearer x, Basic y"}),
    ("if-match-5000-quotes", "act", {"If-Match": '"' * 5000}),
    ("if-match-long-list", "act", {"If-Match": "1," * 4000}),
    ("if-match-weak-only", "act", {"If-Match": "W/"}),
    ("if-match-latin1", "act", {"If-Match": b'"\xff"'}),
    # Past Python's limit on converting digits to an int (4,300): once answered 500.
    ("if-match-5000-digits", "act", {"If-Match": '"' + "9" * 5000 + '"'}),
    ("if-match-5000-digits-in-a-list", "act", {"If-Match": '"1", ' + "9" * 5000}),
    ("idempotency-key-latin1", "act", {"Idempotency-Key": b"\xff\xfe\x80"}),
    ("idempotency-key-256", "act", {"Idempotency-Key": "k" * 256}),
    ("idempotency-key-empty", "act", {"Idempotency-Key": ""}),
    ("if-none-match-garbage", "read", {"If-None-Match": "W/W/W/\"\"\"*"}),
    ("if-none-match-latin1", "read", {"If-None-Match": b"\xff"}),
    ("if-none-match-5000-digits", "read", {"If-None-Match": 'W/"' + "9" * 5000 + '"'}),
    ("last-event-id-text", "stream", {"Last-Event-ID": "abc"}),
    ("last-event-id-huge", "stream", {"Last-Event-ID": "9" * 40}),
    ("last-event-id-negative", "stream", {"Last-Event-ID": "-2"}),
    ("last-event-id-float", "stream", {"Last-Event-ID": "1e3"}),
    ("accept-garbage", "read", {"Accept": "*/*;q=x, ;;, text/event-stream;q=2"}),
    ("accept-none", "read", {"Accept": "application/xml"}),
]

PATHS = [
    ("GET", "/v1/games/%ff"),
    ("GET", "/v1/games/%00" + "A" * 21),
    ("GET", "/v1/games/..%2f..%2fetc%2fpasswd"),
    ("GET", "/v1/games/" + "A" * 10000),
    ("GET", "/v1/games/{id}/log?after=1e3"),
    ("GET", "/v1/games/{id}/log?after=%00"),
    ("GET", "/v1/games/{id}/log?after=1&after=2"),
    ("GET", "/v1/games/{id}/log?limit=-1"),
    ("GET", "/v1/games/{id}/log?limit=" + "9" * 100),
    ("GET", "/v1/games/{id}/log?" + "x=1&" * 2000),
    ("GET", "/v1/games/{id}/stream?after=x"),
    ("GET", "/v1/games/{id}/score?%ff=%ff"),
    ("GET", "/v1/games/{id}/actions/extra"),
    ("PUT", "/v1/games/{id}"),
    ("DELETE", "/v1/games/{id}/actions"),
    ("PATCH", "/v1/games"),
    ("TRACE", "/v1/games"),
    ("POST", "/v1/games/{id}"),
    ("POST", "/healthz"),
    ("GET", "/v1/games/%7B%7D%7B%7D%7B%7D%7B%7D%7B%7D%7B%7D%7B"),
]

CORPUS_SIZE = 2 * len(BODIES) + 2 * len(CONTENT_TYPES) + len(HEADERS) + len(PATHS)
"""Requests of the in-process corpus (each body and content type goes to both POST routes)."""


def check(response: httpx.Response, expected: int | None = None) -> None:
    """Not a server error; an error is a problem details object; ``expected`` if given."""
    assert response.status_code < 500, (response.status_code, response.text[:300])
    if expected is not None:
        assert response.status_code == expected, (response.status_code, response.text[:300])
    if response.status_code >= 400 and response.request.method != "HEAD":
        assert response.headers["content-type"] == PROBLEM, response.headers
        problem = response.json()
        assert problem["status"] == response.status_code and problem["type"] and problem["detail"]


@dataclass
class Target:
    client: httpx.AsyncClient
    game: NewGame
    seat: int

    def route(self, which: str) -> tuple[str, str, dict[str, str]]:
        """Method, URL and base headers of a route."""
        if which == "create":
            return "POST", "/v1/games", {}
        if which == "act":
            return "POST", f"{self.game.url}/actions", self.game.auth(self.seat)
        if which == "stream":
            return "GET", f"{self.game.url}/stream", {}
        return "GET", self.game.url, {}

    async def unchanged_and_playable(self) -> None:
        view = (await self.client.get(self.game.url)).json()
        assert view["version"] == self.game.version, "a hostile request changed the game"
        assert (await self.client.get("/healthz")).status_code == 200
        action = (await legal(self.client, self.game, self.seat))[0]
        response = await self.client.post(f"{self.game.url}/actions", json=action, headers=self.game.auth(self.seat))
        assert response.status_code == 200, response.text
        self.game.version += 1


@pytest.fixture
async def target(shared_app: Callable[[Settings], Litestar], settings: Settings) -> AsyncIterator[Target]:
    """A live game on an app whose event streams end quickly (a stream that is accepted waits)."""
    app = shared_app(dataclasses.replace(settings, stream_max_duration=0.5))
    async with serve(app) as client:
        game = await create_game(client)
        yield Target(client, game, await awaited_seat(client, game))


@pytest.mark.parametrize("which", ["create", "act"])
async def test_hostile_bodies(target: Target, which: str) -> None:
    method, url, headers = target.route(which)
    for name, body, expected in BODIES:
        response = await target.client.request(method, url, content=body, headers={**headers, **JSON})
        try:
            check(response, expected)
            if expected is None:
                assert response.status_code >= 400 or which == "create", name  # no hostile action applies
        except AssertionError as exc:
            raise AssertionError(f"{which} {name}: {exc}") from None
    await target.unchanged_and_playable()


@pytest.mark.parametrize("which", ["create", "act"])
async def test_only_json_is_accepted(target: Target, which: str) -> None:
    method, url, headers = target.route(which)
    body = json.dumps({"players": 2} if which == "create" else {"type": "x", "seat": target.seat, "option": "x"})
    for content_type, expected in CONTENT_TYPES:
        sent = dict(headers)
        if content_type is not None:
            sent["Content-Type"] = content_type
        response = await target.client.request(method, url, content=body, headers=sent)
        check(response, expected)
        if expected is None:  # accepted as JSON: created, or refused by the rules
            assert response.status_code in (201, 409), (content_type, response.text)
    await target.unchanged_and_playable()


async def test_hostile_headers(target: Target) -> None:
    action = {"type": "x", "seat": target.seat, "option": "x"}
    for name, which, extra in HEADERS:
        method, url, headers = target.route(which)
        sent = {**headers, **extra, **(JSON if method == "POST" else {})}
        if which == "stream":
            url += "?after=1000000"  # nothing to wait for
        body = json.dumps(action) if method == "POST" else None
        response = await target.client.request(method, url, content=body, headers=sent)
        try:
            check(response)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from None
    await target.unchanged_and_playable()


async def test_hostile_paths_and_methods(target: Target) -> None:
    for method, template in PATHS:
        url = template.replace("{id}", target.game.id)
        response = await target.client.request(method, url, headers=JSON if method == "POST" else {})
        try:
            check(response)
        except AssertionError as exc:
            raise AssertionError(f"{method} {template}: {exc}") from None
    await target.unchanged_and_playable()


def test_corpus_size() -> None:
    """The corpus is what the docs say it is (docs/fuzzing.md quotes these numbers)."""
    doc = " ".join((Path(__file__).resolve().parents[3] / "docs" / "fuzzing.md").read_text(encoding="utf-8").split())
    quoted = re.search(r"a corpus of (\d+) hostile requests .*?, (\d+) raw requests", doc)
    assert quoted, "docs/fuzzing.md no longer quotes the corpus"
    assert (int(quoted[1]), int(quoted[2])) == (CORPUS_SIZE, len(RAW))
    assert CORPUS_SIZE >= 150
    print(f"hostile corpus: {CORPUS_SIZE} requests in-process, {len(RAW)} raw over TCP")


# -- a real server: what its HTTP parser refuses, and random bytes ------------------------------------

RAW: list[tuple[str, bytes]] = [
    ("garbage-request-line", b"GARBAGE\r\n\r\n"),
    ("binary-request-line", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 40 + b"\r\n\r\n"),
    ("space-in-header-name", b"GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: x\r\n\r\n"),
    ("invalid-content-length", b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n"),
    ("negative-content-length", b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n"),
    (
        "two-content-lengths",
        b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
    ),
    (
        "length-and-chunked",
        b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    ),
    (
        "bad-chunk-size",
        b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
    ),
    ("http-0.9", b"GET /healthz\r\n\r\n"),
    ("http-9.9", b"GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n"),
    ("nul-in-path", b"GET /v1/\x00games HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("header-without-colon", b"GET /healthz HTTP/1.1\r\nHost x\r\n\r\n"),
    ("obs-fold", b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n"),
    ("lf-only", b"GET /healthz HTTP/1.1\nHost: x\n\n"),
]


SERVER = pytest.mark.xdist_group("api-hostile-server")
"""The tests of the module's ``darkroad serve`` (:func:`server`), on one worker under ``--dist
loadgroup``: a module fixture is started once per worker that runs one of its tests, and CI's
four workers each started this one."""


@pytest.fixture(scope="module")
def server() -> Iterator[ApiServer]:
    # No rate limits: every random body must reach the parsers.
    unlimited = {f"DARKROAD_RATE_LIMIT_{budget}": "0" for budget in ("REQUESTS", "CREATES", "AUTH_FAILURES")}
    api = ApiServer(None, env=unlimited).start()
    yield api
    log = api.stop()
    assert "Traceback" not in log, log


@SERVER
@pytest.mark.parametrize(("name", "data"), RAW, ids=[name for name, _ in RAW])
def test_unparseable_requests_get_problems(server: ApiServer, name: str, data: bytes) -> None:
    """uvicorn's parser refuses these before the app sees them: still a problem details 400."""
    status, headers, body = parse_response(raw_exchange(server.port, data))
    if name == "http-0.9":  # read as HTTP/1.0 by the parser: a plain request
        assert status == 200
    else:
        assert status == 400
        assert headers["content-type"] == PROBLEM
        assert json.loads(body)["type"] == "bad-request"
    assert httpx.get(server.url + "/healthz").status_code == 200


@pytest.fixture(scope="module")
def live_game(server: ApiServer) -> Iterator[tuple[httpx.Client, dict[str, Any]]]:
    with httpx.Client(base_url=server.url, timeout=10) as client:
        created = client.post("/v1/games", json={"players": 2, "seed": 3})
        assert created.status_code == 201
        yield client, created.json()


VALID_BODIES = [
    b'{"players": 2, "seed": 1, "buildings": [], "variants": {"drafting": true}, "companions": []}',
    b'{"type": "plan", "seat": 0, "option": "slot1:die0", "label": "plan"}',
]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A valid body with a random slice replaced by random bytes."""
    body = draw(st.sampled_from(VALID_BODIES))
    start = draw(st.integers(0, len(body)))
    end = draw(st.integers(start, len(body)))
    return body[:start] + draw(st.binary(max_size=64)) + body[end:]


@SERVER
def test_random_bytes(live_game: tuple[httpx.Client, dict[str, Any]]) -> None:
    """Random and mutated bodies to both POST routes; then the server still serves the game."""
    client, game = live_game
    act_url = f"/v1/games/{game['id']}/actions"
    token = game["seats"][0]["token"]

    @hypothesis_settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        body=st.one_of(st.binary(max_size=1024), mutated()),
        route=st.sampled_from(["create", "act"]),
        content_type=st.sampled_from(["application/json", "application/json; charset=utf-8", "text/plain"]),
    )
    def run(body: bytes, route: str, content_type: str) -> None:
        if route == "create":
            response = client.post("/v1/games", content=body, headers={"Content-Type": content_type})
        else:
            headers = {"Content-Type": content_type, "Authorization": f"Bearer {token}"}
            response = client.post(act_url, content=body, headers=headers)
        assert response.status_code < 500, response.text[:300]
        if response.status_code >= 400:
            assert response.headers["content-type"] == PROBLEM

    run()
    assert client.get("/healthz").status_code == 200
    assert client.get(f"/v1/games/{game['id']}").status_code == 200
