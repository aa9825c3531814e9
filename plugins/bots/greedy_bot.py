"""The ``greedy`` bot: one decision of lookahead with a heuristic value of the position.

It applies each legal action to a copy of the game and keeps the one whose resulting
position it values most for its own seat (:func:`estimate`: what the wagon would be worth
at final scoring, rulebook p. 13). When the next decision is again its own (a district's
follow-up choice), the best continuation is searched too, up to ``depth`` decisions deep.
Ties are broken at random (so it still explores), except that stopping a repeatable choice
(the Guildmaster's Mansion's trades) wins a tie: trading back and forth gains nothing.

A repeatable choice asks the same decision again after each answer. Most of them only go
forward (a purchase at the Great Bazaar spends coins, a delivery gives a good up): their
answers are valued with the lookahead like any other, so the bot sees what two answers
are worth together (a second good of a section bought for free, the goods a commission
needs delivered one by one). A choice whose answers can be undone (the Guildmaster's
Mansion's trades: an answer and a second one can bring the position back, see
:func:`can_cycle`) is different: a turn under way is worth more to :func:`estimate` than a
finished one (the illuminated die still in the pool), so comparing "one more trade" with
"stop" would trade back and forth forever. There each answer is valued as if it were the
last one (the bot stops the choice on the copy before valuing it); every trade it makes
must then beat stopping, so the value of the stopped position rises with every trade and
it never trades in circles. The bot keeps no memory between calls: whether a choice can
cycle is read from the position itself.

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
    Bot,
    Ctx,
    Engine,
    Game,
    commission_prestige,
    good_type,
    hookimpl,
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
    rounds_left = max(0, ROUNDS - game.round)
    hope = min(1.0, rounds_left / 6)
    coins, prestige = float(p.coins), float(p.prestige)
    caravan: dict[str, Any] = game.turn.get("caravan") or {}
    delivering = bool(caravan and seat in caravan.get("members", ())
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
    most = len(COMMISSION_PRESTIGE) - 1
    for m in p.commissions:
        n = min(most, sum(1 for k in c.commissions[m].requests if k in held))
        prestige += COMMISSION_PRESTIGE[n] * (0.45 if delivering else 0.75) + 0.3 * (most - n) * hope
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
        got = ctx.first("darkroad_deed_score", _is_score, seat=seat, deed=deed) or {}
        vp += got.get("vp", 0) + 0.5 * (got.get("coins", 0) + got.get("prestige", 0))
    vp += 0.5 * sum(len(x.gifts) for x in p.companions)
    return base + vp


def _is_score(v: Any) -> bool:
    return isinstance(v, dict) and all(isinstance(n, int) for n in v.values())


def _asks_again(engine: Engine, game: Game, seat: int, kind: str) -> bool:
    """Whether ``game`` asks ``seat`` decision ``kind`` (again)."""
    return not game.finished and bool(game.stack) and game.stack[-1].kind == kind and engine.awaiting(game) == [seat]


def _position(game: Game) -> tuple[Any, ...]:
    """What a position is, without the counters every action moves (version, events)."""
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
            engine.apply(trial, action)
        except Exception:  # an answer a plugin cannot resolve is not chosen anyway
            continue
        if not _asks_again(engine, trial, seat, action.type):
            continue  # this answer ends the choice
        for back in engine.legal_actions(trial, seat):
            if back.type != action.type or back.option in STOP_OPTIONS:
                continue
            again = engine.copy(trial)
            try:
                engine.apply(again, back)
            except Exception:
                continue
            if _position(again) == here:
                return True
    return False


class GreedyBot(Bot):
    """Lookahead with :func:`estimate`, ``depth`` decisions deep along its own decisions."""

    id = "greedy"
    name = "Greedy"
    text = ("Tries every legal action on a copy of the game and keeps the one that leaves its wagon worth "
            "the most at final scoring (looking one follow-up decision ahead).")

    def __init__(self, depth: int = 2) -> None:
        self.depth = depth

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

    @staticmethod
    def _stop_repeat(engine: Engine, game: Game, seat: int, kind: str) -> None:
        """When ``game`` asks ``seat`` decision ``kind`` again and it can be stopped, stop it."""
        if not _asks_again(engine, game, seat, kind):
            return
        stop = [a for a in engine.legal_actions(game, seat) if a.type == kind and a.option in STOP_OPTIONS]
        if stop:
            engine.apply(game, stop[0])

    def choose(self, engine: Engine, game: Game, seat: int, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        best: list[Action] = []
        best_value = float("-inf")
        cyclic = can_cycle(engine, game, seat, legal)
        for action in legal:
            trial = engine.copy(game)
            try:
                engine.apply(trial, action)
                if cyclic and action.type != "companion":
                    self._stop_repeat(engine, trial, seat, action.type)
                value = self._value(engine, trial, seat, self.depth - 1)
            except Exception:  # an action a plugin cannot resolve is simply not chosen
                continue
            if value > best_value + EPSILON:
                best, best_value = [action], value
            elif abs(value - best_value) <= EPSILON:
                best.append(action)
        if not best:
            return legal[0]
        # On a tie, stop a repeatable choice (trading back and forth gains nothing).
        stop = [a for a in best if a.option in STOP_OPTIONS]
        return stop[0] if stop else self.random(game, seat).choice(best)


@hookimpl
def darkroad_bots() -> list[Bot]:
    return [GreedyBot()]
