"""The bot arena: ``darkroad arena``, bots playing each other to measure how well they play.

Games are played in-process with the installed bots (``engine.bots``). The seats rotate
over the games (game ``i`` seats bot ``(seat + i) mod len(bots)`` in ``seat``), so with a
number of games that is a multiple of the number of bots every bot plays every seat
equally often. A bot listed fewer times than there are seats fills several seats of a
game; its figures are then per seat played.

For each bot the arena reports, over the seats it played:

- its win rate (a win shared by ``n`` seats counts ``1/n``) with a 95% Wilson score
  interval, and the fair share (``1/players``) to compare it with;
- its mean final score;
- its mean think time per decision (wall-clock seconds in :meth:`Engine.bot_choice`, the
  information state built and the bot asked; a forced move is not asked);
- head to head against each other bot: over every pair of their seats in one game, how
  often it finished ahead (by the final ranking, rulebook p. 13, tiebreakers included),
  behind, or level.

Several worker processes may play the games (``workers``): each loads the engine and the
bots once, and the results come back in the games' order, the same as one process gives
(for the bots that do not think to a clock). A bot that thinks to a budget needs a core of
its own per worker: sharing one, it draws fewer samples in the same seconds.
"""

from __future__ import annotations

import json
import math
import random
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Annotated, Any

import attrs
import typer
from attrs import define, field
from rich.console import Console
from rich.table import Table

from darkroad.api.tools.simulation import UnknownBot, seat_bots
from darkroad.core import Bot, Engine, GameConfig

Z95 = 1.959964
"""The standard normal quantile of 0.975: a two-sided 95% interval."""
META = "arena"
"""The key of the run's own figures in :func:`arena`'s result (each bot's sit under its id)."""


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a win rate ``wins / n`` (wins may be fractional: shared
    wins). E. B. Wilson, "Probable inference, the law of succession, and statistical
    inference", JASA 22 (1927)."""
    if n <= 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@define
class ArenaGame:
    """One arena game: who sat where, how it ended, how long each seat thought."""

    seed: int
    bots: list[str]
    completed: bool = False
    error: str | None = None
    scores: list[int] = field(factory=list)
    ranks: list[int] = field(factory=list)
    winners: list[int] = field(factory=list)
    think: list[float] = field(factory=list)
    """Per seat: seconds spent in :meth:`Engine.bot_choice`."""
    decisions: list[int] = field(factory=list)
    """Per seat: how many decisions its bot was asked."""


def play(engine: Engine, config: GameConfig, bots: Sequence[Bot], max_steps: int = 20_000,
         names: Sequence[str] = ()) -> ArenaGame:
    """Play one game with one bot per seat, timing each bot; errors are captured, not raised.
    ``names``: what the results call each seat's bot (default: its id)."""
    out = ArenaGame(seed=config.seed, bots=list(names) or [b.id for b in bots], think=[0.0] * len(bots),
                    decisions=[0] * len(bots))
    try:
        game, _ = engine.create(config)
        steps = 0
        clock = time.perf_counter
        while not game.finished:
            if steps >= max_steps:
                raise RuntimeError(f"no end after {max_steps} steps")
            seat = engine.awaiting(game)[0]
            t0 = clock()
            action = engine.bot_choice(game, seat, bots[seat])
            out.think[seat] += clock() - t0
            out.decisions[seat] += 1
            engine.apply(game, action)
            steps += 1
        lines = sorted(game.score, key=lambda s: s.seat)
        out.scores = [s.total for s in lines]
        out.ranks = [s.rank for s in lines]
        out.winners = list(game.winners)
        out.completed = True
    except Exception as exc:  # counted and reported with the seed, never swallowed
        out.error = f"{type(exc).__name__}: {exc}"
    return out


def seating(bots: Sequence[str], players: int, game: int) -> list[str]:
    """The bot of each seat in game number ``game``: the list rotates by one seat per game."""
    return [bots[(seat + game) % len(bots)] for seat in range(players)]


def configure(engine: Engine, names: Sequence[str], think_time: float | None) -> dict[str, Bot]:
    """The installed bots ``names`` (ids, or ids with options: :func:`seat_bots`) by name; those
    taking a ``think_time`` and not given one by name get ``think_time``."""
    out = {}
    for name, bot in zip(names, seat_bots(engine, names), strict=True):
        if think_time is not None and "think_time" in bot.options and "think_time=" not in name:
            bot = bot.configured(think_time=think_time)
        out[name] = bot
    return out


