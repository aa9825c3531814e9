"""Where the test suite's time goes: each test's wall time and CPU, and a summary.

As a pytest plugin (``-p suite_cpu``, with ``scripts`` on ``PYTHONPATH``) it writes one JSON
line per test to ``$SUITE_CPU_DIR/<xdist worker>.jsonl``: the test's wall time (setup, call and
teardown), the CPU of its process and of its descendants meanwhile (servers, browsers, node, Go
and Java it or a fixture started: those reaped, by ``getrusage``, and those still running, from
/proc, so a module fixture's server counts in each test while it runs), and whether it is
marked slow. CPU is the figure to compare on a shared machine; wall
times there depend on everyone's load::

    SUITE_CPU_DIR=/tmp/suite-cpu PYTHONPATH=scripts nice -n 10 \\
        .venv/bin/python -m pytest -p suite_cpu -n 2 --dist loadgroup -q
    .venv/bin/python scripts/suite_cpu.py /tmp/suite-cpu [--top N] [--timeline S]

The summary: the totals, CPU by kind (:data:`KINDS`) and by module, the tests taking the most CPU, and the makespan of
xdist's ``loadgroup`` scheduling over these wall times at 4 workers (the units handed out as
xdist does: groups by their number of tests, then single tests in collection order). With
``--timeline S``: the run in steps of S seconds, the cores its tests used in each (a test's CPU
spread over its wall time) and the module each worker spent the step in (where the cores idle,
and which tests run alone at the end).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import heapq
import json
import os
import resource
import time
from collections.abc import Generator
from pathlib import Path
from typing import IO, Any

import pytest

_out: IO[str] | None = None


_TICK = os.sysconf("SC_CLK_TCK")


def _live_descendants() -> float:
    """CPU seconds of this process's live descendants so far (their own and their reaped
    children's, from /proc): with the reaped children's, a child's CPU counts in the test during
    which it ran, not in the later one during which it happened to be reaped."""
    total, stack = 0.0, [os.getpid()]
    while stack:
        pid = stack.pop()
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            with contextlib.suppress(OSError):
                stack += [int(child) for child in Path(f"/proc/{pid}/task/{tid}/children").read_text().split()]
        if pid != os.getpid():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += sum(int(field) for field in fields[11:15]) / _TICK  # utime stime cutime cstime
    return total


PR_SET_CHILD_SUBREAPER = 36


def _reap_orphans() -> None:
    """Reap Chromium's processes that ended orphaned. The worker is their subreaper (set in
    :func:`pytest_configure`): when Playwright closes a browser, its renderers, GPU and utility
    processes are handed to the worker instead of PID 1 (which never reaps them on these machines,
    so their CPU left every figure: a test's "kids" fell by it when they ended). Reaped here, their
    CPU moves from the live descendants to the reaped children. Only Chromium's: a zombie child
    of the test's own (a server it will wait for) is the test's to reap."""
    for tid in os.listdir(f"/proc/{os.getpid()}/task"):
        with contextlib.suppress(OSError):
            for child in Path(f"/proc/{os.getpid()}/task/{tid}/children").read_text().split():
                with contextlib.suppress(OSError):
                    name, rest = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)
                    if rest.split()[0] == "Z" and name.split("(", 1)[1].startswith("chrom"):
                        os.waitpid(int(child), os.WNOHANG)


def _cpu() -> tuple[float, float]:
    _reap_orphans()
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime + _live_descendants()


_current = ""
_spawned: list[str] = []


def _audit(event: str, args: tuple[Any, ...]) -> None:
    # Every process a test starts (subprocess, os.exec*, os.posix_spawn): its program and first
    # arguments, recorded with the test during which it started.
    if event in ("subprocess.Popen", "os.posix_spawn", "os.exec", "os.fork"):
        # An audit hook that raises makes the audited call raise: read the arguments warily.
        with contextlib.suppress(Exception):
            argv = args[1] if len(args) > 1 else ()
            words = [str(word) for word in list(argv)[:4]] if argv else [str(arg) for arg in args[:1]] or [event]
            _spawned.append(" ".join(words)[:160])


def pytest_configure(config: pytest.Config) -> None:
    """Record the processes the tests start (an audit hook: Popen, posix_spawn, exec); adopt the
    orphans of the process tree (:func:`_reap_orphans`)."""
    import ctypes
    import sys

    sys.addaudithook(_audit)
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, object, object]:
    """Record ``item``'s wall time and CPU (its own process's and its descendants')."""
    global _out
    if _out is None:
        folder = Path(os.environ.get("SUITE_CPU_DIR", "suite-cpu"))
        folder.mkdir(parents=True, exist_ok=True)
        _out = open(folder / f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.jsonl", "a")  # noqa: SIM115
    _spawned.clear()
    started, (own, children) = time.monotonic(), _cpu()
    try:
        return (yield)
    finally:
        own_after, children_after = _cpu()
        record = {"id": item.nodeid, "start": time.time() - (time.monotonic() - started),
                  "wall": time.monotonic() - started, "self": own_after - own,
                  "kids": children_after - children, "slow": item.get_closest_marker("slow") is not None,
                  "spawned": list(_spawned)}
        _out.write(json.dumps(record) + "\n")
        _out.flush()


def makespan(rows: list[dict[str, Any]], workers: int) -> float:
    """The run's time over these tests' wall times with ``workers`` xdist workers, as
    ``--dist loadgroup`` hands out its units (a group, ``@name`` in the id, or a single test):
    the largest groups first, each unit to the worker free first."""
    units: dict[str, list[float]] = collections.OrderedDict()
    for row in sorted(rows, key=lambda row: not row["slow"]):
        name = row["id"].split("@", 1)[1] if "@" in row["id"] else row["id"]
        unit = units.setdefault(name, [0.0, 0])
        unit[0] += row["wall"]
        unit[1] += 1
    free = [(0.0, worker) for worker in range(workers)]
    for wall, _ in sorted(units.values(), key=lambda unit: -unit[1]):
        at, worker = heapq.heappop(free)
        heapq.heappush(free, (at + wall, worker))
    return max(at for at, _ in free)


KINDS = [
    ("browser (chromium, node, the server)", ("tests/api/http/test_api_play_browser", "tests/api/http/test_api_docs_browser")),
    ("schemathesis", ("tests/api/http/test_api_schemathesis.py",)),
    ("Redis Cluster and Sentinel HA", ("tests/api/store/test_api_cluster_ha.py", "tests/api/store/test_api_sentinel_ha.py")),
    ("generated clients (Python, TypeScript, Go)", ("tests/api/http/test_api_generated_clients.py",)),
    ("invariant games and properties", ("tests/test_properties.py",)),
    ("scaffold and fan pack (pip, inner pytest, mypy)", ("tests/test_scaffold.py", "tests/test_fan_pack.py")),
    ("search bot", ("tests/test_search_bot.py",)),
    ("API tests not listed above", ("tests/api/",)),
    ("core tests not listed above", ("",)),
]
"""The kinds of test the summary adds up (docs/performance.md's table): the first whose prefix
a test's id starts with."""


def kind(test_id: str) -> str:
    """The kind (:data:`KINDS`) of the test ``test_id``."""
    return next(name for name, prefixes in KINDS if test_id.startswith(prefixes))


def unit_of(test_id: str) -> str:
    """The xdist unit of a test under ``--dist loadgroup``: its group's name, or its node id."""
    return test_id.rsplit("@", 1)[1] if test_id.rfind("@") > test_id.rfind("]") else test_id


def simulate(rows: list[dict[str, Any]], workers: int, cores: int = 2, stretch: float = 3.0) -> tuple[float, float]:
    """The run's time and its cores' mean use, in a model: each test computes for its CPU and
    waits for the rest of its wall time less ``stretch`` times its CPU (how much the profiled
    run's load stretched its computing), ``cores`` cores shared by the tests computing at once
    (a test computing a share of its time gets that share of the time of the cores it is given),
    and xdist's ``loadgroup`` hand-out of the units (a worker running short gets the next: the
    groups, largest first, then the single tests in the profiled run's order of the slow ones
    first, then by node id: about the collection's). A model, not a measurement: it leaves out
    what sharing the cores costs beyond the sharing (caches, a test whose polling grows with its
    wall time, deadlines)."""
    units: dict[str, list[list[float]]] = collections.OrderedDict()
    for row in sorted(rows, key=lambda row: (not row["slow"], row["id"])):
        cpu = max(row["self"] + row["kids"], 0.0)
        units.setdefault(unit_of(row["id"]), []).append([cpu, max(0.0, row["wall"] - stretch * cpu)])
    queue = collections.OrderedDict(sorted(units.items(), key=lambda item: -len(item[1])))
    pending: list[collections.deque[list[Any]]] = [collections.deque() for _ in range(workers)]
    running: list[list[Any] | None] = [None] * workers

    def give(worker: int) -> None:
        if not queue:
            return
        unit, tests = queue.popitem(last=False)
        pending[worker].extend([unit, cpu, wait] for cpu, wait in tests)

    for worker in range(workers):
        give(worker)
    for worker in range(workers):
        if len(pending[worker]) <= 2:
            give(worker)
    now, used, step = 0.0, 0.0, 0.05
    while True:
        for worker in range(workers):
            if running[worker] is None and pending[worker]:
                running[worker] = pending[worker].popleft()
                if len(pending[worker]) <= 2:
                    give(worker)
        active = [test for test in running if test is not None]
        if not active:
            return now, used / now / cores
        shares = [test[1] / (test[1] + test[2]) if test[1] + test[2] > 0 else 0.0 for test in active]
        speed = 1.0  # of computing, each test alike, so that the tests computing use at most the cores
        if sum(shares) > cores:
            low, high = 1e-4, 1.0
            for _ in range(30):
                speed = (low + high) / 2
                low, high = (low, speed) if sum(f / (f / speed + 1 - f) for f in shares) > cores else (speed, high)
            speed = low
        for test, share in zip(active, shares, strict=True):
            progress = step / (share / speed + 1 - share)
            test[1] -= progress * share
            test[2] -= progress * (1 - share)
            used += progress * share
        for worker, now_running in enumerate(running):
            if now_running is not None and now_running[1] + now_running[2] <= 1e-9:
                running[worker] = None
        now += step


def timeline(rows: list[dict[str, Any]], step: float) -> None:
    """Print the run in steps of ``step`` s: the cores its tests used (each test's CPU spread
    over its wall time) and the module (or group) each worker spent the most of the step in."""
    start = min(row["start"] for row in rows)
    steps = int((max(row["start"] + row["wall"] for row in rows) - start) // step) + 1
    cpu = [0.0] * steps
    spent: list[dict[str, collections.Counter[str]]] = [collections.defaultdict(collections.Counter)
                                                         for _ in range(steps)]
    for row in rows:
        begin, end = row["start"] - start, row["start"] - start + row["wall"]
        rate = max(row["self"] + row["kids"], 0.0) / max(row["wall"], 1e-6)
        name = row["id"].split("::")[0].rsplit("/", 1)[-1] + ("@" + unit_of(row["id"]) if "@" in row["id"] else "")
        at = int(begin // step)
        while at < steps and at * step < end:
            part = min(end, (at + 1) * step) - max(begin, at * step)
            cpu[at] += rate * part
            spent[at][row["worker"]][name] += part
            at += 1
    print(f"\n{'at s':>6} {'cores':>5}  each worker's module")
    for at in range(steps):
        workers = " | ".join(f"{worker}:{names.most_common(1)[0][0][:40]}" for worker, names in sorted(spent[at].items()))
        print(f"{at * step:6.0f} {cpu[at] / step:5.2f}  {workers}")


def read_run(folder: Path) -> list[dict[str, Any]]:
    """The tests of a run (``SUITE_CPU_DIR``), each with its xdist worker's name."""
    return [json.loads(line) | {"worker": path.stem} for path in sorted(folder.glob("*.jsonl")) for line in path.open()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="the SUITE_CPU_DIR of a run")
    parser.add_argument("--top", type=int, default=25, help="modules and tests to list")
    parser.add_argument("--simulate", type=int, nargs="*", default=[], metavar="WORKERS",
                        help="model the run at these numbers of xdist workers on 2 cores (see simulate)")
    parser.add_argument("--stretch", type=float, default=3.0,
                        help="for --simulate: how much the profiled run's load stretched its tests' computing")
    parser.add_argument("--timeline", type=float, default=0, metavar="S",
                        help="also print the run in steps of S seconds: the cores its tests used, each worker's test")
    args = parser.parse_args()
    rows = read_run(args.folder)
    cpu = sum(row["self"] + row["kids"] for row in rows)
    print(f"{len(rows)} tests: {sum(row['wall'] for row in rows):.0f} s of test time, {cpu:.0f} s of CPU "
          f"({sum(row['self'] for row in rows):.0f} s in the workers, {sum(row['kids'] for row in rows):.0f} s "
          f"in their descendants); loadgroup makespan at 4 workers {makespan(rows, 4):.0f} s")
    kinds: dict[str, list[float]] = {name: [0.0, 0.0, 0] for name, _ in KINDS}
    for row in rows:
        total = kinds[kind(row["id"])]
        total[0] += row["self"] + row["kids"]
        total[1] += row["self"]
        total[2] += 1
    print(f"\n{'CPU s':>8} {'workers':>8} {'children':>8} {'tests':>6}  kind")
    for name, (kind_cpu, own, count) in kinds.items():
        print(f"{kind_cpu:8.1f} {own:8.1f} {kind_cpu - own:8.1f} {count:6d}  {name}")
    modules: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0])
    for row in rows:
        module = modules[row["id"].split("::")[0]]
        module[0] += row["self"] + row["kids"]
        module[1] += row["wall"]
        module[2] += 1
    print(f"\n{'CPU s':>8} {'wall s':>8} {'tests':>6}  module")
    for name, (module_cpu, wall, count) in sorted(modules.items(), key=lambda item: -item[1][0])[: args.top]:
        print(f"{module_cpu:8.1f} {wall:8.1f} {count:6d}  {name}")
    print(f"\n{'CPU s':>8} {'wall s':>8}  test")
    for row in sorted(rows, key=lambda row: -(row["self"] + row["kids"]))[: args.top]:
        print(f"{row['self'] + row['kids']:8.1f} {row['wall']:8.1f}  {row['id']}")
    if args.timeline:
        timeline(rows, args.timeline)
    for workers in args.simulate:
        took, busy = simulate(rows, workers, stretch=args.stretch)
        print(f"model of {workers} workers on 2 cores: {took:.0f} s, the cores {busy:.0%} busy")


if __name__ == "__main__":
    main()
