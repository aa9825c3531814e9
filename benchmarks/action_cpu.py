"""CPU time per ``POST /v1/games/{id}/actions`` inside one process: the whole ASGI app
(Litestar's router, the middlewares, the action endpoint, the service, the Redis store)
called directly, one request at a time, without an HTTP server or sockets to the client.

For comparing two trees on a shared machine, where ``benchmarks/api.py``'s throughput
swings with other people's load: other work slows a process down but rarely makes its
fastest batch slower, so this prints the least CPU time per action over ``--batches``
batches (``time.process_time``: this process only). Run it for each tree in turn,
alternating (``PYTHONPATH=DIR`` for an installation made with ``pip install --no-deps
--target DIR <tree>``, as ``benchmarks/api.py --baseline`` does), and compare the figures.

Not measured here: uvicorn (parsing, the socket writes) and what concurrency changes (one
request at a time means one Redis pipeline per action, where a loaded server batches
several commits in one). ``--direct`` calls ``GameService.act`` itself, leaving out the
app around it.

``--parallel N`` plays N games at once (each game's actions in turn), so that their commits
share Redis pipelines as in a loaded server: what a pipeline costs is then shared too.

``--webhooks``: every seat of the games subscribed to a webhook (what the commits pay for it;
no worker runs, so nothing is delivered).

``--language hu``: every action sent with a Hungarian browser's ``Accept-Language`` (its answer,
the seat's view, in Hungarian: the decision's prompt translated, the tag of its language).

``--profile FILE``: the last batch's measured part under cProfile (``python -m pstats FILE``):
where an action's time goes, function by function (the profiler's own cost inflates small
functions: rank with it, measure with instructions).

    python benchmarks/action_cpu.py [--batches 4] [--games 16] [--direct] [--parallel N] [--webhooks]
                                    [--language hu] [--profile FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from darkroad.core import Engine


def _sibling(name: str) -> Any:
    """The module of this folder's ``name``.py (benchmarks/ is no package)."""
    spec = importlib.util.spec_from_file_location(f"_benchmark_{name}", Path(__file__).resolve().parent / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)  # dataclasses look it up
    spec.loader.exec_module(module)
    return module


bench = _sibling("api")
ACTIONS_PER_GAME = 200

Message = dict[str, Any]


async def call(app: Any, method: str, path: str, headers: dict[str, str], body: bytes = b"") -> tuple[int, bytes]:
    """One request through the ASGI ``app``: its status and body."""
    raw = [(name.lower().encode(), value.encode()) for name, value in headers.items()]
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
        "headers": [*raw, (b"content-length", str(len(body)).encode())],
        "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000), "state": {},
    }  # fmt: skip
    messages = [{"type": "http.request", "body": body, "more_body": False}]
    status, answer = 0, b""

    async def receive() -> Message:
        if messages:
            return messages.pop()
        await asyncio.Event().wait()  # no disconnect: the request is answered first
        raise AssertionError

    async def send(message: Message) -> None:
        nonlocal status, answer
        if message["type"] == "http.response.start":
            status = message["status"]
        else:
            answer += message.get("body", b"")

    await app(scope, receive, send)
    return status, answer


async def _play_in_parallel(app: Any, requests: list[tuple[str, dict[str, str], bytes]], parallel: int) -> None:
    """``requests`` game by game, ``parallel`` games at a time (each game's actions in turn), so
    that their commits share Redis pipelines as in a loaded server."""
    by_game: dict[str, list[tuple[dict[str, str], bytes]]] = {}
    for game_id, headers, body in requests:
        by_game.setdefault(game_id, []).append((headers, body))

    async def play(game_id: str, actions: list[tuple[dict[str, str], bytes]]) -> None:
        for headers, body in actions:
            status, raw = await call(app, "POST", f"/v1/games/{game_id}/actions", headers, body)
            assert status == 200, raw

    games = list(by_game.items())
    for start in range(0, len(games), parallel):
        await asyncio.gather(*(play(game_id, actions) for game_id, actions in games[start : start + parallel]))


LANGUAGES = {"hu": "hu-HU,hu;q=0.9,en-US;q=0.8,en;q=0.7"}
"""``Accept-Language`` of ``--language``: what a Hungarian Chromium sends."""


