"""Instructions per ``POST /v1/games/{id}/actions`` of a whole ``darkroad serve`` process
(uvicorn, the app, the Redis client) under load, counted by valgrind: the same figure on a
quiet machine and on a busy one.

``benchmarks/api.py`` measures actions per server CPU-second, which is what users pay for,
but on a shared machine its rounds swing by ±15% with other people's load, more than the
changes it is meant to compare. ``benchmarks/action_cpu.py`` counts the app alone (no HTTP
server, no sockets). This counts everything the server process executes while it serves
actions: each tree's server runs under callgrind (``--cache-sim=no``; instrumented once it
listens, ``--instr-atstart=no``, which makes its start-up several times faster), plays ``--warmup``
seconds of actions, has its counters zeroed (``callgrind_control --zero``), plays
``--seconds`` more, and reads its instruction counter (``callgrind_control -e Ir``), less
what creating the measured part's ``--parallel`` games costs (counted apart just before:
with 64 games under valgrind's slowness the creations were over half of the count). The
server is about 50 times slower under valgrind, so ``--parallel`` games keep it busy and its
commits share Redis pipelines, as in a loaded server. Needs valgrind (``apt install
valgrind``); a tree's run takes about a minute.

    python benchmarks/server_instructions.py [--baseline DIR] [--seconds 30] [--parallel 16]
                                             [--cache-sim] [--out DIR]

``--baseline DIR``: also a server from a darkroad installation made with ``pip install
--no-deps --target DIR <tree>`` (as for ``benchmarks/api.py``), measured after this tree's,
and the ratio.

``--cache-sim``: callgrind also simulates this machine's caches (those of its first core, read
from ``/sys/devices/system/cpu/cpu0/cache``: L1i, L1d, and L2 as the last level; the L3 is
shared with the other cores; session 19's machine's where none is described) and its branch
predictor, and each tree's misses an action are printed: ``D1mr``/``D1mw`` (L1 data,
read/write), ``DLmr``/``DLmw`` (L2 data), ``I1mr``/``ILmr`` (instructions), ``Bcm``/``Bim``
(conditional and indirect branches mispredicted). Valgrind sees one process: the
misses that other processes' work on the same core causes are not in them. ``--out DIR``:
each server's counts by function are dumped there after its measured part
(``callgrind_annotate DIR/NAME.PID.2``; ``NAME.PID.1``: the creations counted apart). ``--minimal``: the measured actions ask ``Prefer:
return=minimal`` (answered ``204`` without the seat's view): what the view costs, by difference.
"""

from __future__ import annotations

import argparse
import asyncio
import json
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

CACHES = ["--cache-sim=yes", "--I1=32768,8,64", "--D1=49152,12,64", "--LL=2097152,16,64"]
"""The cache simulation's options where the machine does not describe its caches (a core of
session 19's machine)."""


def caches(sysfs: Path = Path("/sys/devices/system/cpu/cpu0/cache")) -> list[str]:
    """The cache simulation's options for this machine's first core, read from ``sysfs``: its
    level-1 instruction and data caches, and its level-2 cache as the last level (callgrind
    simulates two levels; the level 3 is shared with the other cores, where Redis and the
    client run). :data:`CACHES` when ``sysfs`` does not describe them."""
    found: dict[str, str] = {}
    for index in sorted(sysfs.glob("index*")):
        try:
            level, kind, size, ways, line = (
                (index / name).read_text().strip()
                for name in ("level", "type", "size", "ways_of_associativity", "coherency_line_size")
            )
        except OSError:
            continue
        if not size.endswith("K") or not ways.isdigit() or not line.isdigit():
            continue
        option = {("1", "Instruction"): "I1", ("1", "Data"): "D1", ("2", "Unified"): "LL"}.get((level, kind))
        if option is not None:
            found[option] = f"--{option}={int(size[:-1]) * 1024},{ways},{line}"
    if set(found) != {"I1", "D1", "LL"}:
        return CACHES
    return ["--cache-sim=yes", found["I1"], found["D1"], found["LL"]]


MISSES = ("D1mr", "D1mw", "DLmr", "DLmw", "I1mr", "ILmr", "Bcm", "Bim")
"""The misses counted with ``--cache-sim``: the caches', then the branch predictor's
(conditional and indirect branches mispredicted)."""


def counters(pid: int, events: tuple[str, ...] = ("Ir",)) -> dict[str, int]:
    """The ``events`` callgrind has counted in process ``pid`` since its counters were zeroed."""
    command = ["callgrind_control", "-e", ",".join(events), str(pid)]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    # "Totals: Ir D1mr", then a line per thread: "Th 1  193,603 1,234" (an event not yet counted: ".").
    threads = re.findall(r"^\s*Th\s+\d+\s+([\d,.\s]+?)\s*$", out, flags=re.MULTILINE)
    if not threads:
        raise RuntimeError(f"no counts from callgrind_control: {out!r}")
    totals = dict.fromkeys(events, 0)
    for line in threads:
        for event, count in zip(events, line.split(), strict=True):
            totals[event] += 0 if count == "." else int(count.replace(",", ""))
    return totals


async def _create(port: int, games: list[Any]) -> None:
    """Create ``games`` as :func:`bench.actions` does when it starts to play them, and nothing else."""

    async def one(script: Any) -> None:
        connection = await bench.Connection.open(port)
        body = json.dumps({"players": bench.PLAYERS, "seed": script.seed}).encode()
        status, raw = await connection.request("POST", "/v1/games", {"Content-Type": "application/json"}, body)
        assert status == 201, raw
        connection.close()

    await asyncio.gather(*(one(script) for script in games))


