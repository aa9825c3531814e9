"""Instructions per part of the view an action answers with, counted by valgrind.

The positions are the action workload's (``benchmarks/instructions.py --workloads action``: the
4 games x 200 random actions of ``benchmarks/action_cpu.py``, 2 players); at each, the acting
seat's view as the API builds it (names, the players' blocks kept encoded by
:class:`~darkroad.core.view.EncodedPlayers`, a table of its own each pass: a view finds in it
the blocks of the position before it, as a server's does). Each part runs once over the 800
positions to warm up, then once more; cachegrind counts the run with and without the second
pass, and the difference per position, less that of a part doing nothing (the loop's own cost),
is printed. The positions are frozen out of the collector's way (``gc.freeze``): 800 games
kept alive would charge their traversal to whichever part allocates.

    python benchmarks/view_parts.py [--parts view,projection,specs,...] [--baseline DIR]

``--baseline DIR``: the same parts of an installation made with ``pip install --no-deps
--target DIR <tree>`` (as ``benchmarks/instructions.py --baseline`` takes).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # benchmarks/ is no package
from instructions import valgrind_count  # type: ignore[import-not-found]  # noqa: E402

SETUP = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("_bench_api", {api!r})
bench = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = bench
spec.loader.exec_module(bench)
import msgspec
from darkroad.core import Engine, GameConfig
from darkroad.core import view as V
from darkroad.core.context import Ctx
try:  # (a baseline before the projection module, or before a deed was asked of its plugin: no such parts)
    from darkroad.core.projection import projected, projections
    from darkroad.core.rulebook.scoring import deed_score
except ImportError:
    pass
from darkroad.core.undo import available
try:  # (the board has a module of its own since session 9)
    from darkroad.core.view_board import board_block
except ImportError:
    board_block = V._board
engine = Engine.load()
positions = []
for script in bench.scripts(engine, 4, 800)[:4]:
    game, _ = engine.create(GameConfig(players=2, seed=script.seed))
    for a in script.actions[:200]:
        action = engine.action_from_json(a)
        engine.apply(game, action)
        positions.append((engine.copy(game), action.seat))
names = ["Ann", "Bob"]
import gc
gc.collect()
gc.freeze()  # the 800 positions out of the collector's way: it would charge their traversal to the parts
"""

PARTS = {
    "nothing": "pass",
    "view": "msgspec.json.encode(engine.view(game, seat, names=names, encoded=encoded))",
    "build": "engine.view(game, seat, names=names, encoded=encoded)",
    "projection": "projected(engine, game, seat, Ctx(engine, game))",
    # (what a view to encode holds: the structs themselves)
    "projections": "projections(engine, game, seat, Ctx(engine, game))",
    # the viewer's deeds scored through darkroad_deed_score, one by one
    "deeds": "ctx = Ctx(engine, game)\n    for deed in game.players[seat].deeds:\n        deed_score(ctx, seat, deed)",
    "players": "V._encoded_players(engine, Ctx(engine, game), seat, names, game.finished) "
               "if hasattr(V, '_encoded_players') else V._players(engine, Ctx(engine, game), seat, names, encoded)",
    "specs": "ctx = Ctx(engine, game)\n    for p in game.players:\n        engine.storage_spec(ctx, p.seat)",
    "board": "board_block(engine, game, encoded)",
    "decision": "engine.decision(game)",
    "undo": "available(game, seat)",
    "config": "V._config(engine, game, True)",
    "context": "Ctx(engine, game)",
    "pack": "engine.pack(game)",
}
"""Each part's code at one position (``game``, ``seat``)."""


def _code(part: str, passes: int) -> str:
    body = PARTS[part]
    return SETUP.format(api=str(HERE / "api.py")) + f"""
def run(game, seat):
    {body}
for _ in range(1 + {passes}):
    encoded = V.EncodedPlayers(engine)  # each pass finds in it only what the position before it kept
    for game, seat in positions:
        run(game, seat)
"""


def count(part: str, passes: int, pythonpath: str) -> int:
    """Instructions of one run (cachegrind's ``I refs``)."""
    env = dict(os.environ, PYTHONHASHSEED="0", DARKROAD_BOTS="0")
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    instructions: int = valgrind_count(["-c", _code(part, passes)], env)
    return instructions


def per_position(part: str, pythonpath: str) -> float:
    """Instructions of ``part`` per position (the second pass's, 800 positions)."""
    return (count(part, 1, pythonpath) - count(part, 0, pythonpath)) / 800


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--parts", default="view,build,projection,players,specs,board,decision,undo,config")
    parser.add_argument("--baseline", default="", help="a baseline installation (pip install --target DIR)")
    args = parser.parse_args()
    trees = [("this tree", "")] + ([("baseline", args.baseline)] if args.baseline else [])
    loop = {name: per_position("nothing", path) for name, path in trees}
    for part in args.parts.split(","):
        line = f"{part:10s}"
        for name, path in trees:
            line += f"  {name}: {per_position(part, path) - loop[name]:9,.0f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