_WORKER: dict[str, Any] = {}
"""A worker process's engine and configured bots (:func:`_start_worker`)."""


def _start_worker(bots: list[str], think_time: float | None) -> None:
    engine = Engine.load()
    _WORKER.update(engine=engine, bots=configure(engine, bots, think_time))


def _play_in_worker(job: tuple[list[str], GameConfig]) -> ArenaGame:
    names, config = job
    return play(_WORKER["engine"], config, [_WORKER["bots"][n] for n in names], names=names)


def arena(
    engine: Engine,
    bots: Sequence[str],
    games: int,
    players: int,
    seed: int = 0,
    think_time: float | None = None,
    progress: Callable[[ArenaGame], None] | None = None,
    workers: int = 1,
) -> dict[str, Any]:
    """Play ``games`` games of ``players`` seats between ``bots`` (ids of installed bots,
    seats rotating) and return each bot's figures under its id, the run's under ``"arena"``.

    ``think_time``: seconds per decision for the bots that take a budget (``think_time`` in
    their :attr:`Bot.options`). ``workers``: processes playing games at once (1: this one).
    :class:`UnknownBot` for an id no plugin provides."""
    if not 2 <= players <= 4:
        raise ValueError(f"players must be 2 to 4, got {players}")
    if not 1 <= len(bots) <= players:
        raise ValueError(f"{len(bots)} bots for {players} seats: give 1 to {players} bots")
    if META in bots:
        raise ValueError(f"a bot may not be called {META!r} here")
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    chosen = configure(engine, bots, think_time)
    start = time.perf_counter()
    jobs = [(seating(bots, players, i), GameConfig(players=players, seed=seed + i, random_buildings=True))
            for i in range(games)]
    if workers == 1:
        results = _collected((play(engine, config, [chosen[n] for n in names], names=names) for names, config in jobs),
                             progress)
    else:
        with ProcessPoolExecutor(min(workers, games), initializer=_start_worker,
                                 initargs=(list(chosen), think_time)) as pool:
            results = _collected(pool.map(_play_in_worker, jobs), progress)
    out = summarise(results, list(dict.fromkeys(bots)), players)
    out[META].update({"seed": seed, "think_time": think_time, "seconds": round(time.perf_counter() - start, 3),
                      "bots": list(bots), "workers": workers})
    return out


def _collected(played: Iterable[ArenaGame], progress: Callable[[ArenaGame], None] | None) -> list[ArenaGame]:
    results = []
    for r in played:
        results.append(r)
        if progress:
            progress(r)
    return results


def summarise(results: Sequence[ArenaGame], bots: Sequence[str], players: int) -> dict[str, Any]:
    """Each bot's figures (under its id) and the run's (under ``"arena"``)."""
    done = [r for r in results if r.completed]
    out: dict[str, Any] = {META: {
        "games": len(results), "players": players, "completed": len(done), "errors": len(results) - len(done),
        "error_seeds": [{"seed": r.seed, "error": r.error} for r in results if not r.completed],
    }}
    for bot in bots:
        seats = [(r, s) for r in done for s, b in enumerate(r.bots) if b == bot]
        n = len(seats)
        wins = sum(1.0 / len(r.winners) for r, s in seats if s in r.winners)
        decisions = sum(r.decisions[s] for r, s in seats)
        think = sum(r.think[s] for r, s in seats)
        low, high = wilson(wins, n)
        out[bot] = {
            "seats_played": n,
            "wins": round(wins, 3),
            "win_rate": round(wins / n, 4) if n else None,
            "win_rate_95": [round(low, 4), round(high, 4)],
            "fair_share": round(1 / players, 4),
            "mean_score": round(sum(r.scores[s] for r, s in seats) / n, 3) if n else None,
            "decisions": decisions,
            "mean_think_seconds": round(think / decisions, 6) if decisions else None,
            "head_to_head": {other: _head_to_head(done, bot, other) for other in bots if other != bot},
        }
    return out


def _head_to_head(results: Sequence[ArenaGame], bot: str, other: str) -> dict[str, Any]:
    """``bot`` against ``other``: every pair of their seats in one game, compared by rank."""
    ahead = behind = level = 0
    for r in results:
        for s, b in enumerate(r.bots):
            if b != bot:
                continue
            for t, o in enumerate(r.bots):
                if o != other:
                    continue
                if r.ranks[s] < r.ranks[t]:
                    ahead += 1
                elif r.ranks[s] > r.ranks[t]:
                    behind += 1
                else:
                    level += 1
    n = ahead + behind + level
    score = ahead + level / 2
    low, high = wilson(score, n)
    return {"pairs": n, "ahead": ahead, "behind": behind, "level": level,
            "ahead_rate": round(score / n, 4) if n else None, "ahead_rate_95": [round(low, 4), round(high, 4)]}


