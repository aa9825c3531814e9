"""darkroad.env's speed against the bare engine (issue 40): environment steps per CPU-second
against the engine's random-play actions per CPU-second, the phases alternating in one run.

* **engine**: random play on the bare engine, as ``darkroad simulate`` plays it: the first
  awaited seat, its legal actions, one at random, applied (``track_undo=False``, as the
  environments apply theirs: a game no seat will undo). The legal actions are put in the
  action catalogue's order (by type, then option) before the draw, so that the engine and the
  environments draw the same action from the same random numbers: every phase plays the very
  same games (the run checks that their steps are equal), and the ratio compares the same work;
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

``--instructions`` counts instead, with valgrind's callgrind, the instructions of each phase per
step: a figure the machine's load leaves alone (as benchmarks/instructions.py counts the
engine's), and the same run after run. Each phase's games are played inside
``functools.reduce`` and only what runs inside it is counted
(``--toggle-collect=functools_reduce``), so start-up, imports and the making of the
environment are left out (counting whole runs and subtracting a short run from a long one
moved by tens of thousands of instructions a step from run to run)::

    .venv/bin/python benchmarks/env.py --instructions [--games 4] [--players 2]

``--observation`` counts the same way the instructions of the raw environment's observations
alone (``Encoder.encode``, each called inside ``functools.reduce``; the games after one played
first), per step::

    .venv/bin/python benchmarks/env.py --observation [--games 3] [--players 2]

``--cache`` counts the same way with callgrind's cache and branch simulation (a 32 KiB
first-level instruction and data cache, as this machine's): per step, the instructions, the
first-level instruction and data cache misses and the mispredicted branches of each phase, and
of the instructions an environment adds to the engine's, those events per 1,000: what makes an
instruction of one phase cost more time than one of the other (docs/agents.md, Speed)::

    .venv/bin/python benchmarks/env.py --cache [--games 3] [--players 2]

``--against DIR`` times instead, in CPU time, this tree's ``env`` and ``raw_env`` against
another version's (``DIR``: a copy of its ``env/`` folder, e.g. ``mkdir DIR && git archive
1f6e95c env | tar -x -C DIR --strip-components=1``, imported as another package) and the
engine, alternating in one process, the order reversed every other round (``--games`` games
a round: few games and many rounds let the machine's load fall on every phase alike)::

    .venv/bin/python benchmarks/env.py --against DIR --games 2 --rounds 150
"""

from __future__ import annotations

import argparse
import concurrent.futures
import functools
import importlib.util
import json
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Callable
from operator import attrgetter
from typing import Any

import numpy as np
import numpy.typing as npt

import darkroad.env as denv
from darkroad.core import Engine, GameConfig

_CATALOGUE_ORDER = attrgetter("type", "option")
"""The order of the action catalogue's indices (decision kinds by name, options sorted): the
mask's order of the same actions."""


def engine_phase(engine: Engine, players: int, seeds: range) -> int:
    actions = 0
    for seed in seeds:
        # the game an environment reset with ``seed`` plays (Match.new_game draws its seed)
        game, _ = engine.create(GameConfig(players=players, seed=random.Random(seed).randrange(2**31)))
        r = random.Random(seed)
        while not game.finished:
            seat = engine.awaiting(game)[0]
            legal = engine.legal_actions(game, seat)
            legal.sort(key=_CATALOGUE_ORDER)
            engine.apply(game, r.choice(legal), track_undo=False)
            actions += 1
    return actions


def legal_indices(mask: npt.NDArray[np.int8]) -> list[int]:
    """The indices a mask allows, as a masked random agent finds them: NumPy finds the nonzero
    entries of a boolean array several times faster than of an int8 one (its fast path), and a
    mask is 0 or 1, so it is read as booleans."""
    return mask.view(np.bool_).nonzero()[0].tolist()


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
            env.step(r.choice(legal_indices(obs["action_mask"])))  # type: ignore[attr-defined]
            steps += 1
    return steps


def single_phase(engine: Engine, players: int, seeds: range, env: Any = None) -> int:
    steps = 0
    env = env or denv.single(players=players, opponents="random", engine=engine)
    for seed in seeds:
        _, info = env.reset(seed=seed)
        r = random.Random(seed)
        done = False
        while not done:
            action = r.choice(legal_indices(info["action_mask"]))
            _, _, done, truncated, info = env.step(action)
            done = done or truncated
            steps += 1
    return steps


