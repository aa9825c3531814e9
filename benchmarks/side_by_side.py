"""Two trees' servers loaded at the same time: what an action costs each, counted per action.

On this shared 2-core machine a phase's wall-clock rate swings with other people's work, so
two trees measured one after the other (``benchmarks/api.py``, peer-perf) differ by more than
the trees do. Here both servers run at once, each with its own Redis and its own client
process, and play the same scripted games from one start signal, so that whatever the machine
does, it does to both. The rounds alternate which tree's server starts first (the first
started read less CPU an action in session 18's runs of one tree against itself). Per action, for each server:

* its CPU time (user and system, ``/proc``) and its context switches: voluntary (it waited,
  its loop idle) and involuntary (preempted);
* its read and write system calls (``/proc/PID/io``: the client's requests and answers, the
  pipelines to Redis);
* Redis's commands (``INFO commandstats``: a script's inner commands included), in all and by
  name (``cmd NAME``: the commands either tree sent, so that a change in what a commit does in
  Redis shows by name), its reads
  (``total_reads_processed``: at most 16 KB each, so with a commit's 6 kB of state they follow
  the bytes more than the pipelines), the bytes written to it and its CPU.

The server's pipelines to Redis are its writes beyond one an answer (one write each).

``--probe``: the servers run with ``benchmarks/server_probe`` on their ``PYTHONPATH``, and per
action also come their garbage collections by generation (``gc0 /ka``: per thousand actions)
and their CPU, the pipelines to Redis (``pipelines``), their commands (``cmds/pipe``) and how
many were on their way when each was sent (``flying``). ``--profile DIR`` (with ``--probe``):
each server's measured part under ``cProfile`` (CPU time), written to ``DIR/NAME-ROUND.PID``
(``python -m pstats``; the profiler's own cost about doubles the server's CPU).

``--pin``: the trees' servers run one after the other instead of at once (each round in the
other order), each alone on core 0 with its Redis and client on core 1 (``taskset``,
``sched_setaffinity``): no second server competes for the caches or the core, and the round's
ratio of the two is printed. ``run us`` is the server's CPU an action by the scheduler's
nanoseconds (``/proc/PID/task/*/schedstat``; ``cpu us`` counts clock ticks). ``--perf``: per
action also ``perf stat``'s software events of each server (no hardware counters on a VM):
context switches, migrations between cores, page faults, system calls and event-loop turns
(``loops``: its ``epoll_wait`` calls); ``--record DIR`` adds each server's ``perf record``
(``perf report -i DIR/NAME-ROUND.data --sort dso,sym``). With ``--probe`` the servers' event
loops also count the tasks, futures, callbacks and timers made through their methods.
``--spy DIR``: each server's Python stacks sampled by py-spy (``pip install py-spy``; 250 a
second, without pausing it, idle threads left out) over the measured part, written to
``DIR/NAME-ROUND.txt`` (collapsed stacks); ``benchmarks/spy_report.py DIR`` prints where each
tree's CPU time an action goes by Python function, C calls included in their caller. Unlike
``--profile``'s cProfile, it adds nothing to the server's own work, so small functions are not
inflated; unlike valgrind, it counts time (cache misses included), not instructions.
``--interleave N``: both servers run, but their loads take turns: each round is N turns of each
tree (``--actions``/N actions a game each), the trees alternating (A B B A A B ...), and a
tree's figures are its turns' summed. A load that comes and goes on a shared machine then
weighs on both trees alike within a round, where ``--pin`` alone measures them seconds apart.
With ``--pin``, both servers share core 0 (one busy at a time) and the rest core 1. ``--perf``
then counts the whole round, the other tree's turns included (the idle server's background
work: about 1% of its CPU).
``--pollute`` (with ``--pin``): a process on the server's core evicts its caches every
millisecond, as a second server or client sharing the core does: what a tree's action costs
with cold caches.

The client creates its ``--games`` games and plays 5 actions in each before the measured part
(nothing of the start-up or the creations is counted), then ``--actions`` more in each, all
games at once: the 64-game load of ``benchmarks/api.py``.

    python benchmarks/side_by_side.py --baseline DIR [--actions 100] [--games 64] [--rounds 2]
                                      [--probe] [--profile DIR] [--pin] [--perf] [--record DIR] [--pollute]
                                      [--interleave N] [--spy DIR]

``DIR``: a darkroad installation made with ``pip install --no-deps --target DIR <tree>``, put
first on its server's ``PYTHONPATH`` (both servers run this tree's virtual environment).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from darkroad.core import Engine

sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/ is no package
from action_cpu import bench  # type: ignore[import-not-found]  # noqa: E402  (benchmarks/api.py)
from load_profile import SPY_RATE, py_spy  # type: ignore[import-not-found]  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
WARM_ACTIONS = 5
PROBE = Path(__file__).resolve().parent / "server_probe"

Counts = dict[str, float]


def _proc(pid: int) -> Counts:
    """The process's CPU seconds (``run``: the scheduler's nanoseconds, the others: clock
    ticks), context switches and read/write system calls so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rpartition(") ")[2].split()
    counts: Counts = {"user": int(fields[11]) / TICK, "sys": int(fields[12]) / TICK}
    counts["run"] = 0.0
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/schedstat") as f:
            counts["run"] += int(f.read().split()[0]) / 1e9
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            name, _, value = line.partition(":")
            if name in ("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"):
                counts[name.split("_")[0]] = int(value)
            elif name == "VmRSS":
                counts["rss"] = int(value.split()[0]) * 1024
    with open(f"/proc/{pid}/io") as f:
        for line in f:
            name, _, value = line.partition(":")
            if name in ("syscr", "syscw"):
                counts[name] = int(value)
    return counts


