"""The policy matrix: every operation of the committed OpenAPI document against every policy.

The operations are read from ``openapi/openapi.json``, not listed here, so an operation added
later is walked too and cannot miss a policy (see ``darkroad.api.http.policy``):

* a wrong seat token on an operation that checks tokens is a ``401`` that counts toward the
  client's failed-authentication budget, and once that is spent any request carrying a
  token is ``429`` with ``Retry-After``;
* every operation counts against its budget (``requests``, or ``create`` for the routes that
  make a game or hand out a seat; the probes against none), and a request over it is ``429``
  with ``Retry-After``;
* ``OPTIONS`` answers ``Allow`` listing exactly the documented methods, and any other method
  is ``405`` with that ``Allow``;
* every error is ``application/problem+json``;
* every request is counted in the metrics under its path's template;
* an answer to a request carrying a seat token is ``Cache-Control: private, no-store``;
* the request deadline: a request whose head does not arrive in time is ``408`` (on a real
  server, where the deadline is enforced).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import socket
import time
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from apiutil import PROBLEM, ApiServer, NewGame, create_game, hold_the_clock, parse_response, serve
from litestar import Litestar

from darkroad.api.http.policy import RouteTable
from darkroad.api.settings import Settings

DOCUMENT = json.loads((Path(__file__).resolve().parents[3] / "openapi" / "openapi.json").read_text())
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
OTHER_METHODS = ("GET", "PUT", "POST", "DELETE", "PATCH")
"""Methods tried on every path; those the document does not list there must be refused."""
PROBES = {"getHealth", "getReadiness", "getMetrics"}
"""Operations no rate limit applies to (load balancers and Prometheus call them all the time)."""
CREATES = {"createGame", "joinSeat", "importGame"}
"""Operations counted against the ``create`` budget (the document's descriptions say which)."""
WRONG = {"Authorization": "Bearer not-a-seat-token"}


@dataclasses.dataclass(frozen=True)
class Operation:
    path: str
    method: str
    id: str
    checks_tokens: bool
    """A seat token is looked at (its security names ``seatToken``): a wrong one is a ``401``."""
    has_body: bool

    def __str__(self) -> str:
        return self.id


def operations() -> list[Operation]:
    found = []
    default = DOCUMENT.get("security", [])
    for path, item in DOCUMENT["paths"].items():
        for method, operation in item.items():
            if method not in METHODS:
                continue
            security = operation.get("security", default)
            found.append(
                Operation(
                    path,
                    method.upper(),
                    operation["operationId"],
                    any("seatToken" in requirement for requirement in security),
                    "requestBody" in operation,
                )
            )
    return found


OPERATIONS = operations()
PATHS = sorted({operation.path for operation in OPERATIONS})


def documented(path: str) -> set[str]:
    return {method.upper() for method in DOCUMENT["paths"][path] if method in METHODS}


def test_the_matrix_reads_every_operation() -> None:
    assert len(OPERATIONS) >= 16
    assert {"submitAction", "listActions", "createGame", "getHealth"} <= {op.id for op in OPERATIONS}


@dataclasses.dataclass
class Table:
    """An app with a game on it: what the operations' paths and bodies need."""

    client: httpx.AsyncClient
    game: NewGame
    action: dict[str, Any]

    def url(self, operation: Operation | str) -> str:
        path = operation if isinstance(operation, str) else operation.path
        return path.replace("{game_id}", self.game.id).replace("{seat}", "1").replace("{version}", "0")

    def body(self, operation: Operation) -> dict[str, Any] | None:
        if not operation.has_body:
            return None
        bodies = {"createGame": {"players": 2}, "joinSeat": {"name": "Ada"},
                  "putSeatWebhook": {"url": "http://93.184.215.14/hook"}}
        return bodies.get(operation.id, self.action)

    async def call(self, operation: Operation, headers: dict[str, str] | None = None) -> httpx.Response:
        body = self.body(operation)
        url = self.url(operation)
        if operation.id == "getLog":
            url += "?wait=0"
        if operation.id == "streamEvents":  # a stream: its status and headers are enough
            async with self.client.stream(operation.method, url, headers=headers) as response:
                if response.status_code != 200:
                    await response.aread()
                return response
        return await self.client.request(operation.method, url, json=body, headers=headers)


@asynccontextmanager
async def table(apps: Callable[[Settings], Litestar], **limits: Any) -> AsyncIterator[Table]:
    """A game on the app ``apps`` gives for ``limits``: the conftest's ``shared_app`` (a few limits
    for a hundred tests: each test starts its app afresh, so only the routes and the metrics'
    counters carry over), or ``make_app`` for a test that reads the metrics."""
    app = apps(Settings(stream_max_duration=0.2, **limits))
    async with serve(app) as client:
        # A test that spends a budget expects the next request refused: no new window may start
        # in between (a window's edge, every minute of the wall clock, forgives the last one).
        hold_the_clock(app)
        game = await create_game(client, seed=3)
        view = (await client.get(game.url)).json()
        seat = view["awaiting"][0]
        actions = (await client.get(f"{game.url}/actions", headers=game.auth(seat))).json()["actions"]
        yield Table(client, game, actions[0])


def assert_problem(response: httpx.Response, status: int, kind: str) -> dict[str, Any]:
    assert response.status_code == status, (response.request.method, response.request.url, response.text)
    assert response.headers["content-type"] == PROBLEM, response.headers
    body: dict[str, Any] = response.json()
    assert body["type"] == kind and body["status"] == status, body
    return body


@pytest.mark.parametrize("operation", [op for op in OPERATIONS if op.checks_tokens], ids=str)
async def test_wrong_tokens_count_toward_429(shared_app: Callable[[Settings], Litestar], operation: Operation) -> None:
    """Every wrong token is a 401 problem that counts: the budget's next request is a 429."""
    budget = 3
    async with table(shared_app, rate_limit_auth_failures=budget) as t:
        for _ in range(budget):
            refused = await t.call(operation, WRONG)
            assert_problem(refused, 401, "invalid-token")
            assert refused.headers["www-authenticate"].startswith("Bearer")
        limited = await t.call(operation, WRONG)
        assert_problem(limited, 429, "rate-limited")
        assert int(limited.headers["retry-after"]) >= 1
        # With the budget spent, a request with the right token is refused too, on every
        # operation a rate limit applies to: a token-guessing client learns nothing more.
        for other in OPERATIONS:
            answer = await t.call(other, t.game.auth(0))
            if other.id in PROBES:
                assert answer.status_code != 429, other
            else:
                assert_problem(answer, 429, "rate-limited")
                assert int(answer.headers["retry-after"]) >= 1


async def test_forty_wrong_tokens_on_submit_action_meet_429(shared_app: Callable[[Settings], Litestar]) -> None:
    """The issue's case: 40 wrong tokens in a row on ``POST .../actions`` meet a 429 (default budget 30)."""
    async with table(shared_app) as t:
        operation = next(op for op in OPERATIONS if op.id == "submitAction")
        statuses = [(await t.call(operation, WRONG)).status_code for _ in range(40)]
        assert statuses[:30] == [401] * 30
        assert set(statuses[30:]) == {429}


@pytest.mark.parametrize("operation", [op for op in OPERATIONS if op.id not in PROBES], ids=str)
async def test_every_operation_counts_against_its_budget(
    shared_app: Callable[[Settings], Litestar], operation: Operation
) -> None:
    budget = 4
    creating = operation.id in CREATES
    limits = {"rate_limit_creates": budget} if creating else {"rate_limit_requests": budget + 4}
    async with table(shared_app, **limits) as t:
        # The table's set-up spent 1 create (the game) and 2 requests (its view and actions).
        spent = 1 if creating else 2
        for _ in range(budget - spent if creating else budget + 4 - spent):
            assert (await t.call(operation)).status_code != 429
        limited = await t.call(operation)
        assert_problem(limited, 429, "rate-limited")
        assert int(limited.headers["retry-after"]) >= 1


@pytest.mark.parametrize("operation", [op for op in OPERATIONS if op.id in PROBES], ids=str)
async def test_probes_count_against_no_budget(shared_app: Callable[[Settings], Litestar], operation: Operation) -> None:
    async with table(shared_app, rate_limit_requests=5) as t:
        for _ in range(10):
            assert (await t.call(operation)).status_code == 200


@pytest.mark.parametrize("path", PATHS)
async def test_options_lists_the_documented_methods_and_others_are_405(
    shared_app: Callable[[Settings], Litestar], path: str
) -> None:
    methods = documented(path)
    allow = methods | {"OPTIONS"}
    async with table(shared_app) as t:
        answer = await t.client.options(t.url(path))
        assert answer.status_code == 204
        assert {method.strip() for method in answer.headers["allow"].split(",")} == allow
        for method in OTHER_METHODS:
            if method in methods:
                continue
            refused = await t.client.request(method, t.url(path))
            assert_problem(refused, 405, "method-not-allowed")
            assert {m.strip() for m in refused.headers["allow"].split(",")} == allow


async def test_every_error_is_a_problem_and_every_request_is_counted(make_app: Callable[[Settings], Litestar]) -> None:
    """Errors of every operation (no token, a wrong one, an unknown game, a bad body) are problem
    details; the metrics count each request under its path's template."""
    async with table(make_app) as t:
        for operation in OPERATIONS:
            answers = [await t.call(operation, WRONG)]
            if "{game_id}" in operation.path:
                unknown = operation.path.replace("{game_id}", "A" * 22).replace("{seat}", "1").replace("{version}", "0")
                answers.append(await t.client.request(operation.method, unknown, json=t.body(operation)))
            if operation.has_body:
                answers.append(await t.client.request(operation.method, t.url(operation), content=b"{not json",
                                                      headers={"Content-Type": "application/json"}))
            for answer in answers:
                if answer.status_code >= 400:
                    assert answer.headers["content-type"] == PROBLEM, (operation, answer.status_code)
                    assert answer.json()["status"] == answer.status_code
        metrics = (await t.client.get("/metrics")).text
        for operation in OPERATIONS:
            assert f'method="{operation.method}",route="{operation.path}"' in metrics, operation


@pytest.mark.parametrize("operation", [op for op in OPERATIONS if op.checks_tokens], ids=str)
async def test_answers_to_a_seat_token_are_not_cached(
    shared_app: Callable[[Settings], Litestar], operation: Operation
) -> None:
    """Every answer that is not an error, to a request with a seat's token, is kept from caches."""
    async with table(shared_app) as t:
        answers = [await t.call(operation, t.game.auth(seat)) for seat in (0, 1)]
        # (a running game has no score, its seats are neither left nor overdue, a new one has
        # nothing to undo (tests/api/app/test_api_undo.py checks a successful undo's Cache-Control)
        # and no webhook to show or end)
        if operation.id not in ("getScore", "leaveSeat", "timeoutSeat", "undoAction", "getSeatWebhook",
                                "deleteSeatWebhook"):
            assert any(answer.status_code < 400 for answer in answers), (operation, [a.status_code for a in answers])
        for answer in answers:
            cache_control = answer.headers.get("cache-control", "")
            if answer.status_code < 400:  # (an event stream is ``no-cache``: never stored either)
                assert cache_control in ("private, no-store", "no-cache"), (operation, answer.status_code)
            else:  # an error shows no secret, and its headers are the document's
                assert "cache-control" not in answer.headers


# -- the request deadline, on a real server -----------------------------------------------

TIMEOUT = 1.0
SLACK = 4.0
"""How late an answer may come after the deadline: every operation's request is stalled at
once, on a machine that CI shares (a loaded one delayed answers past 2 s). Still well short of
the default deadline (10 s), and the answer names the deadline it enforced."""


@pytest.fixture(scope="module")
def server() -> Iterator[ApiServer]:
    api = ApiServer(None, env={"DARKROAD_REQUEST_TIMEOUT": str(TIMEOUT)}).start()
    yield api
    api.stop()


def _stalled(port: int, operation: Operation) -> tuple[float, bytes]:
    """A request of ``operation`` whose head stops half-way: when the server answered, and what."""
    path = operation.path.replace("{game_id}", "A" * 22).replace("{seat}", "1").replace("{version}", "0")
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT + SLACK + 5) as sock:
        sock.sendall(f"{operation.method} {path} HTTP/1.1\r\nHost: x\r\n".encode())
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return time.monotonic() - started, received


