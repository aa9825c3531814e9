"""Where a server's CPU goes under ``benchmarks/api.py``'s 64-game load: py-spy on the server.

One action at a time (``benchmarks/instructions.py``) leaves out what concurrency changes:
requests sharing Redis pipelines, the event loop's turns, and a working set of 64 games
interleaved. This runs ``darkroad serve`` on a throwaway Redis as ``benchmarks/api.py`` does,
plays ``--games`` games at once against it for ``--seconds``, and samples the server with
py-spy meanwhile (``py-spy record --format raw --nonblocking``; install it with ``pip install
py-spy``). It prints the actions per second and per server CPU-second, and the server's time
by part of the serving path (:data:`PARTS`), as a share of the samples and in microseconds per
action (the share times the server's CPU time per action of the same run). py-spy samples a
thread that can run, whether it runs or waits for a core: on a busy machine a part that wakes
another process (the answer's write wakes the client) reads higher than the CPU it takes
(docs/performance.md, "Where main's extra CPU under the 64-game load goes").

``--baseline DIR``: the same for a darkroad installation made with ``pip install --no-deps
--target DIR <tree>`` (put first on the server's ``PYTHONPATH``), the two trees alternating
for ``--rounds``. Shares come from one round each (the last); rates are the medians.

    python benchmarks/load_profile.py [--seconds 12] [--games 64] [--rounds 1] [--baseline DIR]
                                      [--keep DIR] [--parts-only FILE ...]

``--keep DIR`` keeps the raw profiles (one collapsed stack a line, its count last);
``--parts-only FILE ...`` prints the parts of profiles kept before (no server started).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/ is no package
from action_cpu import bench  # type: ignore[import-not-found]  # noqa: E402  (benchmarks/api.py)

from darkroad.core import Engine  # noqa: E402

PARTS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    # (part, a sample is in it when a frame's function is one of these, ..., and none of these)
    ("the policy layer's own work", ("PolicedApp.__call__",),
     ("Litestar.__call__", "ActionRoute.__call__", "action_endpoint", "RequestResponseCycle.send")),
    ("Litestar's machinery for the route (router, exception middleware, Request, kwargs)", ("Litestar.__call__",),
     ("GamesController.submit_action", "RequestResponseCycle.send", "GamesController.create_game")),
    ("the action route's adapter (path parameters, Request, the answer made; api/http/action_route.py)",
     ("ActionRoute.__call__",),
     ("Litestar.__call__", "GamesController.submit_action", "RequestResponseCycle.send")),
    ("the answer handed to the server (its two messages, the socket's write)", ("RequestResponseCycle.send",),
     ("Batcher._send",)),
    ("the handler's own work (headers, body, token, the action parsed)",
     ("GamesController.submit_action", "action_endpoint"), ("Acting.act", "RequestResponseCycle.send")),
    ("acting: the action applied (the engine)", ("play", "Engine.apply"),
     ("Reading.view_of", "GameRepository.commit", "Batcher._send")),
    ("acting: the view, encoded", ("Reading.view_of",), ()),
    ("acting: the commit made and queued (state packed, events, the script's arguments)",
     ("GameRepository.commit",), ("Reading.view_of",)),
    ("acting: the rest (token, cache, records)", ("Acting.act",),
     ("play", "Engine.apply", "Reading.view_of", "GameRepository.commit")),
    ("the store's pipelines (the batcher's task: packed, written, replies read)", ("Batcher._send",), ()),
    ("games created (POST /v1/games)", ("GamesController.create_game",), ()),
)
"""The serving path's parts, by the functions on a sample's stack (the Litestar handler of
``POST .../actions``, served by Litestar or by the adapter in its place, and c41aef6's lean
``action_endpoint`` are named). A request the adapter hands to Litestar counts as Litestar's.
What no part takes is the HTTP server, the event loop and the other tasks of the process."""


def _function(frame: str) -> str:
    """``Class.method`` of py-spy's ``function (file:line)``."""
    return frame.partition(" (")[0]


def parts(profile: Path) -> list[tuple[str, float]]:
    """Each part's share of the samples of a raw py-spy profile, and what no part takes."""
    counted: dict[str, int] = dict.fromkeys([name for name, _, _ in PARTS], 0)
    total = 0
    for line in profile.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        functions = {_function(frame) for frame in stack.split(";")}
        total += int(count)
        for name, within, without in PARTS:
            if functions.intersection(within) and not functions.intersection(without):
                counted[name] += int(count)
    shares = [(name, n / max(total, 1)) for name, n in counted.items()]
    return [*shares, ("the rest (the HTTP server, the event loop, other tasks)", 1 - sum(s for _, s in shares))]


@dataclass
class Run:
    tree: str
    rate: float
    per_cpu: float
    p99_ms: float
    profile: Path


