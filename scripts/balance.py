"""Balance report: win rates by steed, starting hero and building over greedy-bot games.

    python scripts/balance.py [--games 2000] [--players 4] [--workers 2] [--bot greedy] [--output docs/balance.md]

``--bot`` is the id of any installed bot (``darkroad plugins --all`` lists them).

Plays the games in parallel worker processes (each loads its own engine), merges the
results and writes a Markdown report with one table per component kind. A component
"wins more than its share" when its win rate divided by the fair share (1 / players)
exceeds the limit (1.5). For buildings the key is *used*: a seat counts for each
building it activated at least once.
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import date
from pathlib import Path
from typing import Any

from darkroad.api.tools.simulation import GameResult, UnknownBot, play_game, seat_bots, summarise
from darkroad.core import Engine, GameConfig

LIMIT = 1.5


def _play(args: tuple[int, int, int, str]) -> list[GameResult]:
    start, count, players, bot = args
    engine = Engine.load()
    bots = seat_bots(engine, [bot] * players)
    return [play_game(engine, GameConfig(players=players, seed=seed, random_buildings=True), bots)
            for seed in range(start, start + count)]


def run(games: int, players: int, workers: int, bot: str, seed: int) -> dict[str, Any]:
    chunk = max(1, games // (workers * 8))
    jobs = [(s, min(chunk, seed + games - s), players, bot) for s in range(seed, seed + games, chunk)]
    t0 = time.perf_counter()
    results: list[GameResult] = []
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for part in pool.map(_play, jobs):
            results += part
    return summarise(results, time.perf_counter() - t0)


def table(title: str, rows: dict[str, Any], names: dict[str, str]) -> list[str]:
    out = [f"### {title}", "", "| component | seats | wins | win rate | fair share | ratio | within 1.5x |",
           "|---|---:|---:|---:|---:|---:|:---:|"]
    for key, v in sorted(rows.items(), key=lambda kv: -kv[1]["ratio_to_fair"]):
        ok = "yes" if v["ratio_to_fair"] <= LIMIT else "**no**"
        out.append(f"| {names.get(key, key)} | {v['games']} | {v['wins']} | {v['win_rate']:.3f} | "
                   f"{v['fair_share']:.3f} | {v['ratio_to_fair']:.2f} | {ok} |")
    return out + [""]


def report(summary: dict[str, Any], args: argparse.Namespace) -> str:
    engine = Engine.load()
    names = {c.id: c.name for c in engine.content.components.values()}
    names.update({h.id: f"{h.name} ({h.hero_class})" for h in engine.content.heroes.values()})
    worst = max((v["ratio_to_fair"], k) for kind in ("win_rate_by_steed", "win_rate_by_starting_hero",
                                                     "win_rate_by_building") for k, v in summary[kind].items())
    lines = [
        "# Balance report",
        "",
        f"Generated on {date.today().isoformat()} by `python scripts/balance.py --games {args.games} "
        f"--players {args.players} --bot {args.bot} --seed {args.seed}` "
        f"({summary['completed']} completed games, {summary['errors']} errors, {summary['seconds']:.0f} s).",
        "",
        f"A component is within bounds when its win rate is at most {LIMIT}x the fair share "
        "(1 / players; shared victories split). Every seat is played by the same bot, so the "
        "differences come from the components. Buildings count for the seats that activated them.",
        "",
        f"Highest ratio: **{worst[0]:.2f}** ({names.get(worst[1], worst[1])}): "
        + ("all components are within bounds." if worst[0] <= LIMIT else "some component is out of bounds."),
        "",
        f"Mean final score {summary['mean_score']}, best {summary['max_score']}.",
        "",
    ]
    lines += table("Steeds", summary["win_rate_by_steed"], names)
    lines += table("Starting heroes", summary["win_rate_by_starting_hero"], names)
    lines += table("Buildings (used)", summary["win_rate_by_building"], names)
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--bot", default="greedy", help="the id of an installed bot (default: greedy)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--output", type=Path, default=Path("docs/balance.md"))
    ap.add_argument("--json", type=Path, help="also write the raw summary here")
    args = ap.parse_args()
    try:
        seat_bots(Engine.load(), [args.bot])
    except UnknownBot as exc:
        ap.error(exc.reason)
    summary = run(args.games, args.players, args.workers, args.bot, args.seed)
    args.output.write_text(report(summary, args) + "\n", encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.output}: {summary['completed']} games, {summary['errors']} errors")


if __name__ == "__main__":
    main()
