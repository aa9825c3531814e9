"""The search bot's think time per decision (issue 40): its distribution by decision kind, to
calibrate the bot's budget of trials (actions tried in its rollouts) so that a decision takes at most 100 ms on a worker.

Plays ``--games`` games of ``--players`` seats, every seat the bot ``--bot`` (default
``search``, the lobby's default bot), each decision asked as :meth:`Engine.bot_choice` asks it
(the seat's information state; a forced move is not asked). For every decision asked it records
the CPU time of the thinking thread (``time.thread_time``: what the decision costs a worker with
a core of its own, whatever else the machine runs), the wall-clock time, the samples drawn and
what stopped the search (``budget``: its trials; ``settled``: more samples could not change the
answer; ``clock``: the safety limit ``think_time``). It prints, per decision kind and over all,
the median, 95th percentile and maximum::

    .venv/bin/python benchmarks/think_time.py --players 2 --games 10 --seed 0
    .venv/bin/python benchmarks/think_time.py --bot search:trials=600 --players 4 --games 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter, defaultdict
from typing import Any

from darkroad.api.tools.simulation import seat_bots
from darkroad.core import Engine, GameConfig
from darkroad.core.bots import info_state
from darkroad.plugins.bots.search_bot import SearchBot


def quantile(xs: list[float], q: float) -> float:
    """The ``q`` quantile of ``xs`` (nearest rank)."""
    ordered = sorted(xs)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def play(engine: Engine, bot: SearchBot, players: int, seed: int) -> list[dict[str, Any]]:
    """One game of ``bot`` at every seat; a record per decision asked."""
    game, _ = engine.create(GameConfig(players=players, seed=seed))
    out = []
    while not game.finished:
        seat = engine.awaiting(game)[0]
        legal = engine.legal_actions(game, seat)
        if len(legal) == 1:
            engine.apply(game, legal[0])
            continue
        w0, c0 = time.perf_counter(), time.thread_time()
        state = info_state(engine, game, seat, bot, legal)
        thought = bot.think(engine, seat, legal, state.sample, state.rng)
        cpu, wall = time.thread_time() - c0, time.perf_counter() - w0
        out.append({"kind": legal[0].type, "legal": len(legal), "samples": thought.samples, "trials": thought.trials, "stop": thought.stop,
                    "cpu_ms": 1000 * cpu, "wall_ms": 1000 * wall})
        engine.apply(game, thought.action)
    return out


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    cpu = [r["cpu_ms"] for r in rows]
    wall = [r["wall_ms"] for r in rows]
    return {"decisions": len(rows), "legal_median": statistics.median(r["legal"] for r in rows),
            "samples_mean": round(statistics.fmean(r["samples"] for r in rows), 1),
            "cpu_ms": [round(statistics.median(cpu), 1), round(quantile(cpu, 0.95), 1), round(max(cpu), 1)],
            "wall_ms": [round(statistics.median(wall), 1), round(quantile(wall, 0.95), 1), round(max(wall), 1)],
            "trials_mean": round(statistics.fmean(r["trials"] for r in rows)),
            "us_per_trial": [round(1000 * quantile([r["cpu_ms"] / r["trials"] for r in rows], q)) for q in (0.5, 1.0)],
            "stops": dict(Counter(r["stop"] for r in rows))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bot", default="search", help="the search bot with options, as darkroad arena names it")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    args = ap.parse_args()
    engine = Engine.load()
    (bot,) = seat_bots(engine, [args.bot])
    if not isinstance(bot, SearchBot):
        raise SystemExit(f"{args.bot!r} is not the search bot")
    rows: list[dict[str, Any]] = []
    for seed in range(args.seed, args.seed + args.games):
        rows += play(engine, bot, args.players, seed)
    kinds: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        kinds[r["kind"]].append(r)
    result = {"bot": args.bot, "players": args.players, "games": args.games, "seed": args.seed,
              "all": summary(rows), **{k: summary(v) for k, v in sorted(kinds.items())}}
    if args.json:
        print(json.dumps(result))
        return
    print(f"{args.bot}, {args.players} players, {args.games} games from seed {args.seed}: "
          "milliseconds per decision asked (median / p95 / max)")
    print(f"{'kind':<22}{'n':>6}{'legal':>7}{'samples':>9}{'CPU ms':>22}{'wall ms':>24}{'trials':>7}{'us/trial':>12}  stops")
    for name in ["all", *sorted(kinds)]:
        s = result[name]
        print(f"{name:<22}{s['decisions']:>6}{s['legal_median']:>7}{s['samples_mean']:>9}"
              f"{' / '.join(map(str, s['cpu_ms'])):>22}{' / '.join(map(str, s['wall_ms'])):>24}{s['trials_mean']:>7}{' / '.join(map(str, s['us_per_trial'])):>12}  {s['stops']}")


if __name__ == "__main__":
    main()
