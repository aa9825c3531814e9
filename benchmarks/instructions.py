"""Instructions per unit of work, counted by valgrind: a figure the machine's load leaves alone.

On a shared machine a timing swings by 10-30% from run to run, more than most levers buy.
The number of instructions a workload executes does not depend on the load: this runs each
workload under ``valgrind --tool=cachegrind --cache-sim=no`` twice, with a small and a larger
amount of work, and prints the difference per unit (so start-up and imports cancel out).
With ``--baseline DIR`` (an installation made with ``pip install --no-deps --target DIR
<tree>``, as ``benchmarks/api.py --baseline`` takes) it counts that tree too and prints the
ratio. The hash seed is fixed and the in-process bot worker off; the collector still moves
counts by about 1%: read smaller differences as none. Instructions are not time (a cache miss costs more than an addition),
so confirm a lever with a timing once the machine is quiet; but they rank levers reliably.

Workloads:
  engine   a random 4-player game (create, then awaiting, legal_actions, apply to the end)
  rollout  the same game as a search's rollout plays it: ``apply(..., track_undo=False)``, no
           undo classification (a baseline without that parameter plays it as ``engine``)
  greedy   the greedy bot's decisions at 60 positions of three 2-player games
  view     a seat's view of a 2-player game in progress
  action   one ``POST /v1/games/{id}/actions`` through the ASGI app with Redis
           (benchmarks/action_cpu.py; uvicorn not included): 4 games' 200 actions each,
           after 4 other games played in the same process
  action-hu  the same in Hungarian (``Accept-Language`` of a Hungarian browser: the answer's
           texts translated; a baseline before languages ignores the header)

``--without NAME`` counts the workloads twice more, with what the core remembers under NAME
switched off (:data:`SWITCHES`), and prints the share of each workload it saves: the figure a
memo's docstring gives (docs/performance.md).

    python benchmarks/instructions.py [--workloads engine,greedy,view,action,action-hu] [--baseline DIR]
    python benchmarks/instructions.py --workloads engine,view --without placements
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

PRELUDE = """
import inspect
import random
from darkroad.core import Engine, GameConfig
engine = Engine.load()
# What a search's rollout passes to apply (an engine without undo classification takes nothing).
ROLLOUT = {"track_undo": False} if "track_undo" in inspect.signature(engine.apply).parameters else {}


def played(players, seed, steps, every=0, rollout=False, **config):
    # A game after ``steps`` random actions (or at its end); with ``every``, copies of it every
    # ``every`` actions; ``rollout``: applied as a search's rollout applies them.
    r = random.Random(seed)
    how = ROLLOUT if rollout else {}
    game, _ = engine.create(GameConfig(players=players, seed=seed, **config))
    copies = []
    for k in range(steps):
        if game.finished:
            break
        seat = r.choice(engine.awaiting(game))
        engine.apply(game, r.choice(engine.legal_actions(game, seat)), **how)
        if every and k % every == 0 and not game.finished:
            copies.append(engine.copy(game))
    return game, copies
"""

_NEVER = """
class _Never(dict):
    # A table that keeps nothing: every look-up misses.
    def get(self, key, default=None):
        return default
    def keep(self, key, value):
        return value
"""


def _packer_table_off(name: str) -> str:
    """The switch of the ``Packer``'s table ``name``: every packer made with one that keeps nothing."""
    return _NEVER + f"""
from darkroad.core import storage as _s
_init = _s.Packer.__init__
def _without_table(self, *args, **kwargs):
    _init(self, *args, **kwargs)
    self.{name} = _Never()
_s.Packer.__init__ = _without_table
"""


