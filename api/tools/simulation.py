"""Playing complete games with bots, in-process: ``darkroad simulate`` and ``scripts/balance.py``.

The bots are the installed ones (``engine.bots``: every plugin's ``darkroad_bots``), seated
by id. A game's result records who won and with what, and how its components were used:
activations per building, the answers given to every decision a plugin contributes (per
option), companion abilities triggered. :func:`summarise` turns results into win rates
and usage tables. Automated seats (a seat kind's) are played by the
engine: their results are reported under the seat kind's id.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from attrs import define, field

from darkroad.core import BadConfig, Bot, Engine, Event, GameConfig, UnknownComponent


class UnknownBot(UnknownComponent):
    """A bot id no installed plugin provides."""


def seat_bots(engine: Engine, names: Sequence[str]) -> list[Bot]:
    """The installed bots ``names``, or :class:`UnknownBot` listing the installed ones.

    A name is a bot's id, or its id with options (:meth:`Bot.configured`) after colons:
    ``greedy:samples=4``, ``search:think_time=0.1:replies=0`` (numbers are read as numbers).
    An option the bot does not take raises :class:`UnknownBot` too."""
    unknown = sorted({n.partition(":")[0] for n in names if n.partition(":")[0] not in engine.bots})
    if unknown or not names:
        installed = ", ".join(sorted(engine.bots)) or "none"
        raise UnknownBot(f"unknown bot(s) {unknown}; installed bots: {installed}")
    return [_configured(engine, n) for n in names]


def _configured(engine: Engine, name: str) -> Bot:
    """The bot ``name`` names: ``id`` or ``id:option=value:...``."""
    bot_id, *settings = name.split(":")
    bot = engine.bots[bot_id]
    if not settings:
        return bot
    options: dict[str, Any] = {}
    for setting in settings:
        key, eq, value = setting.partition("=")
        if not eq or not key:
            raise UnknownBot(f"bot {name!r}: write its options as name=value after colons, as greedy:samples=4")
        options[key] = _number(value)
    try:
        return bot.configured(**options)
    except (TypeError, ValueError) as exc:
        raise UnknownBot(f"bot {name!r}: {exc}") from exc


def _number(text: str) -> int | float | str:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def solo_kind(engine: Engine) -> str:
    """The installed seat kind a solo game (one player) is played against: the one that
    plays in games of 2 seats (:class:`BadConfig` when there is none, or several)."""
    solo = sorted(k.id for k in engine.seat_kinds.values() if 2 in k.players)
    if len(solo) != 1:
        raise BadConfig("a solo game needs exactly one installed seat kind that plays solo, found %(found)s",
                        found=str(solo or "none"))
    return solo[0]


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
    automated: dict[int, str] = field(factory=dict)
    """Seat -> the seat kind playing it (the engine plays it: no bot)."""
    activations: dict[str, int] = field(factory=dict)
    """Building -> how many times it was activated (every seat)."""
    answers: dict[str, dict[str, int]] = field(factory=dict)
    """Decision kind of a plugin's step -> option -> how many times it was chosen."""
    companion_uses: dict[str, int] = field(factory=dict)
    """``"<companion>:<ability>"`` -> how many times it was triggered."""


def _starting_heroes(events: Sequence[Event]) -> dict[int, str]:
    """Seat -> the starting hero that joined it, from ``events`` (setup's, or the draft's)."""
    return {e.seat: e.data["hero"] for e in events
            if e.type == "hero_joined" and e.data.get("source") == "starting hero" and e.seat is not None}


