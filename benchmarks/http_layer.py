"""Instructions per ``POST /v1/games/{id}/actions`` of the HTTP layer alone: the policy layer,
Litestar and the action handler, with ``Acting.act`` answering at once (a view of 4 kB), and of
a bare Litestar app with one ``POST`` handler declared in turn with more of what the action
handler declares. Counted by valgrind (the difference of ``--requests`` and 200 requests, so
start-up cancels out): the same figure on a quiet machine and on a busy one.

``benchmarks/instructions.py --workloads action`` counts a whole action; this says how much of
it is the HTTP layer, and what of that is Litestar's per-request machinery for what a handler
declares (docs/performance.md, "Session 10"):

  app       the darkroad app (memory store), ``Acting.act`` answering at once
  healthz   the darkroad app, ``GET /healthz`` (peer-perf's trivial GET: the per-request cost
            of every route, the policy layer's and Litestar's, before any game work)
  raw       a bare ASGI callable answering the same bytes (the loop's own cost)
  none      Litestar, a handler declaring nothing
  request   ... declaring the ``Request``
  path      ... and the ``game_id`` path parameter (a pattern and a length)
  headers   ... and three optional header parameters (``If-Match``, ``Prefer``,
            ``Idempotency-Key``), as ``submit_action`` declares them

    python benchmarks/http_layer.py [--variants app,healthz,raw,none,request,path,headers] [--baseline DIR]

``--baseline DIR``: also the ``app`` and ``healthz`` variants of a darkroad installation made with ``pip install
--no-deps --target DIR <tree>`` (``PYTHONPATH=DIR``). Needs valgrind.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/ is no package
from instructions import valgrind_count  # type: ignore[import-not-found]  # noqa: E402

VARIANTS = ("app", "healthz", "raw", "none", "request", "path", "headers")

_RUN = r'''
import asyncio, json, os, sys
from typing import Annotated, Any
N, VARIANT = int(sys.argv[1]), sys.argv[2]
VIEW = b'{"x":' + b"1" * 4000 + b"}"
HEADERS = [(b"content-type", b"application/json"), (b"authorization", b"Bearer abcdefabcdefabcdef"),
           (b"if-match", b'"6"'), (b"content-length", b"41")]
BODY = b'{"type":"travel","option":"r3","seat":0}'


def scope(path, method="POST", headers=HEADERS):
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
            "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "", "headers": headers,
            "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000), "state": {}}


async def receive():
    return {"type": "http.request", "body": BODY, "more_body": False}


async def send(message):
    if message["type"] == "http.response.start":
        assert message["status"] == 200, message


async def lifespan(app):
    started = asyncio.Event()

    async def lifespan_receive():
        if not started.is_set():
            return {"type": "lifespan.startup"}
        await asyncio.Event().wait()

    async def lifespan_send(message):
        if message["type"] == "lifespan.startup.complete":
            started.set()

    task = asyncio.create_task(app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, lifespan_receive,
                                   lifespan_send))
    await started.wait()
    return task


def bare(variant):
    from litestar import Litestar, Request, Response, post
    from litestar.params import HeaderParameter, PathParameter

    class Answer(Response[Any]):  # the view's bytes and headers, sent as they are
        def __init__(self):
            pass

        def to_asgi_response(self, app, request, **kwargs):
            return self

        async def __call__(self, scope, receive, send):
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/json"), (b"content-length", b"4006")]})
            await send({"type": "http.response.body", "body": VIEW, "more_body": False})

    route = "/v1/games/{game_id:str}/actions"
    GameId = Annotated[str, PathParameter(pattern="^[A-Za-z0-9_-]{8,40}$", max_length=40)]
    Header = lambda name: HeaderParameter(name=name)  # noqa: E731
    if variant == "none":
        @post(route, status_code=200)
        async def handler() -> Response[Any]:
            return Answer()
    elif variant == "request":
        @post(route, status_code=200)
        async def handler(request: Request[Any, Any, Any]) -> Response[Any]:
            return Answer()
    elif variant == "path":
        @post(route, status_code=200)
        async def handler(request: Request[Any, Any, Any], game_id: GameId) -> Response[Any]:
            return Answer()
    else:
        @post(route, status_code=200)
        async def handler(
            request: Request[Any, Any, Any], game_id: GameId,
            if_match: Annotated[str | None, Header("If-Match")] = None,
            prefer: Annotated[str | None, Header("Prefer")] = None,
            idempotency_key: Annotated[str | None, Header("Idempotency-Key")] = None,
        ) -> Response[Any]:
            return Answer()
    return Litestar([handler], logging_config=None)


async def main():
    path = "/v1/games/abcdefghijkl/actions"
    if VARIANT == "healthz":
        from darkroad.api.http.app import create_app_from_env

        app = create_app_from_env()
        task = await lifespan(app)  # kept: the loop holds only a weak reference to a task
        probe = scope("/healthz", "GET", [(b"host", b"127.0.0.1:8000")])
        for _ in range(N):
            await app({**probe, "state": {}}, receive, send)  # a scope of its own, as a server makes
        return
    if VARIANT == "app":
        # The rate limiter's exchange with the store runs every SYNC_INTERVAL of the wall clock:
        # under valgrind it would count as much as the machine's load says (as instructions.py).
        from darkroad.api.http import ratelimit
        from darkroad.api.app.values import ActResult

        ratelimit.SYNC_INTERVAL = 1e9
        from darkroad.api.http.app import create_app_from_env

        app = create_app_from_env()
        task = await lifespan(app)

        async def act(*args, **kwargs):
            return ActResult(7, VIEW, False)

        app.state.service.acting.act = act
        answer = []

        async def created(message):
            answer.append(message.get("body", b""))

        new = {"type": "http.request", "body": b'{"players":2,"seed":1}', "more_body": False}
        create = scope("/v1/games")
        create["headers"] = [(b"content-type", b"application/json"), (b"content-length", b"22")]

        async def receive_new():
            return new

        await app(create, receive_new, created)
        path = "/v1/games/%s/actions" % json.loads(b"".join(answer))["id"]
    elif VARIANT == "raw":
        async def app(scope, receive, send):
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": VIEW, "more_body": False})
    else:
        app = bare(VARIANT)
    for _ in range(N):
        await app(scope(path), receive, send)


asyncio.run(main())
'''


def count(variant: str, requests: int, pythonpath: str) -> int:
    """Instructions of one run of ``requests`` requests (cachegrind's ``I refs``)."""
    env = dict(os.environ, PYTHONHASHSEED="0", DARKROAD_BOTS="0", DARKROAD_RATE_LIMIT_REQUESTS=str(10**9))
    env.pop("DARKROAD_REDIS_URL", None)  # the memory store: the layer's work only
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    return int(valgrind_count(["-c", _RUN, str(requests), variant], env))


def per_request(variant: str, requests: int, pythonpath: str = "") -> float:
    """Instructions per request of ``variant``: ``requests`` less 200, per request."""
    return (count(variant, requests, pythonpath) - count(variant, 200, pythonpath)) / (requests - 200)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", default=",".join(VARIANTS), help=f"some of {', '.join(VARIANTS)}")
    parser.add_argument("--requests", type=int, default=1200, help="requests of the larger run (the smaller: 200)")
    parser.add_argument("--baseline", default="", help="also the app (app, healthz) of this installation (pip install --target DIR)")
    args = parser.parse_args()
    for variant in args.variants.split(","):
        if variant not in VARIANTS:
            sys.exit(f"unknown variant {variant!r}: one of {', '.join(VARIANTS)}")
        figure = per_request(variant, args.requests)
        line = f"{variant:8s} {figure:10,.0f} instructions a request"
        if variant in ("app", "healthz") and args.baseline:
            base = per_request(variant, args.requests, args.baseline)
            line += f"; baseline {base:,.0f} ({figure / base:.2f}x)"
        print(line, flush=True)


if __name__ == "__main__":
    main()