SWITCHES = {
    "specs": _NEVER + """
from darkroad.core import engine as _e
_init = _e.Engine.__init__
def _no_specs(self, plugins):
    _init(self, plugins)
    self._specs = _Never()
_e.Engine.__init__ = _no_specs
""",
    "packer-setups": _packer_table_off("_setups"),
    "legality-options": """
from darkroad.core import kernel as _k
_k.Kernel._is_step_option = lambda self, ctx, task, step, action: True
""",
    "undo-snapshot": """
from darkroad.core import undo as _u
_u.hidden = lambda engine, game, seat: ()
_u._compare = lambda game, seat, before: (True, b"")
""",
    "invariants": """
from darkroad.core import invariants as _i
_i.broken = lambda game, steps: None
""",
    "packer-solve": _packer_table_off("_solved"),
    "placements": """
from darkroad.core import storage as _s
_placements = _s._Board.placements
def _afresh(self, shape, main_only):
    self._placements.pop((shape, main_only), None)
    return _placements(self, shape, main_only)
_s._Board.placements = _afresh
""",
    "boards": """
from darkroad.core import storage as _s
_s._board = _s._board.__wrapped__
""",
    "view-arranged": _packer_table_off("shown"),
    "words-said": _NEVER + """
from darkroad.core import wording as _w
_init = _w.Words.__init__
def _no_said(self, *args, **kwargs):
    _init(self, *args, **kwargs)
    self._said = _Never()
_w.Words.__init__ = _no_said
""",
    "plugin-versions": """
import msgspec
from darkroad.core import state as _st
_st.PluginVersions.packed = property(lambda self: msgspec.Raw(msgspec.msgpack.encode(self._versions)))
_st.PluginVersions.json = property(lambda self: msgspec.Raw(msgspec.json.encode(self._versions)))
""",
}
"""What the core remembers, each switched off by name (``--without``): the code runs before
the workload builds its engine. Three more switch off work, not memory, to say what it costs (the
answers are then wrong for an illegal action or an undo, never for the random games counted):
``legality-options`` (the options :meth:`Kernel.apply` works out to check an answer),
``undo-snapshot`` (what is hidden from the acting seat, noted and compared for undo) and
``invariants``."""

WORKLOADS = {
    "engine": ("""
for i in range(N):
    played(4, i, 10**6, random_buildings=True)
""", (0, 2), "a random 4-player game"),
    "rollout": ("""
for i in range(N):
    played(4, i, 10**6, rollout=True, random_buildings=True)
""", (0, 2), "a random 4-player game played as a rollout"),
    "greedy": ("""
bot = engine.bots["greedy"]
positions = [copy for i in range(3) for copy in played(2, i, 200, every=10)[1]]
# Engine.bot_choice since issue 40 (a baseline install before it asks the bot directly).
ask = getattr(engine, "bot_choice", lambda g, s, b: b.choose(engine, g, s, engine.legal_actions(g, s)))
for _ in range(N):
    for game in positions:
        ask(game, engine.awaiting(game)[0], bot)
""", (0, 1), "the greedy bot's 60 decisions"),
    "view": ("""
games = [played(2, i, 120)[0] for i in range(8)]
for k in range(N * 200):
    for game in games:
        engine.view(game, k % 2)
""", (0, 1), "1,600 views"),
}


def count(code: str | None, n: int, pythonpath: str, action_batches: int = 0, language: str = "",
          switch: str = "", parallel: int = 1, callgrind: str = "") -> int:
    """Instructions of one run (cachegrind's ``I refs``); ``switch``: code run first (:data:`SWITCHES`);
    ``parallel``: the action path's games played at once; ``callgrind``: the run under callgrind
    instead, its profile written to that file (``callgrind_annotate --inclusive=yes FILE``)."""
    # One hash seed (dict and set orders), no in-process bot worker polling on the wall clock.
    env = dict(os.environ, PYTHONHASHSEED="0", DARKROAD_BOTS="0")
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    if code is None:  # the action path: benchmarks/action_cpu.py with 1 or 2 batches of 4 games
        # The rate limiter's exchange with Redis runs every SYNC_INTERVAL of the wall clock, so
        # under valgrind (minutes a batch) it would count per action as much as the load says:
        # left out (every request still passes the limiter). A baseline may keep it elsewhere.
        wrapper = f"""
import runpy, sys
for name in ("darkroad.api.http.ratelimit", "darkroad.api.ratelimit"):
    try:
        module = __import__(name, fromlist=["SYNC_INTERVAL"])
    except ImportError:
        continue
    module.SYNC_INTERVAL = 1e9
{switch}
sys.argv = ["action_cpu.py", "--batches", "{action_batches}", "--games", "{_games(parallel)}", "--seeds", "{2 * _games(parallel)}", "--parallel", "{parallel}"{f', "--language", "{language}"' if language else ""}]
runpy.run_path({str(HERE / "action_cpu.py")!r}, run_name="__main__")
"""
        args = ["-c", wrapper]
    else:
        args = ["-c", switch + PRELUDE + code.replace("range(N)", f"range({n})").replace("range(N * 200)", f"range({n * 200})")]
    return valgrind_count(args, env, callgrind)


