"""What the base game's bots share (a bot plugin's to import, as ``darkroad.plugins.bots.kit``):
the heuristic value of a position (:func:`estimate`: what a wagon would be worth at final
scoring, rulebook p. 13) and the handling of repeatable choices (:func:`can_cycle`,
:func:`stop_repeat`).

The rule numbers it reasons with come from the rules core: the rounds of a game
(``ROUNDS``) and the prestige of a commission by the goods delivered to it
(``COMMISSION_PRESTIGE``, ``commission_prestige``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from darkroad.core import (
    COMMISSION_PRESTIGE,
    ROUNDS,
    Action,
    Ctx,
    Engine,
    Game,
    commission_prestige,
    good_type,
    is_upgraded,
)

STOP_OPTIONS = frozenset({"done", "end", "skip", "keep", "no", "pass"})
"""Options that end a repeatable choice: preferred on a tie."""
EPSILON = 1e-9


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
            prestige += commission_prestige(sent)
    for h in p.heroes:
        if c.heroes[h].town == town:
            for e in c.towns[town].reward:
                verb, _, arg = e.partition(":")
                if verb == "coins":
                    coins += int(arg)
                elif verb == "prestige":
                    prestige += int(arg)
    return coins, prestige


def estimate(engine: Engine, game: Game, seat: int, *, surplus: float = 0.2,
             commission_share: float = 0.75) -> float:
    """What ``seat``'s position is worth, in final-score points (a heuristic).

    Coins and prestige count through their minimum (the base score) with a little for the
    larger of the two (``surplus`` of it); goods, commissions and heroes count for what they
    can still turn into (a commission held for ``commission_share`` of the prestige the goods in hand would
    deliver to it); a caravan under way counts for the deliveries it is about to make.
    """
    if game.finished:
        line = next(s for s in game.score if s.seat == seat)
        return float(line.total) + 0.001 * line.discarded
    ctx = Ctx(engine, game)
    p = game.players[seat]
    c = engine.content
    rounds_left = max(0, ROUNDS - game.round)
    hope = min(1.0, rounds_left / 6)
    coins, prestige = float(p.coins), float(p.prestige)
    caravan = game.turn.caravan
    delivering = bool(caravan is not None and seat in caravan.members
                      and any(t.kind == "deliveries" and seat in t.data.get("pending", ()) for t in game.stack))
    planning = any(t.kind == "caravan_route" and t.seat == seat for t in game.stack)
    if delivering or planning:
        if planning or caravan is None:
            towns = list(c.towns)  # about to declare: the best town
        elif seat == caravan.leader:
            towns = [caravan.town]
        else:
            towns = c.region_towns(caravan.town)
        best = max((_deliverable(engine, game, seat, t) for t in towns), key=lambda cp: min(cp) + sum(cp))
        coins += best[0]
        prestige += best[1]
        delivering = True
    held = {good_type(g) for g in p.goods}
    # Commissions: what the goods in hand would deliver, and some hope for the rest.
    most = len(COMMISSION_PRESTIGE) - 1
    for m in p.commissions:
        n = min(most, sum(1 for k in c.commissions[m].requests if k in held))
        prestige += COMMISSION_PRESTIGE[n] * (0.45 if delivering else commission_share) + 0.3 * (most - n) * hope
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
    base = min(coins, prestige) + surplus * max(coins, prestige)
    vp = float(len(p.special)) * (1.0 if rounds_left < 2 else 0.8)
    # An illuminated die in the action pool is about to activate a second district and a
    # building: worth more than the VP it would give unused.
    vp += 2.5 * sum(1 for d in p.pool if d.kind == "illuminated")
    for deed in p.deeds:
        got = ctx.first("darkroad_deed_score", _is_score, seat=seat, deed=deed) or {}
        vp += got.get("vp", 0) + 0.5 * (got.get("coins", 0) + got.get("prestige", 0))
    vp += 0.5 * sum(len(x.gifts) for x in p.companions)
    return base + vp


def _is_score(v: Any) -> bool:
    return isinstance(v, dict) and all(isinstance(n, int) for n in v.values())


def asks_again(engine: Engine, game: Game, seat: int, kind: str) -> bool:
    """Whether ``game`` asks ``seat`` decision ``kind`` (again)."""
    return not game.finished and bool(game.stack) and game.stack[-1].kind == kind and engine.awaiting(game) == [seat]


def _position(game: Game) -> tuple[Any, ...]:
    """What a position is, without the counters every action moves (version, events). The
    trials are applied with ``track_undo=False``, so the undo chain in ``game.turn`` stays as
    the real game's: it never tells two positions apart."""
    return (game.round, game.phase, game.active, game.players, game.board, game.stack, game.turn, game.rng)


def can_cycle(engine: Engine, game: Game, seat: int, legal: Sequence[Action]) -> bool:
    """Whether the pending decision is a repeatable choice whose answers can be undone: some
    answer, then some answer to the same decision asked again, brings back this position
    (the Mansion's ``coins>lantern`` then ``lantern>coins``). Such a choice could go round in
    circles; one that only goes forward (buying, selling, delivering) cannot."""
    if not any(a.option in STOP_OPTIONS for a in legal):
        return False  # no way to stop: not a repeatable choice
    here = _position(game)
    for action in legal:
        if action.type == "companion" or action.option in STOP_OPTIONS:
            continue
        trial = engine.copy(game)
        try:
            engine.apply(trial, action, track_undo=False)
        except Exception:  # an answer a plugin cannot resolve is not chosen anyway
            continue
        if not asks_again(engine, trial, seat, action.type):
            continue  # this answer ends the choice
        for back in engine.legal_actions(trial, seat):
            if back.type != action.type or back.option in STOP_OPTIONS:
                continue
            again = engine.copy(trial)
            try:
                engine.apply(again, back, track_undo=False)
            except Exception:
                continue
            if _position(again) == here:
                return True
    return False


def stop_repeat(engine: Engine, game: Game, seat: int, kind: str) -> None:
    """When ``game`` asks ``seat`` decision ``kind`` again and it can be stopped, stop it."""
    if not asks_again(engine, game, seat, kind):
        return
    stop = [a for a in engine.legal_actions(game, seat) if a.type == kind and a.option in STOP_OPTIONS]
    if stop:
        engine.apply(game, stop[0], track_undo=False)
