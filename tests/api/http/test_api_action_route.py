"""The action route's adapter (``darkroad.api.http.action_route``) answers as Litestar's own route
for the same handler, byte for byte: a table of requests (valid, and wrong in each part a client
sends) goes through the app with the adapter and through the same app with the route left to
Litestar (the policy of ``POST`` the action without its adapter: a test-only construction), and
the status, the headers (in order) and the body must be the same. Each request goes to a game of
its own pair, the two games made with the same seed, so the only difference is the game's id
(put back as ``{id}`` before comparing). The table also says which requests the adapter serves
itself and which it hands to Litestar untouched, and the test checks that it did.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Annotated, Any

import pytest
from apiutil import NewGame, create_game, serve
from litestar import Litestar, Request, asgi, get, post
from litestar.logging import LoggingConfig
from litestar.params import HeaderParameter, PathParameter
from litestar.types import ASGIApp

from darkroad.api.http import action_route
from darkroad.api.http.action_route import ActionRoute
from darkroad.api.http.app import ACTION_ROUTE
from darkroad.api.http.policy import PolicedApp
from darkroad.api.http.problems import problem_details_plugin
from darkroad.api.metrics import Metrics
from darkroad.api.settings import Settings

Headers = list[tuple[bytes, bytes]]
JSON = (b"content-type", b"application/json")


@dataclasses.dataclass(frozen=True)
class Case:
    """One request of the table: what it changes of the defaults, and whether the adapter serves it."""

    name: str
    by: str = "adapter"
    """Who answers it: the ``adapter``, or Litestar, ``handed`` the request untouched by the adapter
    or given it by the policy layer (``litestar``: a path not the route's)."""
    path: str = "/v1/games/{id}/actions"
    headers: Callable[[dict[str, bytes]], Headers] | None = None
    """The request's headers, from the game's defaults (``token``, ``etag``, ``length``)."""
    body: bytes | None = None
    """The body (``None``: the game's first legal action), sent in ``chunks`` pieces."""
    chunks: int = 1
    disconnect: bool = False
    """The client goes away before sending its body."""
    acts: bool = False
    """A request that changes the game (its own pair of games); the others share a pair."""
    times: int = 1
    """How many times it is sent (a retry with the same ``Idempotency-Key``: replayed)."""


def usual(game: dict[str, bytes], *extra: tuple[bytes, bytes]) -> Headers:
    """An action's usual headers (``Host``, its JSON body, the seat's token, ``If-Match``), then ``extra``."""
    return [(b"host", b"testserver"), JSON, (b"authorization", b"Bearer " + game["token"]),
            (b"if-match", game["etag"]), (b"content-length", game["length"]), *extra]  # fmt: skip


def without(name: bytes, *extra: tuple[bytes, bytes]) -> Callable[[dict[str, bytes]], Headers]:
    return lambda game: [header for header in usual(game, *extra) if header[0] != name]


def changed(name: bytes, value: bytes) -> Callable[[dict[str, bytes]], Headers]:
    return lambda game: [(n, value if n == name else v) for n, v in usual(game)]


def plus(*extra: tuple[bytes, bytes]) -> Callable[[dict[str, bytes]], Headers]:
    return lambda game: usual(game, *extra)


CASES = [
    Case("an action", acts=True),
    Case("an action without If-Match", acts=True, headers=without(b"if-match")),
    Case("an action, If-Match *", acts=True, headers=changed(b"if-match", b"*")),
    Case("an action, Prefer: return=minimal", acts=True, headers=plus((b"prefer", b"return=minimal"))),
    Case("an action, Prefer of another preference", acts=True, headers=plus((b"prefer", b'respond-async, wait=5'))),
    Case("an action with an Idempotency-Key, sent twice", acts=True, times=2,
         headers=plus((b"idempotency-key", b"k-1"))),
    Case("an action in Hungarian", acts=True, headers=plus((b"accept-language", b"hu"))),
    Case("an action, headers named in capitals", acts=True,
         headers=lambda game: [(name.title(), value) for name, value in usual(game)]),
    Case("an action, its body in three pieces", acts=True, chunks=3),
    Case("an action without Content-Length", acts=True, headers=without(b"content-length")),
    Case("an action, If-Match twice (the first counts)", acts=True, headers=plus((b"if-match", b'"999"'))),
    Case("a game id off the pattern", by="handed", path="/v1/games/!!!!!!!!!!!!!!!!!!!!!!/actions"),
    Case("a game id too short", by="handed", path="/v1/games/abc/actions"),
    Case("a game id too long", by="handed", path="/v1/games/{id}x/actions"),
    Case("an unknown game", path="/v1/games/AAAAAAAAAAAAAAAAAAAAAA/actions"),
    Case("a trailing slash", by="handed", path="/v1/games/{id}/actions/"),
    Case("another route's fixed segment in the game id's place", by="handed", path="/v1/games/import/actions"),
    Case("an empty game id", by="litestar", path="/v1/games//actions"),
    Case("a Host Litestar refuses", by="handed", headers=changed(b"host", b"bad host")),
    Case("a Host of characters the adapter leaves to Litestar", by="handed", headers=changed(b"host", b"my_host")),
    Case("no token", headers=without(b"authorization")),
    Case("another scheme", headers=changed(b"authorization", b"Basic abc")),
    Case("an empty bearer token", headers=changed(b"authorization", b"Bearer ")),
    Case("a token of no seat", headers=changed(b"authorization", b"Bearer nope")),
    Case("no Content-Type", headers=without(b"content-type")),
    Case("Content-Type text/plain", headers=changed(b"content-type", b"text/plain")),
    Case("Content-Type JSON in Latin-1", headers=changed(b"content-type", b"application/json; charset=latin-1")),
    Case("Content-Length not a number", headers=changed(b"content-length", b"abc")),
    Case("Content-Length over the limit", headers=changed(b"content-length", b"99999999")),
    Case("a body over the limit", headers=without(b"content-length"), body=b" " * 70_000),
    Case("a body that is not JSON", body=b"{not json"),
    Case("a body that is not an action", body=b'{"type": 1}'),
    Case("a body nested too deep", body=b"[" * 40 + b"]" * 40),
    Case("a body that is not UTF-8", body=b'{"type": "\xff", "seat": 0, "option": "o"}'),
    Case("an illegal action", body=b'{"type": "travel", "seat": 0, "option": "nowhere"}'),
    Case("another seat's action", body=b'{"type": "travel", "seat": 1, "option": "nowhere"}'),
    Case("an undo sent as an action", body=b'{"type": "undo", "seat": 0, "option": ""}'),
    Case("a stale If-Match", headers=changed(b"if-match", b'"99"')),
    Case("an If-Match naming no version", headers=changed(b"if-match", b"xyz")),
    Case("an If-Match of digits past the limit", headers=changed(b"if-match", b'"' + b"9" * 40 + b'"')),
    Case("an empty Idempotency-Key", headers=plus((b"idempotency-key", b""))),
    Case("an Idempotency-Key too long", headers=plus((b"idempotency-key", b"k" * 256))),
    Case("an error in Hungarian", headers=plus((b"accept-language", b"hu")), body=b"{not json"),
    Case("an error with Prefer: return=minimal", headers=plus((b"prefer", b"return=minimal")), body=b"[]"),
    Case("a header of Latin-1 bytes", headers=changed(b"if-match", b'"\xe9"')),
    Case("a client gone before its body", disconnect=True),
]


@pytest.fixture
def app(make_app: Callable[[Settings], Litestar]) -> PolicedApp:
    """An app with no rate limits (the table spends budgets in both passes alike)."""
    made = make_app(Settings(rate_limit_requests=0, rate_limit_creates=0, rate_limit_auth_failures=0))
    assert isinstance(made, PolicedApp)
    return made


async def exchange(app: Litestar, path: str, headers: Headers, chunks: list[bytes], *,
                   disconnect: bool = False) -> tuple[int, Headers, bytes]:  # fmt: skip
    """One request through ``app`` as an ASGI server sends it: the answer's status, headers and body."""
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "", "headers": headers,
        "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000), "state": {},
    }  # fmt: skip
    messages: list[dict[str, Any]] = [
        {"type": "http.request", "body": chunk, "more_body": i < len(chunks) - 1} for i, chunk in enumerate(chunks)
    ]
    if disconnect:
        messages = []
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)  # type: ignore[arg-type]
    start, *rest = sent
    assert start["type"] == "http.response.start"
    return start["status"], [(bytes(n), bytes(v)) for n, v in start["headers"]], b"".join(m["body"] for m in rest)