def measure(
    games: list[Any], seconds: float, warmup: float, parallel: int, pythonpath: str | None, cache_sim: bool = False,
    out: Path | None = None, name: str = "server", minimal: bool = False,
) -> tuple[int, dict[str, int]]:
    """One server under callgrind: (actions played, its counts) over ``seconds`` after ``warmup``."""
    env = {"PYTHONHASHSEED": "0"}
    options = ["--bots", "0"]
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
        options = []  # a tree from before the bot workers has no --bots
    events = ("Ir", *MISSES) if cache_sim else ("Ir",)
    output = "/dev/null" if out is None else str(out.resolve() / f"{name}.%p")
    with tempfile.TemporaryDirectory() as directory:
        redis_port, api_port = bench.free_port(), bench.free_port()
        with bench.running(bench.redis_server(redis_port, directory), redis_port):
            command = [
                "valgrind", "--tool=callgrind", *(caches() if cache_sim else ["--cache-sim=no"]),
                f"--branch-sim={'yes' if cache_sim else 'no'}",
                # Instrumented only once the server listens: a start-up under callgrind took
                # over ten minutes on a busy machine, with the caches simulated.
                "--instr-atstart=no", f"--callgrind-out-file={output}",
                *bench.api_server(api_port, "--redis-url", f"redis://127.0.0.1:{redis_port}/0", *options),
            ]  # fmt: skip
            # The valgrind process is the server's: callgrind_control finds it by that pid.
            with bench.running(command, api_port, env, timeout=600) as pid:
                subprocess.run(["callgrind_control", "--instr=on", str(pid)], capture_output=True, check=True)
                played = games[: len(games) // 2], games[len(games) // 2 :]
                asyncio.run(bench.actions(api_port, played[0], warmup, parallel))
                subprocess.run(["callgrind_control", "--zero", str(pid)], capture_output=True, check=True)
                # The measured part creates its ``parallel`` games first: counted alone here,
                # and taken off the actions' counts below.
                created = counters(pid, events)
                asyncio.run(_create(api_port, played[1][:parallel]))
                before = counters(pid, events)
                creations = {event: before[event] - created[event] for event in events}
                if out is not None:
                    # The creations' own dump (NAME.PID.1), so that the next (NAME.PID.2) is the
                    # measured part's alone: its games' creations and actions, by function (a
                    # dump zeroes the counters: read again after it).
                    subprocess.run(["callgrind_control", "--dump", str(pid)], capture_output=True, check=True)
                    before = counters(pid, events)
                result = asyncio.run(bench.actions(api_port, played[1], seconds, parallel, minimal=minimal))
                after = counters(pid, events)
                if out is not None:
                    subprocess.run(["callgrind_control", "--dump", str(pid)], capture_output=True, check=True)
    print(f"  {name}: {parallel} creations taken off, " + ", ".join(f"{event} {count / parallel:.0f}" for event, count in creations.items()) + " a game")
    return len(result.latencies), {event: after[event] - before[event] - creations[event] for event in events}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="measured seconds of actions, per tree")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds of actions before counting")
    parser.add_argument("--parallel", type=int, default=16, help="games played at once")
    parser.add_argument("--baseline", type=Path, help="also a server from this darkroad installation (PYTHONPATH)")
    parser.add_argument("--cache-sim", action="store_true", help="also simulate the caches: misses per action")
    parser.add_argument("--out", type=Path, help="a folder for each server's callgrind counts by function")
    parser.add_argument("--minimal", action="store_true",
                        help="the measured actions ask Prefer: return=minimal (answered 204, without the view)")
    args = parser.parse_args()
    for tool in ("valgrind", "callgrind_control", "redis-server"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is not installed")
    os.environ.update({f"DARKROAD_RATE_LIMIT_{budget}": str(10**9) for budget in bench.RATE_LIMITED})
    engine = Engine.load()
    # Two sets of games (warm-up, measured), each enough for 200 actions/s under valgrind.
    games = bench.scripts(engine, 2 * (args.parallel + bench.SOLO_GAMES), int(400 * (args.seconds + args.warmup)))
    trees = [("this tree", None)] + ([] if args.baseline is None else [("baseline", str(args.baseline.resolve()))])
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
    per_action: dict[str, dict[str, float]] = {}
    for name, pythonpath in trees:
        started = time.perf_counter()
        played, counted = measure(games, args.seconds, args.warmup, args.parallel, pythonpath, args.cache_sim,
                                  args.out, name.replace(" ", "-"), args.minimal)  # fmt: skip
        per_action[name] = {event: count / played for event, count in counted.items()}
        misses = "".join(f", {event} {per_action[name][event]:.0f}" for event in MISSES if event in counted)
        print(f"{name}: {played} actions, {per_action[name]['Ir'] / 1e3:.1f}k instructions per action{misses} "
              f"({time.perf_counter() - started:.0f} s)")  # fmt: skip
    if args.baseline is not None:
        for event in per_action["baseline"]:
            ratio = per_action["this tree"][event] / max(per_action["baseline"][event], 1e-9)
            print(f"{event} per action, this tree / baseline: {ratio:.3f}")


if __name__ == "__main__":
    main()
