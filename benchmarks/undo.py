"""What the undo rule's classification (core/undo.py) costs ``Engine.apply``: benchmarks/engine.py's
loop (random 4-player games: awaiting, legal_actions, apply) with the classification on and off
(``undo.probe`` / ``undo.track`` replaced by no-ops), in alternating phases of one process, CPU time.

    python benchmarks/undo.py [--games 6] [--rounds 12]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from darkroad.core import Engine, GameConfig, undo


def games_time(engine: Engine, games: int) -> float:
    """CPU seconds per random 4-player game."""
    start = time.process_time()
    for i in range(games):
        rng = random.Random(i)
        game, _ = engine.create(GameConfig(players=4, seed=i, random_buildings=True))
        while not game.finished:
            seat = rng.choice(engine.awaiting(game))
            engine.apply(game, rng.choice(engine.legal_actions(game, seat)))
    return (time.process_time() - start) / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=12)
    args = parser.parse_args()
    engine = Engine.load()
    on: tuple[Any, Any] = (undo.probe, undo.track)
    off: tuple[Any, Any] = (lambda *a: ("", [], [], b""), lambda *a: None)
    seconds: dict[str, list[float]] = {"on": [], "off": []}
    for i in range(args.rounds):
        phases = [("on", on), ("off", off)]
        for name, (probe, track) in phases if i % 2 == 0 else reversed(phases):
            undo.probe, undo.track = probe, track
            seconds[name].append(games_time(engine, args.games))
    undo.probe, undo.track = on
    low_on, low_off = min(seconds["on"]), min(seconds["off"])
    mid_on, mid_off = statistics.median(seconds["on"]), statistics.median(seconds["off"])
    print(f"ms per random 4-player game: on {low_on * 1e3:.1f}, off {low_off * 1e3:.1f}; "
          f"ratio of minima {low_on / low_off:.3f}, of medians {mid_on / mid_off:.3f}")


if __name__ == "__main__":
    main()
