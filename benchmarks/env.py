"""darkroad.env's speed against the bare engine (issue 40): environment steps per CPU-second
against the engine's random-play actions per CPU-second, the phases alternating in one run.

* **engine**: random play on the bare engine, as ``darkroad simulate`` plays it: the first
  awaited seat, its legal actions, one at random, applied (``track_undo=False``, as the
  environments apply theirs: a game no seat will undo);
* **env**: the same games through ``darkroad.env.env`` (the wrapped AEC environment users
  get): ``env.last()`` (the agent's observation, with its action mask), a random action of the
  mask, ``env.step``;
* **raw**: the same through ``raw_env`` (no PettingZoo wrappers);
* **single**: ``darkroad.env.single`` against ``random`` opponents (the bots' moves are not
  the agent's steps: its steps per CPU-second count the agent's own).

The goal: env >= 0.7x engine. Usage::

    .venv/bin/python benchmarks/env.py [--games 20] [--rounds 3] [--players 2]

CPU time (``time.process_time``) of this process only, so other load on the machine counts
less than in wall time; each round plays every phase once, on the same seeds.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable

import numpy as np

import darkroad.env as denv
from darkroad.core import Engine, GameConfig


def engine_phase(engine: Engine, players: int, seeds: range) -> int:
    actions = 0
    for seed in seeds:
        game, _ = engine.create(GameConfig(players=players, seed=seed))
        r = random.Random(seed)
        while not game.finished:
            seat = engine.awaiting(game)[0]
            engine.apply(game, r.choice(engine.legal_actions(game, seat)), track_undo=False)
            actions += 1
    return actions


def aec_phase(make: Callable[[], object], seeds: range) -> int:
    steps = 0
    env = make()  # one environment, reset for each game (as a training loop does)
    for seed in seeds:
        env.reset(seed=seed)  # type: ignore[attr-defined]
        r = random.Random(seed)
        for _agent in env.agent_iter():  # type: ignore[attr-defined]
            obs, _, term, trunc, _ = env.last()  # type: ignore[attr-defined]
            if term or trunc:
                env.step(None)  # type: ignore[attr-defined]
                continue
            env.step(r.choice(np.flatnonzero(obs["action_mask"]).tolist()))  # type: ignore[attr-defined]
            steps += 1
    return steps


def single_phase(engine: Engine, players: int, seeds: range) -> int:
    steps = 0
    env = denv.single(players=players, opponents="random", engine=engine)
    for seed in seeds:
        _, info = env.reset(seed=seed)
        r = random.Random(seed)
        done = False
        while not done:
            action = r.choice(np.flatnonzero(info["action_mask"]).tolist())
            _, _, done, truncated, info = env.step(action)
            done = done or truncated
            steps += 1
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games per phase per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, each playing every phase once")
    parser.add_argument("--players", type=int, default=2)
    args = parser.parse_args()
    engine = Engine.load()
    players = args.players
    phases: dict[str, Callable[[range], int]] = {
        "engine": lambda seeds: engine_phase(engine, players, seeds),
        "env": lambda seeds: aec_phase(lambda: denv.env(players=players, engine=engine), seeds),
        "raw": lambda seeds: aec_phase(lambda: denv.raw_env(players=players, engine=engine), seeds),
        "single": lambda seeds: single_phase(engine, players, seeds),
    }
    totals = {name: [0, 0.0] for name in phases}
    for k in range(args.rounds):
        seeds = range(k * args.games, (k + 1) * args.games)
        for name, phase in phases.items():
            t0 = time.process_time()
            n = phase(seeds)
            totals[name][0] += n
            totals[name][1] += time.process_time() - t0
    rate = {name: n / s for name, (n, s) in totals.items()}
    out = {name: {"steps": n, "cpu_seconds": round(s, 3), "per_cpu_second": round(rate[name], 1),
                  "ratio_to_engine": round(rate[name] / rate["engine"], 3)} for name, (n, s) in totals.items()}
    print(json.dumps({"players": players, "games_per_round": args.games, "rounds": args.rounds, **out}, indent=2))


if __name__ == "__main__":
    main()