def play_game(engine: Engine, config: GameConfig, bots: Sequence[Bot | None], max_steps: int = 20_000,
              names: Sequence[str] = ()) -> GameResult:
    """Play one game to the end with one bot per seat (``None`` for an automated seat, which
    the engine plays); errors are captured, not raised. ``names``: what the results call each
    seat's bot (default: its id)."""
    labels = list(names) or [b.id if b else "" for b in bots]
    result = GameResult(seed=config.seed, players=config.players, bots=labels, completed=False)
    try:
        result.automated = {seat: kind.id for seat, kind in engine.seat_assignment(config).items()}
        result.bots = [result.automated.get(s) or (label if b else "") for s, (b, label) in
                       enumerate(zip(bots, labels, strict=True))]
        game, events = engine.create(config)
        result.buildings = list(game.board.buildings)
        result.steeds = [list(p.steeds) for p in game.players]
        starting = _starting_heroes(events)
        used: list[set[str]] = [set() for _ in range(config.players)]
        activations: Counter[str] = Counter()
        answers: dict[str, Counter[str]] = {}
        companions: Counter[str] = Counter()
        cards = engine.content.companion_cards
        steps = 0
        while not game.finished:
            if steps >= max_steps:
                raise RuntimeError(f"no end after {max_steps} steps")
            seat = engine.awaiting(game)[0]
            bot = bots[seat]
            if bot is None:
                raise RuntimeError(f"seat {seat} has no bot")
            action = engine.bot_choice(game, seat, bot)
            if action.type == "companion":
                card, _, ability = action.option.partition(":")
                companions[f"{cards.get(card, card)}:{ability}"] += 1
            elif engine.step_plugin(action.type) is not None or action.option.startswith("x:"):
                answers.setdefault(action.type, Counter())[action.option] += 1
            events = engine.apply(game, action)
            for e in events:
                if e.type == "activated" and e.data.get("what") == "building" and e.seat is not None:
                    used[e.seat].add(e.data["target"])
                    activations[e.data["target"]] += 1
            if len(starting) < config.players:
                starting.update(_starting_heroes(events))
            steps += 1
        result.steeds = [list(p.steeds[:1]) for p in game.players]
        result.starting_heroes = [starting.get(s, "") for s in range(config.players)]
        result.used_buildings = [sorted(u) for u in used]
        result.activations = dict(activations)
        result.answers = {k: dict(v) for k, v in answers.items()}
        result.companion_uses = dict(companions)
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
    seat_kind: str | None = None,
    companions: Sequence[str] = (),
) -> dict[str, Any]:
    """Play ``games`` games; bots are assigned to seats round-robin (rotating per game).

    ``players=1`` is solo: one bot against the installed seat kind that plays solo (the
    base game's automated opponent; a 2-seat game). ``seat_kind`` puts that automated seat in its default
    seat (the last) of ``players`` seats. ``companions``: fan companions whose cards join the
    deck of every game."""
    start = time.perf_counter()
    configured = dict(zip(bots, seat_bots(engine, bots), strict=True))  # unknown ids fail before any game
    results = []
    if players == 1:
        seat_kind = seat_kind or solo_kind(engine)
    players = max(players, 2)
    options = engine.seat_kinds[seat_kind].game_options() if seat_kind else {}
    for i in range(games):
        s = seed + i
        cfg = GameConfig(players=players, seed=s, buildings=list(buildings), variants=dict(variants or {}),
                         random_buildings=not buildings, options=dict(options), companions=list(companions))
        automated = engine.seat_assignment(cfg)
        humans = [seat for seat in range(players) if seat not in automated]
        names = {seat: bots[(n + i) % len(bots)] for n, seat in enumerate(humans)}
        chosen: list[Bot | None] = [configured[names[seat]] if seat in names else None for seat in range(players)]
        r = play_game(engine, cfg, chosen, names=[names.get(seat, "") for seat in range(players)])
        results.append(r)
        if progress:
            progress(r)
    out = summarise(results, time.perf_counter() - start)
    out["skipped_plugins"] = dict(engine.plugins.failed)
    return out


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


def _usage(results: list[GameResult]) -> dict[str, Any]:
    """How the components were used: activations per building (over the games it was in
    play), answers per option of every plugin decision, companion abilities triggered."""
    in_play: Counter[str] = Counter(b for r in results for b in r.buildings)
    activations: Counter[str] = Counter()
    answers: dict[str, Counter[str]] = {}
    companions: Counter[str] = Counter()
    for r in results:
        activations.update(r.activations)
        companions.update(r.companion_uses)
        for kind, options in r.answers.items():
            answers.setdefault(kind, Counter()).update(options)
    return {
        "activations_by_building": {
            b: {"games": n, "activations": activations[b], "per_game": round(activations[b] / n, 2)}
            for b, n in sorted(in_play.items())},
        "answers_by_decision": {k: dict(sorted(v.items(), key=lambda kv: (-kv[1], kv[0])))
                                for k, v in sorted(answers.items())},
        "companion_uses": dict(sorted(companions.items())),
    }


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
            done, lambda r, s: [r.starting_heroes[s]] if s < len(r.starting_heroes) and s not in r.automated else []),
        "win_rate_by_building": _rates(
            done, lambda r, s: r.used_buildings[s] if s < len(r.used_buildings) else []),
        **_usage(done),
    }
    for kind in sorted({k for r in done for k in r.automated.values()}):
        out.update(_seat_kind_summary(kind, done))
    return out


def _seat_kind_summary(kind: str, results: list[GameResult]) -> dict[str, Any]:
    """The record of seat kind ``kind`` (``<kind>_win_rate`` and ``<kind>``) over the games it played: its share of the wins (a shared win counts
    1/n), its mean score and its opponents'."""
    games = [(r, seat) for r in results for seat, k in sorted(r.automated.items()) if k == kind]
    wins = sum(1.0 / len(r.winners) for r, seat in games if seat in r.winners)
    own = [r.scores[seat] for r, seat in games]
    others = [sc for r, seat in games for s, sc in enumerate(r.scores) if s not in r.automated]
    return {
        f"{kind}_win_rate": round(wins / len(games), 4),
        kind: {
            "games": len(games),
            "wins": round(wins, 2),
            "shared_wins": sum(1 for r, seat in games if seat in r.winners and len(r.winners) > 1),
            "mean_score": round(sum(own) / len(own), 3),
            "opponents_mean_score": round(sum(others) / len(others), 3) if others else None,
        },
    }