def _info(port: int, section: str) -> dict[str, str]:
    out = subprocess.run(["redis-cli", "-p", str(port), "info", section], capture_output=True, text=True, check=True)
    return dict(line.split(":", 1) for line in out.stdout.splitlines() if ":" in line and not line.startswith("#"))


def _redis(port: int) -> Counts:
    """Redis's commands (inner ones of scripts included), reads, input bytes and CPU so far."""
    stats, cpu = _info(port, "stats"), _info(port, "cpu")
    each = {f"cmd {name.removeprefix('cmdstat_')}": int(value.split(",")[0].split("=")[1])
            for name, value in _info(port, "commandstats").items()}  # fmt: skip
    return {
        **each,
        "commands": sum(each.values()),
        "reads": int(stats["total_reads_processed"]),
        "bytes_in": int(stats["total_net_input_bytes"]),
        "cpu": float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"]),
    }


async def _play(port: int, games: list[Any], actions: int, turns: list[tuple[Any, Any]], snapshot: Any) -> tuple[Counts, Counts, float, list[float]]:
    """Create the games and warm them up, then for each of ``turns`` (an event to wait for and
    one to set after, or ``None``) play its share of ``actions`` in each game, all games at once:
    the counts before and after (the turns' differences summed), the seconds and the latencies."""
    connections = [await bench.Connection.open(port) for _ in games]
    played: list[list[Any]] = []
    for connection, script in zip(connections, games, strict=True):
        body = json.dumps({"players": bench.PLAYERS, "seed": script.seed}).encode()
        status, raw = await connection.request("POST", "/v1/games", {"Content-Type": "application/json"}, body)
        assert status == 201, raw
        created = json.loads(raw)
        tokens = {seat["seat"]: seat["token"] for seat in created["seats"]}
        played.append([connection, script, tokens, f"/v1/games/{created['id']}/actions", created["version"], 0])
    latencies: list[float] = []

    async def game(state: list[Any], count: int) -> None:
        connection, script, tokens, url, version, n = state
        for action in script.actions[n : n + count]:
            headers = {"Content-Type": "application/json", "Authorization": f"Bearer {tokens[action['seat']]}",
                       "If-Match": f'"{version}"'}  # fmt: skip
            sent = time.perf_counter()
            status, raw = await connection.request("POST", url, headers, json.dumps(action).encode())
            latencies.append(time.perf_counter() - sent)
            assert status == 200, raw
            version += 1
        state[4:] = [version, n + count]

    await asyncio.gather(*(game(state, WARM_ACTIONS) for state in played))
    latencies.clear()
    after: Counts = {}
    elapsed = 0.0
    for go, done in turns:
        go.wait()
        first, began = snapshot(), time.perf_counter()
        await asyncio.gather(*(game(state, actions // len(turns)) for state in played))
        elapsed += time.perf_counter() - began
        last = snapshot()
        for key, value in last.items():
            after[key] = after.get(key, 0) + value - first.get(key, 0)
        if done is not None:
            done.set()
    after.update({key: last[key] for key in ("rss", "gc_tracked") if key in last})  # states, not counts
    for connection in connections:
        connection.close()
    return {}, after, elapsed, latencies


def _probe(folder: str | None, pid: int, profiling: bool) -> Counts:
    """What ``benchmarks/server_probe`` counted in the server so far (nothing without it);
    ``profiling``: its profiler started, or stopped and written."""
    if folder is None:
        return {}
    if profiling:
        os.kill(pid, signal.SIGUSR1)
    time.sleep(0.3)  # the probe writes every quarter second
    with open(Path(folder) / f"{pid}.json") as f:
        data = json.load(f)
    return {
        **{f"gc{g}": n for g, n in enumerate(data["collections"])},
        "gc_cpu": sum(data["cpu"]), "gc_collected": sum(data["collected"]), "gc_tracked": data["tracked"],
        **{f"pipe_{key}": n for key, n in data["pipes"].items()},
        **{f"loop_{key}": n for key, n in data.get("loop", {}).items()},
    }


POLLUTER = """
import time
a, b = bytearray(4 << 20), bytearray(4 << 20)
while True:
    time.sleep(0.001)
    b[:] = a
"""
"""``--pollute``: 8 MB of memory read and written every millisecond, which evicts the core's L1
and L2 (2 MB) as another busy process on the same core does."""

PERF_EVENTS = ("task-clock", "context-switches", "cpu-migrations", "page-faults", "raw_syscalls:sys_enter",
               "syscalls:sys_enter_epoll_wait", "syscalls:sys_enter_epoll_pwait")  # fmt: skip


class _PerfStat:
    """``perf stat`` of a process's software events and system calls (no hardware counters
    needed) from :meth:`start` to :meth:`stop` (``path``: its output, ``None`` for none); with
    ``record`` (a path) also ``perf record``'s samples of where its CPU time goes (``perf report -i
    PATH --sort dso,sym``), with ``spy`` (a path) py-spy's samples of its Python stacks."""

    def __init__(self, pid: int, path: str | None, record: str | None = None, spy: str | None = None) -> None:
        self.pid, self.path, self.record, self.spy = pid, path, record, spy
        self.process: subprocess.Popen[bytes] | None = None
        self.recording: subprocess.Popen[bytes] | None = None
        self.spying: subprocess.Popen[bytes] | None = None
        self.started = False

    def start(self) -> None:
        self.started = True
        if self.spy is not None:  # --spy: the server's Python stacks (idle threads left out)
            command = [py_spy(), "record", "--pid", str(self.pid), "--rate", str(SPY_RATE), "--nonblocking",
                       "--format", "raw", "--output", self.spy]  # fmt: skip
            self.spying = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if self.path is None:
            time.sleep(0.3)  # attached
            return
        command = ["perf", "stat", "-x,", "-o", self.path, "-p", str(self.pid), "-e", ",".join(PERF_EVENTS)]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if self.record is not None:
            command = ["perf", "record", "-e", "cpu-clock", "-F", "2000", "-o", self.record, "-p", str(self.pid)]
            self.recording = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.3)  # attached

    def stop(self) -> Counts:
        for process in (self.process, self.recording, self.spying):
            if process is not None:
                process.send_signal(signal.SIGINT)
                process.wait(timeout=30)
        counts: Counts = {}
        if self.path is None:
            return counts
        with open(self.path) as f:
            for line in f:
                fields = line.strip().split(",")
                if len(fields) > 2 and fields[2] in PERF_EVENTS and fields[0].replace(".", "").isdigit():
                    counts[f"perf_{fields[2]}"] = float(fields[0])
        return counts


def _client(name: str, port: int, pid: int, redis_port: int, probe: str | None, profiling: bool, games: list[Any],
            actions: int, turns: list[tuple[Any, Any]], results: Any, cpu: int | None = None, perf: str | None = None,
            record: str | None = None, spy: str | None = None) -> None:
    """A client process: one server's load, its counts put on ``results``; ``cpu``: the core
    it runs on, ``perf``: a path for the server's ``perf stat`` over the measured part,
    ``record``: one for its ``perf record``, ``spy``: one for its py-spy samples."""
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    stat = None if perf is None and spy is None else _PerfStat(pid, perf, record, spy)

    def snapshot() -> Counts:
        if stat is not None and not stat.started:
            stat.start()
        return {**_proc(pid), **{f"redis_{k}": v for k, v in _redis(redis_port).items()},
                **_probe(probe, pid, profiling)}  # fmt: skip

    before, after, elapsed, latencies = asyncio.run(_play(port, games, actions, turns, snapshot))
    if stat is not None:
        after.update(stat.stop())
    results.put((name, before, after, elapsed, latencies))


def _per_action(before: Counts, after: Counts, elapsed: float, latencies: list[float]) -> Counts:
    n = len(latencies)
    d = {key: (after[key] - before.get(key, 0)) / n for key in after}
    q = statistics.quantiles(latencies, n=1000)
    return {
        "actions/s": n / elapsed, "p10 ms": q[99] * 1e3, "p50 ms": q[499] * 1e3, "p90 ms": q[899] * 1e3,
        "p99 ms": q[989] * 1e3, "p99.9 ms": q[998] * 1e3,
        "cpu us": (d["user"] + d["sys"]) * 1e6, "run us": d["run"] * 1e6, "sys us": d["sys"] * 1e6,
        "cores": (d["user"] + d["sys"]) * n / elapsed,
        "vol cs": d["voluntary"], "invol cs": d["nonvoluntary"], "reads": d["syscr"], "writes": d["syscw"],
        "redis cmds": d["redis_commands"], "redis reads": d["redis_reads"], "redis kB in": d["redis_bytes_in"] / 1e3,
        "redis cpu us": d["redis_cpu"] * 1e6,
        **{key.removeprefix("redis_"): value for key, value in d.items() if key.startswith("redis_cmd ") and value},
        **({} if "gc0" not in d else {
            "gc0 /ka": d["gc0"] * 1e3, "gc1 /ka": d["gc1"] * 1e3, "gc2 /ka": d["gc2"] * 1e3, "gc us": d["gc_cpu"] * 1e6,
            "tracked k": after["gc_tracked"] / 1e3, "pipelines": d["pipe_pipelines"],
            "cmds/pipe": d["pipe_commands"] / max(d["pipe_pipelines"], 1e-9),
            "flying": d["pipe_flying"] / max(d["pipe_pipelines"], 1e-9),
        }),
        **{key.replace("_", " "): value for key, value in d.items() if key.startswith("loop_")},
        "rss MB": after["rss"] / 2**20,
        **({} if "perf_task-clock" not in d else {
            "perf cpu us": d["perf_task-clock"] * 1e3, "perf cs": d["perf_context-switches"],
            "migrations": d["perf_cpu-migrations"], "faults": d["perf_page-faults"], "syscalls": d["perf_raw_syscalls:sys_enter"],
            "loops": d.get("perf_syscalls:sys_enter_epoll_wait", 0) + d.get("perf_syscalls:sys_enter_epoll_pwait", 0),
        }),
    }  # fmt: skip


def round_of(trees: list[tuple[str, str | None]], games: list[Any], actions: int, probe: bool = False,
             profile: Path | None = None, label: str = "", pin: bool = False, perf: bool = False,
             record: Path | None = None, pollute: bool = False, interleave: int = 0,
             spy: Path | None = None) -> dict[str, Counts]:
    """One round: every tree's server (and Redis) started, then loaded at once; ``probe``: the
    servers run with ``benchmarks/server_probe``, ``profile``: a folder for their profiles
    (each named by its tree and ``label``); ``pin``: the server on core 0, its Redis and
    client on core 1 (one tree a round); ``perf``: each server's ``perf stat`` counted,
    ``record``: (with ``perf``) a folder for each server's ``perf record``; ``pollute``: (with
    ``pin``) :data:`POLLUTER` runs on the server's core; ``interleave``: the trees' loads take
    turns, each ``actions / interleave`` actions a game, instead of running at once; ``spy``: a
    folder for each server's py-spy samples."""
    server_core, rest_core = (["taskset", "-c", "0"], ["taskset", "-c", "1"]) if pin else ([], [])
    with tempfile.TemporaryDirectory() as directory, ExitStack() as stack:
        servers = []
        if pollute:
            polluter = subprocess.Popen([*server_core, sys.executable, "-c", POLLUTER])
            stack.callback(polluter.kill)
        for name, pythonpath in trees:
            env = {k: v for k, v in os.environ.items() if k != "DARKROAD_REDIS_URL"}
            env.update({f"DARKROAD_RATE_LIMIT_{budget}": "0" for budget in bench.RATE_LIMITED})
            paths = [str(PROBE)] if probe else []
            if pythonpath:
                paths.append(pythonpath)
            if paths:
                env["PYTHONPATH"] = os.pathsep.join(paths)
            redis_port, port = bench.free_port(), bench.free_port()
            folder = Path(directory) / name
            folder.mkdir()
            if probe:
                env["DARKROAD_PROBE"] = str(folder)
            if probe and profile is not None:
                env["DARKROAD_PROFILE"] = str(profile.resolve() / f"{name.replace(' ', '-')}{label}")
            stack.enter_context(bench.running([*rest_core, *bench.redis_server(redis_port, str(folder))], redis_port))
            server = [*server_core, *bench.api_server(port, "--redis-url", f"redis://127.0.0.1:{redis_port}/0")]
            pid = stack.enter_context(bench.running(server, port, env, timeout=120))
            servers.append((name, port, pid, redis_port, str(folder) if probe else None, probe and profile is not None))
        start = multiprocessing.Event()
        slices = [[(multiprocessing.Event(), multiprocessing.Event()) for _ in range(interleave)] for _ in servers]
        results: multiprocessing.Queue[Any] = multiprocessing.Queue()
        clients = [multiprocessing.Process(target=_client, args=(
            *server, games, actions, turns if interleave else [(start, None)], results, 1 if pin else None,
            str(Path(directory) / server[0] / "perf.csv") if perf else None,
            None if record is None else str(record.resolve() / f"{server[0].replace(' ', '-')}{label}.data"),
            None if spy is None else str(spy.resolve() / f"{server[0].replace(' ', '-')}{label}.txt"),
        )) for server, turns in zip(servers, slices, strict=True)]  # fmt: skip
        for client in clients:
            client.start()
        time.sleep(1.0)
        start.set()  # the clients start once their games are created and warm
        for n in range(interleave):  # each tree's turn, the trees in the other order each time
            for turns in slices if n % 2 == 0 else slices[::-1]:
                go, done = turns[n]
                go.set()
                done.wait()
        measured = [results.get(timeout=600) for _ in clients]
        for client in clients:
            client.join()
    counts = {name: _per_action(*rest) for name, *rest in measured}
    if spy is not None:  # beside each server's samples, what benchmarks/spy_report.py scales them to
        for name, _, _, _, latencies in measured:
            side = {"actions": len(latencies), "cpu_us": counts[name]["cpu us"]}
            (spy / f"{name.replace(' ', '-')}{label}.json").write_text(json.dumps(side))
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=Path, required=True, help="a darkroad installation (PYTHONPATH)")
    parser.add_argument("--actions", type=int, default=100, help="actions measured per game")
    parser.add_argument("--games", type=int, default=64, help="games played at once (per server)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--probe", action="store_true", help="count the servers' collections and pipelines")
    parser.add_argument("--profile", type=Path, help="with --probe: write each server's cProfile here")
    parser.add_argument("--pin", action="store_true",
                        help="one tree at a time, its server alone on core 0, its Redis and client on core 1")
    parser.add_argument("--perf", action="store_true", help="each server's perf stat (software events, system calls)")
    parser.add_argument("--record", type=Path, help="with --perf: write each server's perf record here")
    parser.add_argument("--pollute", action="store_true", help="with --pin: evict the server core's caches every ms")
    parser.add_argument("--interleave", type=int, default=0,
                        help="N: the servers' loads take N turns each, alternating, instead of running at once")
    parser.add_argument("--spy", type=Path, help="write each server's py-spy samples here (benchmarks/spy_report.py)")
    args = parser.parse_args()
    if args.spy is not None:
        py_spy()  # exits when py-spy is not installed
    for folder in (args.profile, args.record, args.spy):
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
    engine = Engine.load()
    games = [s for s in bench.scripts(engine, 3 * args.games, 0) if len(s.actions) >= args.actions + WARM_ACTIONS]
    assert len(games) >= args.games, "too few scripted games that long: lower --actions"
    trees = [("this tree", None), ("baseline", str(args.baseline.resolve()))]
    rounds = []
    for r in range(args.rounds):
        # Each round starts the trees in the other order: the server started first read up to 18%
        # less CPU an action than the same tree started second (session 18, main against itself).
        order = trees if r % 2 == 0 else trees[::-1]
        options = (games[: args.games], args.actions, args.probe, args.profile, f"-{r + 1}", args.pin, args.perf,
                   args.record, args.pollute, args.interleave, args.spy)  # fmt: skip
        if args.pin and not args.interleave:  # one after the other, in this round's order
            rounds.append({name: counts for tree in order for name, counts in round_of([tree], *options).items()})
        else:
            rounds.append(round_of(order, *options))
        for name, counts in rounds[-1].items():
            print(f"round {r + 1} {name:9s} " + "  ".join(f"{key} {value:.2f}" for key, value in counts.items()), flush=True)
        ratios = {key: rounds[-1]["this tree"][key] / rounds[-1]["baseline"][key] for key in ("cpu us", "run us", "p99 ms")}
        print(f"round {r + 1} ratio     " + "  ".join(f"{key} {value:.3f}" for key, value in ratios.items()), flush=True)
    print()
    mine, theirs = [r["this tree"] for r in rounds], [r["baseline"] for r in rounds]
    for key in {**mine[0], **theirs[0]}:  # Redis's commands by name: only those either sent
        m, t = [r.get(key, 0.0) for r in mine], [r.get(key, 0.0) for r in theirs]
        ratio = statistics.median(a / b if b else float("nan") for a, b in zip(m, t, strict=True))
        print(f"{key:13s} this tree {statistics.median(m):9.2f}  baseline {statistics.median(t):9.2f}  ratio {ratio:5.2f}")


if __name__ == "__main__":
    main()
