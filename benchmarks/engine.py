"""Engine benchmark: full random 4-player games per second (one core), mean legal-action
enumeration time, storage-fit check time, serialised mid-game state size.

Targets (issue 2): >= 40 random 4-player games per second on one core; a serialised
mid-game state under 8 KB.

    python benchmarks/engine.py [--games 200] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from darkroad.core import Engine, GameConfig
from darkroad.core.storage import Packer, StorageSpec


def random_games(engine: Engine, games: int, seed: int) -> dict[str, float]:
    start = time.perf_counter()
    cpu_start = time.process_time()
    steps = 0
    enum_time = 0.0
    enum_calls = 0
    mid_sizes: list[int] = []
    for i in range(games):
        r = random.Random(seed + i)
        game, _ = engine.create(GameConfig(players=4, seed=seed + i, random_buildings=True))
        n = 0
        while not game.finished:
            seat = r.choice(engine.awaiting(game))
            t0 = time.perf_counter()
            legal = engine.legal_actions(game, seat)
            enum_time += time.perf_counter() - t0
            enum_calls += 1
            engine.apply(game, r.choice(legal))
            n += 1
            if game.round == 7 and len(mid_sizes) == i:
                mid_sizes.append(len(engine.dumps(game)))
        steps += n
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    return {
        "games": games,
        "seconds": round(seconds, 3),
        "games_per_second": round(games / seconds, 2),
        # CPU time of this (single-threaded) process: games per second of one core, even
        # when other processes share the machine.
        "games_per_cpu_second": round(games / cpu, 2),
        "actions_per_game": round(steps / games, 1),
        "legal_actions_mean_us": round(enum_time / enum_calls * 1e6, 1),
        "mid_game_state_bytes_mean": round(statistics.mean(mid_sizes)),
        "mid_game_state_bytes_max": max(mid_sizes),
    }


def storage_checks(engine: Engine, seed: int, n: int = 5000) -> dict[str, float]:
    r = random.Random(seed)
    goods = list(engine.content.good_ids)
    samples = [[r.choice(goods) for _ in range(r.randint(3, 11))] for _ in range(n)]
    packer = Packer({g.id: g.footprint for g in engine.content.goods})  # a cold cache
    spec = StorageSpec()
    t0 = time.perf_counter()
    for s in samples:
        packer.fits(s, spec)
    cold = (time.perf_counter() - t0) / n
    t0 = time.perf_counter()
    for s in samples:
        packer.fits(s, spec)
    warm = (time.perf_counter() - t0) / n
    return {"fit_checks": n, "fit_cold_mean_us": round(cold * 1e6, 1), "fit_warm_mean_us": round(warm * 1e6, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    engine = Engine.load()
    out: dict[str, object] = {**random_games(engine, args.games, args.seed), **storage_checks(engine, args.seed)}
    out["targets"] = {"games_per_cpu_second": ">= 40", "mid_game_state_bytes": "< 8192"}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
