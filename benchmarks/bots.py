"""Bot strength benchmark: the standard arena table (random, greedy and search, at 2 and 4
players), written as Markdown to ``--output`` (docs/bots.md keeps the figures of each
measurement, with their commands, by hand: write elsewhere and copy the tables in).

    python benchmarks/bots.py [--games 40] [--think-time 0.1] [--seed 0] --output /tmp/bots.md

Each row of the table is one ``darkroad arena`` run (api/tools/arena.py): seats rotate over the
games, a shared win counts 1/n, the interval is Wilson's 95% score interval. The search
bot thinks ``--think-time`` seconds per decision (wall clock: on a busy machine it gets
fewer samples in that time). Issue 21's goal for the search bot: >= 70% of 2-player games
against greedy at 1 s per decision (200 games), >= 60% at 0.1 s.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from datetime import date
from pathlib import Path
from typing import Any

from darkroad.api.tools.arena import META, arena
from darkroad.core import Engine

MATCHES: list[tuple[int, list[str]]] = [
    (2, ["greedy", "random"]),
    (2, ["search", "random"]),
    (2, ["search", "greedy"]),
    (4, ["random", "greedy", "search"]),
]
"""(players, bots) of the standard table; at 4 players the three bots rotate over the four
seats (one of them fills two seats each game: figures are per seat played)."""


def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def section(players: int, bots: list[str], result: dict[str, Any]) -> list[str]:
    meta = result[META]
    out = [f"### {players} players: {' vs '.join(bots)}", "",
           f"`darkroad arena --bots {','.join(bots)} --players {players} --games {meta['games']} "
           f"--seed {meta['seed']}" + (f" --think-time {meta['think_time']}" if meta["think_time"] is not None else "")
           + f"` ({meta['completed']} completed, {meta['errors']} errors, {meta['seconds']:.0f} s)", "",
           "| bot | seats | win rate | 95% interval | fair share | mean score | think / decision |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    names = [b for b in result if b != META]
    for b in names:
        f = result[b]
        low, high = f["win_rate_95"]
        think = f["mean_think_seconds"]
        out.append(f"| {b} | {f['seats_played']} | {pct(f['win_rate'])} | {pct(low)}-{pct(high)} | "
                   f"{pct(f['fair_share'])} | {f['mean_score']} | "
                   f"{'-' if think is None else f'{think * 1000:.1f} ms'} |")
    pairs = [(b, o, result[b]["head_to_head"][o]) for i, b in enumerate(names) for o in names[i + 1:]]
    if pairs:
        out += ["", "Head to head (the row bot finished ahead of the column bot, by final rank; level counts half):", "",
                "| bot | against | pairs of seats | ahead | behind | level | ahead rate (95%) |", "|---|---|---:|---:|---:|---:|---:|"]
        for b, o, h in pairs:
            low, high = h["ahead_rate_95"]
            out.append(f"| {b} | {o} | {h['pairs']} | {h['ahead']} | {h['behind']} | {h['level']} | "
                       f"{pct(h['ahead_rate'])} ({pct(low)}-{pct(high)}) |")
    return out + [""]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=40, help="games per match (default 40)")
    ap.add_argument("--think-time", type=float, default=0.1, help="the search bot's seconds per decision")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1,
                    help="processes playing games at once (at most one per core: the search bot thinks to a clock)")
    ap.add_argument("--output", type=Path, required=True)
    ap.add_argument("--json", type=Path, help="also write the raw results here")
    args = ap.parse_args()
    engine = Engine.load()
    started = time.perf_counter()
    results: list[tuple[int, list[str], dict[str, Any]]] = []
    for players, bots in MATCHES:
        result = arena(engine, bots, args.games, players, args.seed, args.think_time, workers=args.workers)
        results.append((players, bots, result))
        print(json.dumps({"players": players, "bots": bots,
                          **{b: result[b]["win_rate"] for b in result if b != META}}), flush=True)
    lines = [
        "# Bot strength",
        "",
        f"Generated on {date.today().isoformat()} by `python benchmarks/bots.py --games {args.games} "
        f"--think-time {args.think_time} --seed {args.seed} --workers {args.workers}` "
        f"({time.perf_counter() - started:.0f} s on "
        f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs).",
        "",
        "The installed bots, measured against each other with `darkroad arena` (api/tools/arena.py): seats rotate over the "
        "games so every bot plays every seat equally often; a shared win counts 1/n; the interval is the 95% Wilson "
        "score interval; think time is wall-clock seconds per decision the bot was asked. `random` picks any legal "
        "action; `greedy` looks two of its own decisions ahead on a game drawn from what its seat sees; `search` "
        "(the lobby's default bot and `timeout_bot`) samples worlds consistent with what its seat sees "
        "(`Engine.determinize`), tries every action in each of them and keeps the one that leaves it furthest ahead "
        "on average. Every bot is asked through `Engine.bot_choice` (docs/agents.md).",
        "",
    ]
    for players, bots, result in results:
        lines += section(players, bots, result)
    args.output.write_text("\n".join(lines), encoding="utf-8")
    if args.json:
        raw = [{"players": p, "bots": b, "result": r} for p, b, r in results]
        args.json.write_text(json.dumps(raw, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
