"""Bots: a random player and a greedy heuristic player, and the game runner behind
``darkroad simulate``.

The greedy bot looks one decision ahead: it applies each legal action to a copy of
the game and keeps the one whose resulting position it values most for its own seat
(:func:`estimate`: what the wagon would be worth at final scoring). Ties are broken
at random, so it still explores.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from attrs import define, field

from . import private_concern
from .actions import Action
from .context import Ctx
from .engine import Engine
from .goods import good_type, is_upgraded
from .hooks import is_score
from .state import Game, GameConfig


class Bot(Protocol):
    name: str

    def choose(self, engine: Engine, game: Game, seat: int, legal: Sequence[Action]) -> Action: ...


class RandomBot:
    """Uniform over the legal actions."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, engine: Engine, game: Game, seat: int, legal: Sequence[Action]) -> Action:
        return legal[self.rng.randrange(len(legal))]


def _deliverable(engine: Engine, game: Game, seat: int, town: str) -> tuple[float, float]:
    """(coins, prestige) ``seat`` would gain delivering everything it can in ``town``."""
    c = engine.content
    p = game.players[seat]
    goods = list(p.goods)
    coins = prestige = 0.0
    for m in p.commissions:
        if c.commissions[m].town != town:
            continue
        sent = []
        for req in c.commissions[m].requests:
            for g in (req + "+", req):
                if g in goods:
                    goods.remove(g)
                    sent.append(g)
                    break
        if sent:
            prestige += (0, 1, 3, 6)[len(sent)] + sum(1 for g in sent if is_upgraded(g))
    for h in p.heroes:
        if c.heroes[h].town == town:
            for e in c.towns[town].reward:
                verb, _, arg = e.partition(":")
                if verb == "coins":
                    coins += int(arg)
                elif verb == "prestige":
                    prestige += int(arg)
    return coins, prestige


def estimate(engine: Engine, game: Game, seat: int) -> float:
    """What ``seat``'s position is worth, in final-score points (a heuristic).

    Coins and prestige count through their minimum (the base score) with a little for the
    surplus; goods, commissions and heroes count for what they can still turn into; a
    caravan under way counts for the deliveries it is about to make.
    """
    if game.finished:
        line = next(s for s in game.score if s.seat == seat)
        return float(line.total) + 0.001 * line.discarded
    ctx = Ctx(engine, game)
    p = game.players[seat]
    c = engine.content
    rounds_left = max(0, 13 - game.round)
    hope = min(1.0, rounds_left / 6)
    coins, prestige = float(p.coins), float(p.prestige)
    caravan: dict[str, Any] = game.turn.get("caravan") or {}
    delivering = (caravan and seat in caravan.get("members", ())
                  and any(t.kind == "deliveries" and seat in t.data.get("pending", ()) for t in game.stack))
    planning = any(t.kind == "caravan_route" and t.seat == seat for t in game.stack)
    if delivering or planning:
        if planning:
            towns = list(c.towns)  # about to declare: the best town
        elif seat == caravan["leader"]:
            towns = [caravan["town"]]
        else:
            towns = c.region_towns(caravan["town"])
        best = max((_deliverable(engine, game, seat, t) for t in towns), key=lambda cp: min(cp) + sum(cp))
        coins += best[0]
        prestige += best[1]
        delivering = True
    held = {good_type(g) for g in p.goods}
    # Commissions: what the goods in hand would deliver, and some hope for the rest.
    for m in p.commissions:
        n = sum(1 for k in c.commissions[m].requests if k in held)
        prestige += (0, 1, 3, 6)[n] * (0.45 if delivering else 0.75) + 0.3 * (3 - n) * hope
    for h in p.heroes:
        for e in c.towns[c.heroes[h].town].reward:
            verb, _, arg = e.partition(":")
            if verb == "coins":
                coins += int(arg) * 0.6
            elif verb == "prestige":
                prestige += int(arg) * 0.6
    # Goods are worth part of what they sell for (or deliver for).
    coins += sum(ctx.value(good_type(g)) * 0.45 + (0.8 if is_upgraded(g) else 0) for g in p.goods)
    coins += p.quartz * 1.0 + p.lanterns * 0.7 + p.horseshoes * 0.4 + 0.3 * len(p.companions)
    base = min(coins, prestige) + 0.2 * max(coins, prestige)
    vp = float(len(p.special)) * (1.0 if rounds_left < 2 else 0.8)
    # An illuminated die in the action pool is about to activate a second district and a
    # building: worth more than the VP it would give unused.
    vp += 2.5 * sum(1 for d in p.pool if d.kind == "illuminated")
    for deed in p.deeds:
        got = ctx.first("darkroad_deed_score", is_score, seat=seat, deed=deed) or {}
        vp += got.get("vp", 0) + 0.5 * (got.get("coins", 0) + got.get("prestige", 0))
    vp += 0.5 * sum(len(x.gifts) for x in p.companions)
    return base + vp