def play_counted(name: str, engine: Engine, players: int, games: int) -> int:
    """Phase ``name``'s games, each played inside ``functools.reduce``: what callgrind counts
    with ``--toggle-collect=functools_reduce`` (a C function of CPython's), so that start-up,
    imports, the engine's loading and the environment's making are left out. One game is
    played first, outside it, so that every module and table is ready."""
    if name == "engine":
        def play(seed: int) -> int:
            return engine_phase(engine, players, range(seed, seed + 1))
    elif name == "observation":  # the raw environment's games, only its encoder's work counted
        raw = denv.raw_env(players=players, engine=engine)
        encoder = raw.match.encoder
        encode = encoder.encode

        def counted(game: Any, seat: int, awaiting: Any = None) -> Any:
            return functools.reduce(lambda _, __: encode(game, seat, awaiting), (0,), None)

        aec_phase(lambda: raw, range(games, games + 1))
        encoder.encode = counted  # type: ignore[method-assign]
        return aec_phase(lambda: raw, range(games))
    else:
        made = (denv.env if name == "env" else denv.raw_env)(players=players, engine=engine)

        def play(seed: int) -> int:
            return aec_phase(lambda: made, range(seed, seed + 1))
    play(games)  # a game of a seed after the counted ones
    return functools.reduce(lambda steps, seed: steps + play(seed), range(games), 0)


CACHE_SIM = ("--cache-sim=yes", "--branch-sim=yes", "--I1=32768,8,64", "--D1=32768,8,64", "--LL=8388608,16,64")
"""Callgrind's cache and branch simulation (``--cache``): the first-level caches of this
machine's cores, and a last level given (callgrind reads a shared cache's size wrongly here)."""


def count_events(name: str, games: int, players: int, sim: tuple[str, ...] = ()) -> tuple[dict[str, int], int]:
    """Callgrind's events (``Ir``: instructions; with ``sim``, cache misses and branches too)
    and steps of phase ``name``'s ``games`` games (:func:`play_counted`)."""
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", "--toggle-collect=functools_reduce", "--callgrind-out-file=/dev/null", *sim,
         sys.executable, __file__, "--play", name, "--games", str(games), "--players", str(players)],
        capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"},
        check=False)
    events = re.search(r"Events\s*:\s*([\w ]+)$", run.stderr, re.M)
    found = re.search(r"Collected\s*:\s*([\d ]+)$", run.stderr, re.M)
    steps = re.search(r"^steps (\d+)$", run.stdout, re.M)
    if run.returncode or events is None or found is None or steps is None:
        raise SystemExit(f"valgrind run failed ({run.returncode}):\n{run.stderr[-2000:]}")
    return dict(zip(events.group(1).split(), map(int, found.group(1).split()), strict=True)), int(steps.group(1))


def count_instructions(name: str, games: int, players: int) -> tuple[int, int]:
    """Instructions and steps of phase ``name``'s ``games`` games (:func:`play_counted`),
    counted by valgrind's callgrind."""
    events, steps = count_events(name, games, players)
    return events["Ir"], steps


def instructions(games: int, players: int) -> dict[str, object]:
    """Instructions per step of each phase and the ratio of the engine's to each; the phases
    are counted two at a time (valgrind runs one thread a process)."""
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        counted = dict(zip(PHASES, pool.map(lambda name: count_instructions(name, games, players), PHASES),
                           strict=True))
    per_step = {name: ir / steps for name, (ir, steps) in counted.items()}
    return {"players": players, "games": games, "steps": {name: steps for name, (_, steps) in counted.items()},
            "instructions_per_step": {k: round(v) for k, v in per_step.items()},
            "ratio_to_engine": {k: round(per_step["engine"] / v, 3) for k, v in per_step.items()}}


def cache(games: int, players: int) -> dict[str, object]:
    """Per step of the engine's and the wrapped environment's phases: instructions, first-level
    cache misses (instruction; data, read and written) and mispredicted branches (conditional
    and indirect); and, of what the environment adds to the engine's step, those events per
    1,000 instructions against the engine's own rate."""
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        counted = dict(zip(("engine", "env"), pool.map(lambda name: count_events(name, games, players, CACHE_SIM),
                                                       ("engine", "env")), strict=True))
    kinds = {"instructions": ("Ir",), "I1_misses": ("I1mr",), "D1_misses": ("D1mr", "D1mw"),
             "mispredicted_branches": ("Bcm", "Bim")}
    per_step = {name: {k: sum(events[e] for e in names) / steps for k, names in kinds.items()}
                for name, (events, steps) in counted.items()}
    engine, env = per_step["engine"], per_step["env"]
    added = env["instructions"] - engine["instructions"]
    return {"players": players, "games": games,
            "per_step": {name: {k: round(v) for k, v in row.items()} for name, row in per_step.items()},
            "per_1000_instructions": {
                "engine": {k: round(1000 * engine[k] / engine["instructions"], 1) for k in kinds if k != "instructions"},
                "env_added": {k: round(1000 * (env[k] - engine[k]) / added, 1) for k in kinds if k != "instructions"}}}


PHASES = ("engine", "raw", "env")
"""The phases ``--instructions`` counts."""