def valgrind_count(args: list[str], env: dict[str, str], callgrind: str = "") -> int:
    """Instructions of ``python *args`` under valgrind (cachegrind's ``I refs``; with
    ``callgrind``, callgrind's total, its profile written to that file); exits when it fails."""
    tool = ["--tool=callgrind", f"--callgrind-out-file={callgrind}"] if callgrind else \
        ["--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    run = subprocess.run(
        ["valgrind", *tool, sys.executable, *args],
        capture_output=True, text=True, env=env, cwd=tempfile.gettempdir(), check=False,
    )  # fmt: skip
    found = re.search(r"(?:I\s+refs|Collected)\s*:\s+([\d,]+)", run.stderr)
    if run.returncode != 0 or found is None:
        sys.exit(f"valgrind run failed ({run.returncode}):\n{run.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def _games(parallel: int) -> int:
    """The games of an action batch: 4, or as many as are played at once."""
    return max(4, parallel)


def per_unit(workload: str, pythonpath: str, switch: str = "", parallel: int = 1) -> tuple[float, str]:
    """Instructions per unit of ``workload`` and the unit's name (``parallel``: the action path's
    games played at once, their commits sharing Redis pipelines)."""
    if workload in ("action", "action-hu"):
        # Two batches minus one: one batch of 4 games x 200 actions (its games' creation included),
        # the second batch's games not the first's (seeds 4-7), so that what a tree keeps by
        # value from view to view is counted as a server meets it, not found again whole.
        language = workload.partition("-")[2]
        small = count(None, 0, pythonpath, 1, language, switch, parallel)
        large = count(None, 0, pythonpath, 2, language, switch, parallel)
        unit = "POST .../actions through the app" + (f" in {language}" if language else "")
        return (large - small) / (200 * _games(parallel)), unit + (f", {parallel} games at once" if parallel > 1 else "")
    code, (a, b), unit = WORKLOADS[workload]
    return (count(code, b, pythonpath, switch=switch) - count(code, a, pythonpath, switch=switch)) / (b - a), unit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workloads", default="engine,greedy,view")
    parser.add_argument("--baseline", default="", help="a baseline installation (pip install --target DIR)")
    parser.add_argument("--without", default="", help=f"switch off one of: {', '.join(SWITCHES)}")
    parser.add_argument("--parallel", type=int, default=1,
                        help="action workloads: games played at once (their commits share pipelines)")
    parser.add_argument("--callgrind", metavar="FILE", default="",
                        help="write a callgrind profile of one action batch (its start-up included) to FILE")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (Debian: apt-get install valgrind)")
    if args.callgrind:
        count(None, 0, args.baseline, 1, parallel=args.parallel, callgrind=args.callgrind)
        print(f"callgrind_annotate --inclusive=yes {args.callgrind}")
        return
    for workload in args.workloads.split(","):
        ours, unit = per_unit(workload, "", parallel=args.parallel)
        line = f"{workload:7s} {ours / 1e6:9.3f} M instructions per {unit}"
        if args.baseline:
            theirs, _ = per_unit(workload, args.baseline, parallel=args.parallel)
            line += f"; baseline {theirs / 1e6:.3f} M: {theirs / ours:.2f}x fewer"
        if args.without:
            without, _ = per_unit(workload, "", SWITCHES[args.without], args.parallel)
            line += f"; without {args.without} {without / 1e6:.3f} M: it saves {(without - ours) / without:.1%}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