async def measure(batches: int, games: int, direct: bool, parallel: int = 1, webhook: str | None = None,
                  language: str | None = None, profile: str | None = None, seeds: int = 0) -> float:
    try:  # this tree's layout, else a baseline's from before the layers (api/app.py)
        from darkroad.api.http.app import create_app_from_env
    except ImportError:
        from darkroad.api.app import create_app_from_env  # type: ignore[attr-defined,no-redef]

    app: Any = create_app_from_env()
    started = asyncio.Event()

    async def lifespan_receive() -> Message:
        if not started.is_set():
            return {"type": "lifespan.startup"}
        await asyncio.Event().wait()  # runs until the process ends
        raise AssertionError

    async def lifespan_send(message: Message) -> None:
        if message["type"] == "lifespan.startup.complete":
            started.set()

    lifespan = asyncio.create_task(app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}},
                                       lifespan_receive, lifespan_send))  # fmt: skip
    await started.wait()
    # Every batch plays games of its own (seeds), not the last batch's again: a server's views
    # are of new positions, which nothing it keeps by value has seen.
    seeds = seeds or games * batches
    scripted = bench.scripts(Engine.load(), seeds, seeds * ACTIONS_PER_GAME)[:seeds]
    best = float("inf")
    for batch in range(batches):
        requests = []
        played = [scripted[(batch * games + i) % seeds] for i in range(games)]
        for script in played:  # new games every batch, created outside the measured time
            new = json.dumps({"players": 2, "seed": script.seed}).encode()
            status, raw = await call(app, "POST", "/v1/games", {"Content-Type": "application/json"}, new)
            assert status == 201, raw
            created = json.loads(raw)
            tokens = {seat["seat"]: seat["token"] for seat in created["seats"]}
            version = created["version"]
            for seat, token in tokens.items() if webhook else ():  # both seats subscribed
                status, raw = await call(app, "PUT", f"/v1/games/{created['id']}/seats/{seat}/webhook",
                                         {"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
                                         json.dumps({"url": webhook}).encode())
                assert status == 201, raw
            for action in script.actions[:ACTIONS_PER_GAME]:
                headers = {"Content-Type": "application/json", "Authorization": f"Bearer {tokens[action['seat']]}",
                           "If-Match": f'"{version}"'}  # fmt: skip
                if language:  # (If-Match "v" still: a baseline before languages reads no other form)
                    headers["Accept-Language"] = LANGUAGES[language]
                requests.append((created["id"], headers, json.dumps(action).encode()))
                version += 1
        service = app.state.service
        profiler = cProfile.Profile(time.process_time) if profile else None
        if profiler is not None:
            profiler.enable()
        begun = time.process_time()
        in_parallel = parallel > 1 and not direct
        if in_parallel:
            await _play_in_parallel(app, requests, parallel)
        for game_id, headers, body in [] if in_parallel else requests:
            if direct and hasattr(service, "acting"):  # the service in pieces: domain values
                action = service.engine.action_from_json(json.loads(body))
                from darkroad.api.app.values import Expected

                token = headers["Authorization"].removeprefix("Bearer ")
                version = int(headers["If-Match"].strip('"'))
                await service.acting.act(game_id, token, action, Expected(frozenset({version})), None)
            elif direct:
                await service.act(game_id, headers["Authorization"], body, headers["If-Match"], None)
            else:
                status, raw = await call(app, "POST", f"/v1/games/{game_id}/actions", headers, body)
                assert status == 200, raw
        best = min(best, (time.process_time() - begun) / len(requests))
        if profiler is not None and profile:
            profiler.disable()
            profiler.dump_stats(profile)  # the last batch's
    lifespan.cancel()
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, default=4, help="batches measured (the fastest counts)")
    parser.add_argument("--games", type=int, default=16, help=f"games per batch, {ACTIONS_PER_GAME} actions each at most")
    parser.add_argument("--direct", action="store_true", help="call GameService.act, not the ASGI app")
    parser.add_argument("--webhooks", action="store_true",
                        help="every seat subscribed to a webhook (the commits' part; no worker delivers here)")
    parser.add_argument("--language", choices=sorted(LANGUAGES), default=None,
                        help="actions sent with this language's Accept-Language (a translated answer)")
    parser.add_argument("--parallel", type=int, default=1,
                        help="games played at once through the app (their commits share pipelines)")
    parser.add_argument("--seeds", type=int, default=0,
                        help="games scripted (seeds 0..N-1; default games x batches): batch k plays the "
                             "next --games of them, so that no batch repeats another's positions")
    parser.add_argument("--profile", metavar="FILE",
                        help="write the last batch's cProfile statistics (CPU time) to FILE (pstats)")
    args = parser.parse_args()
    if shutil.which("redis-server") is None:
        sys.exit("redis-server is not installed")
    os.environ.update({f"DARKROAD_RATE_LIMIT_{budget}": str(10**9) for budget in bench.RATE_LIMITED})
    with tempfile.TemporaryDirectory() as directory:
        port = bench.free_port()
        with bench.running(bench.redis_server(port, directory), port):
            os.environ["DARKROAD_REDIS_URL"] = f"redis://127.0.0.1:{port}/0"
            if args.webhooks:  # a receiver nobody reads (no worker runs: DARKROAD_BOTS=0)
                os.environ.update({"DARKROAD_WEBHOOK_ALLOW_PRIVATE": "1", "DARKROAD_BOTS": "0"})
            webhook = "http://127.0.0.1:9/hook" if args.webhooks else None
            per_action = asyncio.run(measure(args.batches, args.games, args.direct, args.parallel, webhook,
                                             args.language, args.profile, args.seeds))
    what = "GameService.act" if args.direct else "POST /v1/games/{id}/actions through the app"
    if args.parallel > 1 and not args.direct:
        what += f", {args.parallel} games at once"
    if args.webhooks:
        what += ", every seat subscribed to a webhook"
    if args.language:
        what += f", Accept-Language: {LANGUAGES[args.language]}"
    print(f"{per_action * 1e6:.1f} us CPU per action ({what}; the fastest of {args.batches} batches)")


if __name__ == "__main__":
    main()