def test_every_operation_has_the_request_deadline(server: ApiServer) -> None:
    with ThreadPoolExecutor(len(OPERATIONS)) as pool:
        results = list(pool.map(lambda op: (op, _stalled(server.port, op)), OPERATIONS))
    for operation, (elapsed, received) in results:
        status, headers, body = parse_response(received)
        assert status == 408, (operation, received)
        assert headers["content-type"] == PROBLEM
        problem = json.loads(body)
        assert problem["type"] == "request-timeout"
        assert f"within {TIMEOUT:g} seconds" in problem["detail"], problem  # this server's deadline
        assert TIMEOUT * 0.9 <= elapsed <= TIMEOUT + SLACK, (operation, elapsed)


def test_the_policy_table_allows_what_the_document_lists(make_app: Callable[[Settings], Litestar]) -> None:
    """The policy layer's methods of each path (``Allow``, the 405s) are those of the app's own
    OpenAPI document, read from the same handlers Litestar documents."""
    app = make_app(Settings())
    table: RouteTable = app.policies.table  # type: ignore[attr-defined]
    methods = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
    document = {path: frozenset(method.upper() for method in methods if getattr(item, method, None) is not None)
                for path, item in (app.openapi_schema.paths or {}).items()}
    assert table.documented == document
    for route in table.routes:
        if route.template in document:
            assert route.documented == document[route.template] - {"OPTIONS"}
    games = next(route for route in table.routes if route.template == "/v1/games")
    assert games.documented == {"GET", "POST"}  # the document's, OPTIONS apart


def test_an_app_leaves_logging_to_the_process(make_app: Callable[[Settings], Litestar]) -> None:
    """``darkroad serve --log-level`` configures logging; building an app must not change it
    (Litestar's default logging configuration set the root logger to INFO)."""
    root = logging.getLogger()
    before = (root.level, list(root.handlers))
    make_app(Settings())
    assert (root.level, list(root.handlers)) == before


def test_every_documented_path_matches_its_route(make_app: Callable[[Settings], Litestar]) -> None:
    """``RouteTable.match``: every path of the document finds its own route (the most specific
    route first), and a path no route has finds none."""
    table: RouteTable = make_app(Settings()).policies.table  # type: ignore[attr-defined]
    for template in PATHS:
        path = re.sub(r"\{[a-z_]+\}", "ABCDEFGHJK", template)
        found = table.match(path)
        assert found is not None, path
        assert found.template == template
        assert table.match(path + "/") == found  # a trailing slash allowed
    assert table.match("/v1/games/ABCDEFGHJK/nowhere") is None
