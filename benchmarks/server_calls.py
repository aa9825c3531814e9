"""Time per call, and per action, of chosen functions inside a loaded ``darkroad serve``.

A function timed alone in a loop (``timeit``) runs with its code and data hot in the
processor's caches; inside a server under load, between two calls of it the server runs
everything else, and the same call costs two to three times as long (a view: about 13 µs in
a loop, about 39 µs in the server). Profilers that sample the stack blur a second way: they
cost the server more than the calls they measure. This runs the server as
``benchmarks/api.py`` does (64 games in parallel, the Redis store), with each function of
``--functions`` wrapped by a timer (``time.perf_counter`` before and after: about 0.3 µs
added to each call, counted in its figure), and prints, for each, the calls per action and
the time per call and per action. The wrapping happens in the server process, from a
``sitecustomize`` module this puts first on its ``PYTHONPATH``.

    python benchmarks/server_calls.py [--functions MODULE:QUALNAME,...] [--seconds 10]
                                      [--players 2] [--followers] [--baseline DIR]

``--followers``: after each action every other seat reads its view (``GET /v1/games/{id}``),
as clients following the game at a table do; the per-action figures then include those reads.

Only synchronous functions give a CPU time (a coroutine's time would include its waits).
The figures of nested functions include each other's. ``--baseline DIR``: the same for a
darkroad installation made with ``pip install --no-deps --target DIR <tree>``, measured
after this tree's (a function it lacks is reported absent).
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from darkroad.core import Engine

sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/ is no package
from action_cpu import bench  # type: ignore[import-not-found]  # noqa: E402  (benchmarks/api.py, as action_cpu.py loads it)

FUNCTIONS = (
    "darkroad.core.engine:Engine.apply",
    "darkroad.core.engine:Engine.view",
    "darkroad.core.engine:Engine.pack",
    "darkroad.core.engine:Engine.broken_invariants",
    "darkroad.core.undo:track",
    "darkroad.core.view:_player",
    "darkroad.core.view:_storage",
    "darkroad.api.app.reading:Reading.view_of",
    "darkroad.api.app.repository:GameRepository.stored_events",
    "darkroad.api.app.auth:hash_token",
    "darkroad.api.store.batcher:Batcher.call",
)

# The server's sitecustomize: wraps each function of DARKROAD_CALLS with a timer, and rewrites
# DARKROAD_CALLS_FILE with the totals every 1,000 timed calls (repr of {name: [calls, seconds]},
# a name the tree lacks: None).
_SITECUSTOMIZE = '''
import importlib, os, time

def _wrap(target, totals, counter):
    module_name, qualname = target.split(":")
    try:
        owner = importlib.import_module(module_name)
        *path, name = qualname.split(".")
        for part in path:
            owner = getattr(owner, part)
        original = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
    except (ImportError, AttributeError, KeyError):
        totals[target] = None
        return
    static = isinstance(original, staticmethod)
    function = original.__func__ if static else original
    total = totals[target] = [0, 0.0]
    clock, path_ = time.perf_counter, os.environ["DARKROAD_CALLS_FILE"]

    def timed(*args, **kwargs):
        began = clock()
        try:
            return function(*args, **kwargs)
        finally:
            total[0] += 1
            total[1] += clock() - began
            counter[0] += 1
            if counter[0] % 1000 == 0:
                with open(path_ + ".new", "w") as out:
                    out.write(repr(totals))
                os.replace(path_ + ".new", path_)

    setattr(owner, name, staticmethod(timed) if static else timed)

if os.environ.get("DARKROAD_CALLS"):
    _totals, _counter = {}, [0]
    for _target in os.environ["DARKROAD_CALLS"].split(","):
        _wrap(_target, _totals, _counter)
'''

Totals = dict[str, "list[float] | None"]


def _read(path: Path) -> Totals:
    """The totals the server wrote last (none yet: empty). They lag by fewer than 1,000 timed
    calls, against the tens of thousands a run times."""
    if not path.exists():
        return {}
    totals: Totals = ast.literal_eval(path.read_text())
    return totals


async def play_and_follow(port: int, games: list[Any], seconds: float, parallel: int) -> int:
    """Play ``games`` (``parallel`` at a time) for ``seconds``, every other seat reading its view
    after each action; returns the actions played."""
    queue = list(games)
    deadline = time.perf_counter() + seconds
    played = 0

    async def worker() -> None:
        nonlocal played
        connection = await bench.Connection.open(port)
        while queue and time.perf_counter() < deadline:
            script = queue.pop()
            new = json.dumps({"players": bench.PLAYERS, "seed": script.seed}).encode()
            status, raw = await connection.request("POST", "/v1/games", {"Content-Type": "application/json"}, new)
            assert status == 201, raw
            created = json.loads(raw)
            tokens = {seat["seat"]: f"Bearer {seat['token']}" for seat in created["seats"]}
            url, version = f"/v1/games/{created['id']}", created["version"]
            for action in script.actions:
                if time.perf_counter() >= deadline:
                    break
                headers = {"Content-Type": "application/json", "Authorization": tokens[action["seat"]],
                           "If-Match": f'"{version}"'}
                status, raw = await connection.request("POST", f"{url}/actions", headers, json.dumps(action).encode())
                assert status == 200, raw
                version += 1
                played += 1
                for seat, token in tokens.items():
                    if seat != action["seat"]:
                        status, raw = await connection.request("GET", url, {"Authorization": token})
                        assert status == 200, raw
        connection.close()

    await asyncio.gather(*(worker() for _ in range(parallel)))
    return played


def measure(games: list[Any], functions: list[str], seconds: float, warmup: float, parallel: int,
            pythonpath: str | None, followers: bool = False) -> tuple[int, Totals, Totals]:
    """One server: (actions played, the totals after the warm-up, the totals after ``seconds``)."""
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        (folder / "site").mkdir()
        (folder / "site" / "sitecustomize.py").write_text(_SITECUSTOMIZE)
        calls = folder / "calls"
        env = {"PYTHONHASHSEED": "0", "DARKROAD_CALLS": ",".join(functions), "DARKROAD_CALLS_FILE": str(calls),
               "PYTHONPATH": os.pathsep.join([str(folder / "site"), *([pythonpath] if pythonpath else [])])}
        options = ["--bots", "0"] if pythonpath is None else []  # a tree from before the bot workers has no --bots
        redis_port, api_port = bench.free_port(), bench.free_port()
        with bench.running(bench.redis_server(redis_port, directory), redis_port):
            command = bench.api_server(api_port, "--redis-url", f"redis://127.0.0.1:{redis_port}/0", *options)
            with bench.running(command, api_port, env):
                if followers:
                    asyncio.run(play_and_follow(api_port, games[:parallel], warmup, parallel))
                    before = _read(calls)
                    played = asyncio.run(play_and_follow(api_port, games[parallel:], seconds, parallel))
                else:
                    asyncio.run(bench.actions(api_port, games[:parallel], warmup, parallel))
                    before = _read(calls)
                    played = len(asyncio.run(bench.actions(api_port, games[parallel:], seconds, parallel)).latencies)
                after = _read(calls)
    return played, before, after


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--functions", default=",".join(FUNCTIONS), help="MODULE:QUALNAME,... (synchronous ones)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds of actions, per tree")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds of actions before measuring")
    parser.add_argument("--parallel", type=int, default=64, help="games played at once")
    parser.add_argument("--players", type=int, default=bench.PLAYERS, help="players in each game")
    parser.add_argument("--followers", action="store_true", help="after each action the other seats read their views")
    parser.add_argument("--baseline", type=Path, help="also a server from this darkroad installation (PYTHONPATH)")
    args = parser.parse_args()
    os.environ.update({f"DARKROAD_RATE_LIMIT_{budget}": str(10**9) for budget in bench.RATE_LIMITED})
    functions = [f.strip() for f in args.functions.split(",") if f.strip()]
    bench.PLAYERS = args.players
    engine = Engine.load()
    games = bench.scripts(engine, 2 * args.parallel + bench.SOLO_GAMES, int(8000 * (args.seconds + args.warmup)))
    trees = [("this tree", None)] + ([] if args.baseline is None else [("baseline", str(args.baseline.resolve()))])
    for name, pythonpath in trees:
        played, before, after = measure(games, functions, args.seconds, args.warmup, args.parallel, pythonpath,
                                        args.followers)
        print(f"{name}: {played} actions")
        for function in functions:
            start, end = before.get(function), after.get(function)
            if end is None:
                print(f"  {function:60s} {'absent' if function in after else 'not called'}")
                continue
            start = start or [0, 0.0]
            calls, spent = end[0] - start[0], end[1] - start[1]
            print(f"  {function:60s} {calls / played:5.2f} calls/action  {spent / played * 1e6:7.2f} µs/action"
                  f"  ({spent / max(calls, 1) * 1e6:6.2f} µs/call)")


if __name__ == "__main__":
    main()
