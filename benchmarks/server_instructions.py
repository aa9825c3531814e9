"""Instructions per ``POST /v1/games/{id}/actions`` of a whole ``darkroad serve`` process
(uvicorn, the app, the Redis client) under load, counted by valgrind: the same figure on a
quiet machine and on a busy one.

``benchmarks/api.py`` measures actions per server CPU-second, which is what users pay for,
but on a shared machine its rounds swing by ±15% with other people's load, more than the
changes it is meant to compare. ``benchmarks/action_cpu.py`` counts the app alone (no HTTP
server, no sockets). This counts everything the server process executes while it serves
actions: each tree's server runs under callgrind (``--cache-sim=no``), plays ``--warmup``
seconds of actions, has its counters zeroed (``callgrind_control --zero``), plays
``--seconds`` more, and reads its instruction counter (``callgrind_control -e Ir``). The
server is about 50 times slower under valgrind, so ``--parallel`` games keep it busy and its
commits share Redis pipelines, as in a loaded server. Needs valgrind (``apt install
valgrind``); a tree's run takes about a minute.

    python benchmarks/server_instructions.py [--baseline DIR] [--seconds 30] [--parallel 16]

``--baseline DIR``: also a server from a darkroad installation made with ``pip install
--no-deps --target DIR <tree>`` (as for ``benchmarks/api.py``), measured after this tree's,
and the ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from darkroad.core import Engine

sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/ is no package
from action_cpu import bench  # type: ignore[import-not-found]  # noqa: E402  (benchmarks/api.py, as action_cpu.py loads it)


def instructions(pid: int) -> int:
    """The instructions callgrind has counted in process ``pid`` since its counters were zeroed."""
    out = subprocess.run(["callgrind_control", "-e", "Ir", str(pid)], capture_output=True, text=True, check=True).stdout
    # "Totals: Ir", then a line per thread: "Th 1  193,603".
    threads = re.findall(r"^\s*Th\s+\d+\s+([\d,]+)\s*$", out, flags=re.MULTILINE)
    if not threads:
        raise RuntimeError(f"no instruction count from callgrind_control: {out!r}")
    return sum(int(count.replace(",", "")) for count in threads)


def measure(games: list[Any], seconds: float, warmup: float, parallel: int, pythonpath: str | None) -> tuple[int, int]:
    """One server under callgrind: (actions played, instructions) over ``seconds`` after ``warmup``."""
    env = {"PYTHONHASHSEED": "0"}
    options = ["--bots", "0"]
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
        options = []  # a tree from before the bot workers has no --bots
    with tempfile.TemporaryDirectory() as directory:
        redis_port, api_port = bench.free_port(), bench.free_port()
        with bench.running(bench.redis_server(redis_port, directory), redis_port):
            command = [
                "valgrind", "--tool=callgrind", "--cache-sim=no", "--branch-sim=no", "--callgrind-out-file=/dev/null",
                *bench.api_server(api_port, "--redis-url", f"redis://127.0.0.1:{redis_port}/0", *options),
            ]  # fmt: skip
            # The valgrind process is the server's: callgrind_control finds it by that pid.
            with bench.running(command, api_port, env, timeout=600) as pid:
                played = games[: len(games) // 2], games[len(games) // 2 :]
                asyncio.run(bench.actions(api_port, played[0], warmup, parallel))
                subprocess.run(["callgrind_control", "--zero", str(pid)], capture_output=True, check=True)
                before = instructions(pid)
                result = asyncio.run(bench.actions(api_port, played[1], seconds, parallel))
                counted = instructions(pid) - before
    return len(result.latencies), counted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="measured seconds of actions, per tree")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds of actions before counting")
    parser.add_argument("--parallel", type=int, default=16, help="games played at once")
    parser.add_argument("--baseline", type=Path, help="also a server from this darkroad installation (PYTHONPATH)")
    args = parser.parse_args()
    for tool in ("valgrind", "callgrind_control", "redis-server"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is not installed")
    os.environ.update({f"DARKROAD_RATE_LIMIT_{budget}": str(10**9) for budget in bench.RATE_LIMITED})
    engine = Engine.load()
    # Two sets of games (warm-up, measured), each enough for 200 actions/s under valgrind.
    games = bench.scripts(engine, 2 * (args.parallel + bench.SOLO_GAMES), int(400 * (args.seconds + args.warmup)))
    trees = [("this tree", None)] + ([] if args.baseline is None else [("baseline", str(args.baseline.resolve()))])
    per_action = {}
    for name, pythonpath in trees:
        started = time.perf_counter()
        played, counted = measure(games, args.seconds, args.warmup, args.parallel, pythonpath)
        per_action[name] = counted / played
        print(f"{name}: {played} actions, {per_action[name] / 1e3:.1f}k instructions per action "
              f"({time.perf_counter() - started:.0f} s)")  # fmt: skip
    if args.baseline is not None:
        print(f"instructions per action, baseline / this tree: {per_action['baseline'] / per_action['this tree']:.2f}")


if __name__ == "__main__":
    main()
