"""A probe of a server process, for ``benchmarks/side_by_side.py --probe``: imported by any
Python process started with this folder on its ``PYTHONPATH`` (``sitecustomize``), it does
nothing unless ``DARKROAD_PROBE`` names a folder. Then every quarter second it writes
``PID.json`` there with, so far:

* the cyclic garbage collector's collections by generation, the objects they freed and their
  time (``time.thread_time`` of the collecting thread), from ``gc.callbacks``; and the objects
  it tracks (every 2 s: listing them holds the GIL for milliseconds);
* the pipelines sent to Redis (``Node.pipeline`` of ``darkroad.api.store.topology``, wrapped
  once the server imported it: every tree since the batcher has it), their commands, and how
  many were on their way when each was sent;
* the event loop's work asked of it through its methods (a subclass of uvloop's ``Loop``,
  which uvicorn makes by ``uvloop.new_event_loop``): tasks (``create_task``), futures
  (``create_future``), callbacks (``call_soon``: a task's every step and every future's
  done-callbacks come through it) and timers (``call_at``, ``call_later``). uvloop's own
  Cython calls to itself do not pass there (a transport's reads and writes).

With ``DARKROAD_PROFILE`` also set (a path), ``SIGUSR1`` starts ``cProfile`` on the main thread
(``time.thread_time``: CPU, not wall) and the next one stops it and writes ``PATH.PID``.
"""

import gc
import itertools
import json
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any


def _collections() -> dict[str, list[float]]:
    """The collector's counts so far, kept up to date by a callback."""
    counts: dict[str, list[float]] = {"collections": [0, 0, 0], "collected": [0, 0, 0], "cpu": [0.0, 0.0, 0.0]}
    began = [0.0]

    def callback(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[0] = time.thread_time()
            return
        g = info["generation"]
        counts["collections"][g] += 1
        counts["collected"][g] += info["collected"]
        counts["cpu"][g] += time.thread_time() - began[0]

    gc.callbacks.append(callback)
    return counts


def _pipelines() -> tuple[dict[str, int], Callable[[], bool]]:
    """The pipelines' counts, and a function that wraps ``Node.pipeline`` once it is imported
    (true when done)."""
    counts = {"pipelines": 0, "commands": 0, "flying": 0}
    flying = [0]

    def wrap() -> bool:
        topology = sys.modules.get("darkroad.api.store.topology")
        if topology is None or not hasattr(topology, "Node"):
            return False
        original = topology.Node.pipeline

        async def pipeline(self, commands):  # type: ignore[no-untyped-def]
            counts["pipelines"] += 1
            counts["commands"] += len(commands)
            counts["flying"] += flying[0]
            flying[0] += 1
            try:
                return await original(self, commands)
            finally:
                flying[0] -= 1

        topology.Node.pipeline = pipeline
        return True

    return counts, wrap


def _loop_calls() -> dict[str, int]:
    """The counts of the event loop's methods called, once ``uvloop.new_event_loop`` made it."""
    counts = {"tasks": 0, "futures": 0, "callbacks": 0, "timers": 0}
    try:
        import uvloop
    except ImportError:
        return counts

    def counted(name: str, key: str) -> Callable[..., Any]:
        method = getattr(uvloop.Loop, name)

        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            counts[key] += 1
            return method(self, *args, **kwargs)

        return call

    methods = {"create_task": "tasks", "create_future": "futures", "call_soon": "callbacks", "call_at": "timers",
               "call_later": "timers"}  # fmt: skip
    Loop = type("Loop", (uvloop.Loop,), {name: counted(name, key) for name, key in methods.items()})
    uvloop.new_event_loop = Loop
    return counts


def _install(folder: str) -> None:
    collections = _collections()
    pipelines, wrap = _pipelines()
    loop = _loop_calls()
    path = os.path.join(folder, f"{os.getpid()}.json")

    def dump() -> None:
        wrapped, tracked = False, 0
        for n in itertools.count():
            wrapped = wrapped or wrap()
            if n % 8 == 0:
                tracked = len(gc.get_objects())
            with open(path + ".tmp", "w") as f:
                json.dump({**collections, "tracked": tracked, "pipes": pipelines, "loop": loop}, f)
            os.replace(path + ".tmp", path)
            time.sleep(0.25)

    threading.Thread(target=dump, daemon=True, name="probe").start()


def _profile(path: str) -> None:
    import cProfile
    import signal

    profiler = cProfile.Profile(time.thread_time)
    running = [False]

    def toggle(signum: int, frame: object) -> None:
        if running[0]:
            profiler.disable()
            profiler.dump_stats(f"{path}.{os.getpid()}")
        else:
            profiler.enable()
        running[0] = not running[0]

    signal.signal(signal.SIGUSR1, toggle)


if os.environ.get("DARKROAD_PROBE"):
    _install(os.environ["DARKROAD_PROBE"])
    if os.environ.get("DARKROAD_PROFILE"):
        _profile(os.environ["DARKROAD_PROFILE"])