async def game_defaults(client: Any, game: NewGame) -> tuple[dict[str, bytes], bytes]:
    """The usual headers' values of ``game`` (its awaited seat's token, its ``ETag``) and its first legal action."""
    view = (await client.get(game.url)).json()
    seat = int(view["awaiting"][0])
    listed = await client.get(f"{game.url}/actions", headers=game.auth(seat))
    action = listed.json()["actions"][0]
    body = b'{"type": "%s", "seat": %d, "option": "%s"}' % (action["type"].encode(), seat, action["option"].encode())
    defaults = {"token": game.tokens[seat].encode(), "etag": listed.headers["etag"].encode(),
                "length": str(len(body)).encode()}  # fmt: skip
    return defaults, body


def pieces(body: bytes, chunks: int) -> list[bytes]:
    size = -(-len(body) // chunks)
    return [body[i : i + size] for i in range(0, len(body), size)] or [b""]


async def compare(app: PolicedApp) -> int:
    """Send :data:`CASES` through ``app`` with and without its adapter and assert the answers are the
    same, byte for byte; the number of requests compared (also run by ``litestar_smoke.py``)."""
    compared = 0
    route = app.policies.table.match("/v1/games/x/actions")
    assert route is not None and route.template == ACTION_ROUTE
    adapted = route.methods["POST"]
    adapter = adapted.app
    assert isinstance(adapter, ActionRoute)
    litestar_only = dataclasses.replace(adapted, app=None)
    kept = adapted
    handed: list[str] = []
    to_litestar = adapter.litestar

    async def counted(scope: Any, receive: Any, send: Any) -> None:
        handed.append(scope["path"])
        await to_litestar(scope, receive, send)

    adapter.litestar = counted
    called: list[str] = []

    async def adapter_called(scope: Any, receive: Any, send: Any) -> None:
        called.append(scope["path"])
        await adapter(scope, receive, send)

    adapted = dataclasses.replace(adapted, app=adapter_called)
    async with serve(app) as client:
        shared = [await create_game(client, seed=7) for _ in range(2)]
        shared_defaults = [await game_defaults(client, game) for game in shared]
        for case in CASES:
            games, defaults = shared, shared_defaults
            if case.acts:
                games = [await create_game(client, seed=7) for _ in range(2)]
                defaults = [await game_defaults(client, game) for game in games]
            answers = []
            for game, (values, action), policy in zip(games, defaults, (adapted, litestar_only), strict=True):
                route.methods["POST"] = policy
                handed.clear()
                called.clear()
                body = action if case.body is None else case.body
                headers = (case.headers or usual)(values) if case.body is None else \
                    [(n, str(len(body)).encode() if n == b"content-length" else v)
                     for n, v in (case.headers or usual)(values)]  # fmt: skip
                for _ in range(case.times):
                    status, answer_headers, answer = await exchange(
                        app, case.path.format(id=game.id), headers, pieces(body, case.chunks),
                        disconnect=case.disconnect,
                    )
                    mark = game.id.encode()
                    answers.append((status, [(n, v.replace(mark, b"{id}")) for n, v in answer_headers],
                                    answer.replace(mark, b"{id}")))  # fmt: skip
                if policy is adapted:
                    by = "litestar" if not called else "handed" if handed else "adapter"
                    assert by == case.by, (case.name, by)
            route.methods["POST"] = kept
            half = len(answers) // 2
            assert answers[:half] == answers[half:], case.name
            compared += half
    return compared


async def test_the_adapter_answers_as_litestar_byte_for_byte(app: PolicedApp) -> None:
    assert await compare(app) == sum(case.times for case in CASES)


def test_the_app_serves_an_action_through_the_adapter_only(app: PolicedApp) -> None:
    """``POST`` on the action's path, and nothing else: its other methods and every other route
    are Litestar's."""
    served = {(route.template, method): policy.app for route in app.policies.table.routes
              for method, policy in route.methods.items() if policy.app is not None}  # fmt: skip
    assert list(served) == [(ACTION_ROUTE, "POST")]
    assert isinstance(served[ACTION_ROUTE, "POST"], ActionRoute)
    assert app.policies.table.match(ACTION_ROUTE).methods["GET"].app is None  # type: ignore[union-attr]


def _noting(app: ASGIApp) -> ASGIApp:
    """A middleware (that adds nothing)."""
    return app


async def _hook(*args: Any) -> None:
    return None


@post("/games/{game_id:str}/actions", status_code=200)
async def _plain(
    request: Request[Any, Any, Any],
    game_id: Annotated[str, PathParameter(pattern="^[a-z]+$", max_length=8)],
    prefer: Annotated[str | None, HeaderParameter(name="Prefer")] = None,
) -> None:
    """A handler the adapter could serve (unless the app or the handler adds what it would skip)."""


@pytest.mark.parametrize(
    "config",
    [
        {},
        {"middleware": [_noting]},
        {"before_send": [_hook]},
        {"after_exception": [_hook]},
        {"before_request": _hook},
        {"after_request": _hook},
        {"after_response": _hook},
        {"guards": [_hook]},
        {"logging_config": LoggingConfig()},
    ],
    ids=lambda config: ",".join(config) or "plain",
)
def test_the_adapter_is_built_only_for_what_it_serves_as_litestar_does(config: dict[str, Any]) -> None:
    """Anything of the app or the handler the adapter would skip (middleware, hooks, guards)
    leaves the route to Litestar; so does a parameter it does not read as Litestar does."""
    options = {"logging_config": None, **config}
    app = PolicedApp([_plain], metrics=Metrics(), plugins=[problem_details_plugin()], **options)
    built = ActionRoute.of(app, "/games/{game_id}/actions", "POST", app.litestar)
    assert (built is not None) is (not config), config

    @get("/other/{n:int}")
    async def typed(request: Request[Any, Any, Any], n: Annotated[int, PathParameter()]) -> None:
        """An int path parameter: Litestar's to convert."""

    other = PolicedApp([typed], metrics=Metrics(), plugins=[problem_details_plugin()], logging_config=None)
    bare = PolicedApp([_plain], metrics=Metrics(), logging_config=None)
    assert ActionRoute.of(bare, "/games/{game_id}/actions", "POST", bare.litestar) is None  # no handler of every error
    assert ActionRoute.of(other, "/other/{n}", "GET", other.litestar) is None
    assert action_route._HOST.fullmatch(b"127.0.0.1:8000") and not action_route._HOST.fullmatch(b"a b")


@post("/games/{game_id:str}/actions", status_code=200)
async def _constrained(
    request: Request[Any, Any, Any],
    game_id: Annotated[str, PathParameter(max_length=8)],
    prefer: Annotated[str | None, HeaderParameter(name="Prefer", max_length=20)] = None,
) -> None:
    """A header with a constraint: Litestar's signature model checks it, the adapter does not."""


@asgi("/games", is_mount=True, copy_scope=True)
async def _mount(scope: Any, receive: Any, send: Any) -> None:
    """A mounted app whose path is a prefix of the route's."""


def test_the_adapter_leaves_to_litestar_what_it_does_not_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """Layered parameters (Litestar checks them on every handler of their layer), a header
    parameter with a constraint, a mounted app over the route, and a Litestar newer than the
    tests run the adapter on: each leaves the route to Litestar. A request naming another route's
    fixed segment in the game id's place is Litestar's too (its router follows the fixed one)."""

    def built(*handlers: Any, **options: Any) -> ActionRoute | None:
        app = PolicedApp(list(handlers), metrics=Metrics(), plugins=[problem_details_plugin()], logging_config=None,
                         **options)  # fmt: skip
        return ActionRoute.of(app, "/games/{game_id}/actions", "POST", app.litestar)

    assert built(_plain) is not None
    assert built(_plain, parameters={"tenant": HeaderParameter(name="X-Tenant", annotation=str)}) is None
    assert built(_constrained) is None
    assert built(_plain, _mount) is None
    monkeypatch.setattr(action_route, "_version", lambda: (action_route.NEWEST[0], action_route.NEWEST[1] + 1))
    assert built(_plain) is None


def test_the_game_id_s_place_knows_the_other_routes_fixed_segments(app: PolicedApp) -> None:
    route = app.policies.table.match(ACTION_ROUTE).methods["POST"].app  # type: ignore[union-attr]
    assert isinstance(route, ActionRoute)
    (game_id,) = route._parameters
    assert "import" in game_id.fixed
    assert route._path.fullmatch("/v1/games/import/actions") is None
    assert route._path.fullmatch("/v1/games/imports-abcdefghijklmn/actions") is not None