def against(folder: str, games: int, rounds: int, players: int) -> dict[str, object]:
    """``--against``: steps per CPU-second of this tree's environments and of the ``env/`` in
    ``folder`` (imported as the package ``env_against``), against the engine's."""
    spec = importlib.util.spec_from_file_location("env_against", os.path.join(folder, "__init__.py"),
                                                  submodule_search_locations=[folder])
    if spec is None or spec.loader is None:
        raise SystemExit(f"no env package in {folder}")
    other = importlib.util.module_from_spec(spec)
    sys.modules["env_against"] = other
    spec.loader.exec_module(other)
    engine = Engine.load()
    made = {"env": denv.env(players=players, engine=engine), "raw": denv.raw_env(players=players, engine=engine),
            "env_against": other.env(players=players, engine=engine),
            "raw_against": other.raw_env(players=players, engine=engine)}
    phases: dict[str, Callable[[range], int]] = {"engine": lambda seeds: engine_phase(engine, players, seeds)}
    for name, env in made.items():
        phases[name] = functools.partial(lambda env, seeds: aec_phase(lambda: env, seeds), env)
    totals = {name: [0, 0.0] for name in phases}
    for k in range(rounds):
        seeds = range(k * games, (k + 1) * games)
        for name in (list(phases) if k % 2 == 0 else list(phases)[::-1]):
            t0 = time.process_time()
            totals[name][0] += phases[name](seeds)
            totals[name][1] += time.process_time() - t0
    if len({n for n, _ in totals.values()}) != 1:
        raise SystemExit(f"the phases played different games: steps {totals}")
    rate = {name: n / s for name, (n, s) in totals.items()}
    return {"players": players, "games_per_round": games, "rounds": rounds,
            **{name: {"steps": n, "cpu_seconds": round(s, 3), "per_cpu_second": round(rate[name], 1),
                      "ratio_to_engine": round(rate[name] / rate["engine"], 3)} for name, (n, s) in totals.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20, help="games per phase per round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, each playing every phase once")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--instructions", action="store_true", help="count instructions with valgrind instead")
    parser.add_argument("--observation", action="store_true",
                        help="count with valgrind the instructions of the raw environment's observations alone")
    parser.add_argument("--cache", action="store_true",
                        help="simulate the caches and branches with valgrind: misses per step, engine and env")
    parser.add_argument("--against", metavar="DIR",
                        help="time this tree's environments against the env/ package copied into DIR")
    parser.add_argument("--play", help=argparse.SUPPRESS)  # one phase's games (what --instructions counts)
    args = parser.parse_args()
    players = args.players
    if args.instructions:
        print(json.dumps(instructions(args.games, players), indent=2))
        return
    if args.cache:
        print(json.dumps(cache(args.games, players), indent=2))
        return
    if args.against:
        print(json.dumps(against(args.against, args.games, args.rounds, players), indent=2))
        return
    if args.observation:
        ir, steps = count_instructions("observation", args.games, players)
        print(json.dumps({"players": players, "games": args.games, "steps": steps,
                          "observation_instructions_per_step": round(ir / steps)}, indent=2))
        return
    engine = Engine.load()
    if args.play:
        print(f"steps {play_counted(args.play, engine, players, args.games)}")
        return
    # Each environment is made once, before the rounds, as the engine is loaded once: a
    # training loop makes its environment once and resets it for each game, and the counts of
    # --instructions leave the making out too (it is in both of their runs).
    made = {"env": denv.env(players=players, engine=engine), "raw": denv.raw_env(players=players, engine=engine),
            "single": denv.single(players=players, opponents="random", engine=engine)}
    phases: dict[str, Callable[[range], int]] = {
        "engine": lambda seeds: engine_phase(engine, players, seeds),
        "env": lambda seeds: aec_phase(lambda: made["env"], seeds),
        "raw": lambda seeds: aec_phase(lambda: made["raw"], seeds),
        "single": lambda seeds: single_phase(engine, players, seeds, made["single"]),
    }
    totals = {name: [0, 0.0] for name in phases}
    for k in range(args.rounds):
        seeds = range(k * args.games, (k + 1) * args.games)
        for name, phase in phases.items():
            t0 = time.process_time()
            n = phase(seeds)
            totals[name][0] += n
            totals[name][1] += time.process_time() - t0
    if not totals["engine"][0] == totals["env"][0] == totals["raw"][0]:
        raise SystemExit(f"the phases played different games: steps {totals}")
    rate = {name: n / s for name, (n, s) in totals.items()}
    out = {name: {"steps": n, "cpu_seconds": round(s, 3), "per_cpu_second": round(rate[name], 1),
                  "ratio_to_engine": round(rate[name] / rate["engine"], 3)} for name, (n, s) in totals.items()}
    print(json.dumps({"players": players, "games_per_round": args.games, "rounds": args.rounds, **out}, indent=2))


if __name__ == "__main__":
    main()