def print_table(console: Console, result: dict[str, Any]) -> None:
    """The arena's figures as tables: one row per bot, then the head-to-head results."""
    meta = result[META]
    bots = [k for k in result if k != META]
    t = Table(title=f"arena: {meta['completed']} games of {meta['players']} players"
                    + (f", {meta['think_time']} s per decision" if meta.get("think_time") is not None else ""))
    for col in ("bot", "seats", "win rate", "95% interval", "fair share", "mean score", "think / decision"):
        t.add_column(col, justify="left" if col == "bot" else "right")
    for b in bots:
        f = result[b]
        low, high = f["win_rate_95"]
        think = f["mean_think_seconds"]
        t.add_row(b, str(f["seats_played"]), _pct(f["win_rate"]), f"{_pct(low)}-{_pct(high)}",
                  _pct(f["fair_share"]), str(f["mean_score"]), "-" if think is None else f"{think * 1000:.1f} ms")
    console.print(t)
    if len(bots) > 1:
        h = Table(title="head to head (row finished ahead of column)")
        h.add_column("bot")
        for b in bots:
            h.add_column(b, justify="right")
        for b in bots:
            row = [b]
            for o in bots:
                x = result[b]["head_to_head"].get(o)
                row.append("-" if x is None else f"{_pct(x['ahead_rate'])} ({x['pairs']})")
            h.add_row(*row)
        console.print(h)
    if meta["errors"]:
        console.print(f"{meta['errors']} game(s) failed: {meta['error_seeds']}", style="red", markup=False)


def _report(game: ArenaGame) -> None:
    """``--progress``: one game as a JSON line on stderr."""
    sys.stderr.write(json.dumps(attrs.asdict(game)) + "\n")
    sys.stderr.flush()


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def arena_command(
    bots: Annotated[str, typer.Option(help="2 to 4 bot ids, comma-separated (darkroad plugins --all lists the "
                                           "installed ones); a bot may fill several seats. Options after colons "
                                           "set a bot up: greedy:samples=4.")],
    games: Annotated[int, typer.Option(min=1, help="How many games to play; a multiple of the number of bots "
                                                   "gives every bot every seat equally often.")] = 100,
    players: Annotated[int, typer.Option(min=2, max=4, help="Seats per game.")] = 2,
    seed: Annotated[int | None, typer.Option(help="Seed of the first game; game i uses seed + i "
                                                  "(default: a random seed, printed).")] = None,
    think_time: Annotated[float | None, typer.Option(min=0.0, help="Seconds per decision for the bots that "
                                                                     "can think to the clock (the search bot: "
                                                                     "then instead of its budget of trials).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object: each bot's figures under its "
                                                         "id, the run's under \"arena\".")] = False,
    workers: Annotated[int, typer.Option(min=1, help="Processes playing games at once. A bot that thinks to a "
                                                     "budget needs a core per worker, or it thinks less in the "
                                                     "same time.")] = 1,
    progress: Annotated[bool, typer.Option("--progress", help="Write each game, as it ends, as one JSON line to "
                                                              "stderr (a long run's games so far).")] = False,
) -> None:
    """Play bots against each other, rotating seats, and report each bot's win rate (95%
    interval), mean score, think time per decision and head-to-head results."""
    engine = Engine.load()
    names = [b.strip() for b in bots.split(",") if b.strip()]
    if not 1 <= len(names) <= players:
        raise typer.BadParameter(f"give 1 to {players} bots for {players} seats, got {len(names)}",
                                 param_hint="--bots")
    try:
        seat_bots(engine, names)
    except UnknownBot as exc:
        raise typer.BadParameter(exc.reason, param_hint="--bots") from exc
    if seed is None:
        seed = random.randrange(1_000_000)
    console = Console(stderr=True)
    if not as_json:
        console.print(f"seed {seed}", markup=False, highlight=False)
    result = arena(engine, names, games, players, seed, think_time, progress=_report if progress else None,
                   workers=workers)
    if as_json:
        sys.stdout.write(json.dumps(result, indent=2) + "\n")
    else:
        print_table(Console(), result)
    if result[META]["errors"]:
        raise typer.Exit(1)