SPY_RATE = 250
"""py-spy's samples a second (here and in ``side_by_side.py --spy``: at 1,000 a second, py-spy pinned
beside the client and Redis kept up with under half of the server's CPU time)."""


def py_spy() -> str:
    """py-spy's command: on the ``PATH``, or beside this Python (a virtual environment's)."""
    found = shutil.which("py-spy") or shutil.which("py-spy", path=str(Path(sys.executable).parent))
    if found is None:
        sys.exit("py-spy is not installed: pip install py-spy")
    return found


def measure(tree: str, pythonpath: str | None, games: list[bench.Script], seconds: float, parallel: int,
            profile: Path) -> Run:
    """One server of ``tree`` on its own Redis, loaded and sampled for ``seconds``."""
    env = {k: v for k, v in os.environ.items() if k != "DARKROAD_REDIS_URL"}
    env.update({f"DARKROAD_RATE_LIMIT_{budget}": "0" for budget in bench.RATE_LIMITED})
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    with tempfile.TemporaryDirectory() as directory, ExitStack() as stack:
        redis_port, port = bench.free_port(), bench.free_port()
        stack.enter_context(bench.running(bench.redis_server(redis_port, directory), redis_port))
        server = stack.enter_context(bench.running(
            bench.api_server(port, "--redis-url", f"redis://127.0.0.1:{redis_port}/0"), port, env))
        asyncio.run(bench.actions(port, games[: bench.SOLO_GAMES], 2.0, bench.SOLO_GAMES))  # warm
        spy = subprocess.Popen(
            [py_spy(), "record", "--pid", str(server), "--output", str(profile), "--format", "raw",
             "--rate", str(SPY_RATE), "--duration", str(round(seconds) + 1), "--nonblocking"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        time.sleep(0.5)  # py-spy attached
        played = asyncio.run(bench.actions(port, games[bench.SOLO_GAMES :], seconds, parallel, pid=server))
        spy.wait()
    return Run(tree, played.requests, played.requests * seconds / max(played.cpu, 1e-9),
               statistics.quantiles(played.latencies, n=100)[98] * 1000, profile)


def report(run: Run) -> None:
    per_action = 1e6 / run.per_cpu
    print(f"{run.tree}: {run.rate:.0f} actions/s, {run.per_cpu:.0f} per server CPU-second "
          f"({per_action:.0f} us an action), p99 {run.p99_ms:.1f} ms")
    for name, share in parts(run.profile):
        print(f"  {share:6.1%} {share * per_action:6.1f} us  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=12.0, help="the load's duration per round and tree")
    parser.add_argument("--games", type=int, default=64, help="games played at once")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--baseline", type=Path, help="also a server from this darkroad installation (PYTHONPATH)")
    parser.add_argument("--keep", type=Path, help="keep the raw profiles in this folder")
    parser.add_argument("--parts-only", type=Path, nargs="+", metavar="FILE", help="the parts of kept profiles")
    args = parser.parse_args()
    if args.parts_only:
        for profile in args.parts_only:
            print(profile)
            for name, share in parts(profile):
                print(f"  {share:6.1%}  {name}")
        return
    py_spy()
    if shutil.which("redis-server") is None:
        sys.exit("redis-server is not installed")
    engine = Engine.load()
    # Enough actions for a fast server: 6000 actions/s for the whole load.
    games = bench.scripts(engine, args.games + bench.SOLO_GAMES, int(6000 * args.seconds))
    trees = [("this tree", None)] + ([] if args.baseline is None else [("baseline", str(args.baseline.resolve()))])
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        runs: dict[str, list[Run]] = {name: [] for name, _ in trees}
        for r in range(args.rounds):
            for name, pythonpath in trees if r % 2 == 0 else trees[::-1]:
                profile = folder / f"{name.replace(' ', '-')}-{r + 1}.txt"
                run = measure(name, pythonpath, games, args.seconds, args.games, profile)
                runs[name].append(run)
                print(f"round {r + 1} {name}: {run.rate:.0f} actions/s, {run.per_cpu:.0f} per server CPU-second,"
                      f" p99 {run.p99_ms:.1f} ms", flush=True)
        print()
        for name, kept in runs.items():
            last = kept[-1]
            report(Run(name, statistics.median(k.rate for k in kept), statistics.median(k.per_cpu for k in kept),
                       statistics.median(k.p99_ms for k in kept), last.profile))
        if args.baseline is not None:
            mine, theirs = runs["this tree"], runs["baseline"]
            ratio = statistics.median(a.per_cpu / b.per_cpu for a, b in zip(mine, theirs, strict=True))
            print(f"this tree / baseline, actions per server CPU-second (median of the rounds): {ratio:.2f}x")


if __name__ == "__main__":
    main()