class GreedyBot:
    """Lookahead with :func:`estimate`: each legal action is tried on a copy; when the
    next decision is again this seat's (a district's follow-up choice), the best
    continuation is searched too, up to ``depth`` decisions deep."""

    name = "greedy"

    def __init__(self, seed: int = 0, depth: int = 2) -> None:
        self.rng = random.Random(seed)
        self.depth = depth
        self.last: tuple[int, int, str] | None = None
        self.repeats = 0

    def _value(self, engine: Engine, game: Game, seat: int, depth: int) -> float:
        if depth <= 0 or game.finished or engine.awaiting(game) != [seat]:
            return estimate(engine, game, seat)
        best = float("-inf")
        for action in engine.legal_actions(game, seat):
            if action.type == "companion":
                continue
            trial = engine.copy(game)
            engine.apply(trial, action)
            best = max(best, self._value(engine, trial, seat, depth - 1))
        return best if best > float("-inf") else estimate(engine, game, seat)

    def choose(self, engine: Engine, game: Game, seat: int, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        # A repeatable choice (the Mansion's trades) can cycle between equal positions:
        # after a few repeats in one turn, stop if stopping is an option.
        key = (game.round, game.active, legal[0].type)
        self.repeats = self.repeats + 1 if key == self.last else 0
        self.last = key
        if self.repeats >= MAX_REPEATS:
            stop = [a for a in legal if a.option in STOP_OPTIONS]
            if stop:
                return stop[0]
        best: list[Action] = []
        best_value = float("-inf")
        for action in legal:
            trial = engine.copy(game)
            try:
                engine.apply(trial, action)
                value = self._value(engine, trial, seat, self.depth - 1)
            except Exception:  # an action a plugin cannot resolve is simply not chosen
                continue
            if value > best_value + 1e-9:
                best, best_value = [action], value
            elif abs(value - best_value) <= 1e-9:
                best.append(action)
        if not best:
            return legal[0]
        # On a tie, stop a repeatable choice (trading back and forth gains nothing).
        stop = [a for a in best if a.option in STOP_OPTIONS]
        return stop[0] if stop else self.rng.choice(best)


STOP_OPTIONS = frozenset({"done", "end", "skip", "keep", "no", "pass"})
MAX_REPEATS = 8


BOTS: dict[str, Callable[[int], Bot]] = {"random": RandomBot, "greedy": GreedyBot}


class ConcernSeat:
    """Stands for the Private Concern's seat in :func:`play_game`: the engine plays it, so
    it is never asked."""

    name = private_concern.KIND

    def choose(self, engine: Engine, game: Game, seat: int, legal: Sequence[Action]) -> Action:
        raise RuntimeError("the Private Concern's seat is never awaited")


@define
class GameResult:
    seed: int
    players: int
    bots: list[str]
    completed: bool
    error: str | None = None
    rounds: int = 0
    steps: int = 0
    scores: list[int] = field(factory=list)
    winners: list[int] = field(factory=list)
    steeds: list[list[str]] = field(factory=list)
    starting_heroes: list[str] = field(factory=list)
    buildings: list[str] = field(factory=list)
    used_buildings: list[list[str]] = field(factory=list)
    """Per seat: the buildings it activated at least once."""
    concern_seat: int | None = None
    """The Private Concern's seat (None: no Private Concern)."""


def play_game(engine: Engine, config: GameConfig, bots: Sequence[Bot], max_steps: int = 20_000) -> GameResult:
    """Play one game to the end with one bot per seat; errors are captured, not raised."""
    result = GameResult(seed=config.seed, players=config.players, bots=[b.name for b in bots], completed=False,
                        concern_seat=private_concern.seat_of(config))
    try:
        game, events = engine.create(config)
        result.buildings = list(game.board.buildings)
        result.steeds = [list(p.steeds) for p in game.players]
        starting = {e.seat: e.data["hero"] for e in events if e.type == "hero_joined"
                    and e.data.get("source") == "starting hero"}
        used: list[set[str]] = [set() for _ in range(config.players)]
        steps = 0
        while not game.finished:
            if steps >= max_steps:
                raise RuntimeError(f"no end after {max_steps} steps")
            seat = engine.awaiting(game)[0]
            legal = engine.legal_actions(game, seat)
            events = engine.apply(game, bots[seat].choose(engine, game, seat, legal))
            for e in events:
                if e.type == "activated" and e.data.get("what") == "building" and e.seat is not None:
                    used[e.seat].add(e.data["target"])
            if len(starting) < config.players:
                starting.update({e.seat: e.data["hero"] for e in events if e.type == "hero_joined"
                                 and e.data.get("source") == "starting hero"})
            steps += 1
        result.steeds = [list(p.steeds[:1]) for p in game.players]
        result.starting_heroes = [starting.get(s, "") for s in range(config.players)]
        result.used_buildings = [sorted(u) for u in used]
        result.completed = True
        result.rounds = game.round
        result.steps = steps
        result.scores = [s.total for s in sorted(game.score, key=lambda s: s.seat)]
        result.winners = list(game.winners)
    except Exception as exc:  # counted and reported with the seed, never swallowed
        result.error = f"{type(exc).__name__}: {exc}"
    return result


def simulate(
    engine: Engine,
    games: int,
    players: int,
    seed: int = 0,
    bots: Sequence[str] = ("random",),
    buildings: Sequence[str] = (),
    variants: dict[str, Any] | None = None,
    progress: Callable[[GameResult], None] | None = None,
    concern: bool = False,
) -> dict[str, Any]:
    """Play ``games`` games; bots are assigned to seats round-robin (rotating per game).

    ``players=1`` is solo: one bot against the Private Concern (a 2-seat game);
    ``concern=True`` puts the Private Concern in the last of ``players`` seats."""
    start = time.perf_counter()
    results = []
    concern = concern or players == 1
    players = max(players, 2)
    for i in range(games):
        s = seed + i
        names = [bots[(seat + i) % len(bots)] for seat in range(players)]
        seat_bots: list[Bot] = [BOTS[n](s * 10 + k) for k, n in enumerate(names)]
        if concern:
            seat_bots[-1] = ConcernSeat()
        cfg = GameConfig(players=players, seed=s, buildings=list(buildings), variants=dict(variants or {}),
                         random_buildings=not buildings, private_concern=concern)
        r = play_game(engine, cfg, seat_bots)
        results.append(r)
        if progress:
            progress(r)
    return summarise(results, time.perf_counter() - start)


def _rates(results: list[GameResult], keys: Callable[[GameResult, int], list[str]]) -> dict[str, Any]:
    """Win rate by key, with the fair share (1 / players) for comparison."""
    table: dict[str, list[float]] = {}
    for r in results:
        if not r.completed:
            continue
        for seat in range(r.players):
            for k in keys(r, seat):
                if not k:
                    continue
                wins, plays, fair = table.setdefault(k, [0.0, 0.0, 0.0])
                share = 1.0 / len(r.winners) if seat in r.winners else 0.0
                table[k] = [wins + share, plays + 1, fair + 1.0 / r.players]
    return {k: {"games": int(p), "wins": round(w, 2), "win_rate": round(w / p, 4),
                "fair_share": round(f / p, 4), "ratio_to_fair": round((w / p) / (f / p), 3)}
            for k, (w, p, f) in sorted(table.items())}


def summarise(results: list[GameResult], seconds: float) -> dict[str, Any]:
    done = [r for r in results if r.completed]
    scores = [s for r in done for s in r.scores]
    out: dict[str, Any] = {
        "games": len(results),
        "completed": len(done),
        "errors": len(results) - len(done),
        "error_seeds": [{"seed": r.seed, "error": r.error} for r in results if not r.completed],
        "seconds": round(seconds, 3),
        "games_per_second": round(len(results) / seconds, 3) if seconds else None,
        "mean_score": round(sum(scores) / len(scores), 3) if scores else None,
        "max_score": max(scores) if scores else None,
        "rounds_played": sum(r.rounds for r in done),
        "mean_steps": round(sum(r.steps for r in done) / len(done), 1) if done else None,
        "win_rate_by_bot": _rates(done, lambda r, s: [r.bots[s]]),
        "win_rate_by_steed": _rates(done, lambda r, s: r.steeds[s] if s < len(r.steeds) else []),
        "win_rate_by_starting_hero": _rates(
            done, lambda r, s: [r.starting_heroes[s]] if s < len(r.starting_heroes) and s != r.concern_seat else []),
        "win_rate_by_building": _rates(
            done, lambda r, s: r.used_buildings[s] if s < len(r.used_buildings) else []),
    }
    with_concern = [r for r in done if r.concern_seat is not None]
    if with_concern:
        out.update(_concern_summary(with_concern))
    return out


def _concern_summary(results: list[GameResult]) -> dict[str, Any]:
    """The Private Concern's record: its share of the wins (a shared win counts 1/n)."""
    wins = sum(1.0 / len(r.winners) for r in results if r.concern_seat in r.winners)
    own = [r.scores[r.concern_seat] for r in results if r.concern_seat is not None]
    others = [sc for r in results for seat, sc in enumerate(r.scores) if seat != r.concern_seat]
    return {
        "private_concern_win_rate": round(wins / len(results), 4),
        "private_concern": {
            "games": len(results),
            "wins": round(wins, 2),
            "shared_wins": sum(1 for r in results if r.concern_seat in r.winners and len(r.winners) > 1),
            "mean_score": round(sum(own) / len(own), 3),
            "opponents_mean_score": round(sum(others) / len(others), 3) if others else None,
        },
    }
