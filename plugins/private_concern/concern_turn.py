"""The Private Concern's turn: an action card drawn, its planning reward, then the first
district action of the card whose requirement it meets (docs/private-concern.md, "Its turn").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from darkroad.core import Ctx, Step, Task, roll_ruins_die

from .rules import (
    COMPANION_SLOTS,
    DEFAULT_FORTUNES,
    DISTRICT_OF,
    FORTUNES_KEY,
    INN_SLOTS,
    SPACES,
    add_goods,
    anchor,
    ask,
    best_towns,
    cards,
    gain_goods,
    inn_candidates,
    inn_slots,
    move_dark_market,
    move_ruins,
    state,
    take_commission,
    town_options,
)


class ConcernTurn(Step):
    """The Trader's turn: draw the top action card (reshuffle the discards when the deck is
    out), move the wagon to the card's space and gain its planning reward (the illuminated-die
    option returns one of its illuminated dice instead, when it holds one); then
    ``concern_action`` performs the card's first district action whose requirement it meets."""

    kind = "concern_turn"

    def run(self, ctx: Ctx, task: Task) -> None:
        seat, g = task.seat, ctx.game
        p, concern = ctx.player(seat), state(g, seat)
        g.phase = "activate"
        for card in p.companions:  # a stray passed to it: it does not collect companions
            g.board.companion_deck.append(card.card)
            ctx.emit("companion_returned", seat, card=card.card)
        p.companions = []
        if not concern["deck"]:
            concern["deck"], concern["discard"] = concern["discard"], []
            ctx.shuffle(concern["deck"])
            ctx.emit("concern_deck_shuffled", seat, cards=len(concern["deck"]))
        card_id = concern["deck"].pop(0)
        concern["discard"].append(card_id)
        action_card = cards(ctx.content)[card_id]
        plan = action_card["planning"]
        ctx.emit("concern_card", seat, card=card_id, name=action_card.get("name", card_id))
        old, p.position = p.position, int(plan["space"])
        ctx.emit("moved", seat, steps=(p.position - old) % SPACES, position=p.position)
        ctx.push("concern_action", seat, card=card_id)
        if plan.get("illuminated") and p.special:
            p.special.pop(0)
            ctx.emit("illuminated_returned", seat)
            ctx.gain_effects(seat, plan["illuminated"], source=f"planning:{card_id}")
        else:
            ctx.gain_effects(seat, plan["reward"], source=f"planning:{card_id}")


class ConcernAction(Step):
    """Check the card's district actions top to bottom; perform the first whose requirement
    the Private Concern meets (and that can be done now)."""

    kind = "concern_action"

    def run(self, ctx: Ctx, task: Task) -> None:
        seat, card_id = task.seat, task.data["card"]
        for i, action in enumerate(cards(ctx.content)[card_id]["actions"]):
            if meets(ctx, seat, action):
                ctx.emit("concern_action", seat, card=card_id, index=i, action=action["action"],
                         district=DISTRICT_OF[action["action"]])
                PERFORM[action["action"]](ctx, seat, action)
                return
        ctx.emit("concern_action", seat, card=card_id, index=None, action=None, district=None)


def meets(ctx: Ctx, seat: int, action: Mapping[str, Any]) -> bool:
    """Whether the Private Concern meets the requirement of a district action of its card,
    and can do it now."""
    p = ctx.player(seat)
    goods = state(ctx.game, seat)["goods"]
    if goods > action.get("max_goods", goods) or goods < action.get("min_goods", goods):
        return False
    n = len(p.commissions)
    if n > action.get("max_commissions", n) or n < action.get("min_commissions", n):
        return False
    return FEASIBLE[action["action"]](ctx, seat, action)


def _can_travel(ctx: Ctx, seat: int, action: Mapping[str, Any]) -> bool:
    """At least 1 commission, or 2 heroes for the same town."""
    p, c = ctx.player(seat), ctx.content
    if p.commissions:
        return True
    towns = [c.heroes[h].town for h in p.heroes]
    return any(towns.count(t) >= 2 for t in set(towns))


FEASIBLE: dict[str, Callable[[Ctx, int, Mapping[str, Any]], bool]] = {
    "bazaar": lambda ctx, seat, a: True,
    "commission": lambda ctx, seat, a: any(ctx.game.board.commission_stacks.values()),
    "travel": _can_travel,
    "ruins": lambda ctx, seat, a: True,
    "dark_market": lambda ctx, seat, a: ctx.player(seat).coins >= int(a["move"]),
    "inn": lambda ctx, seat, a: state(ctx.game, seat)["goods"] > 0 and bool(inn_slots(ctx)),
}


def do_bazaar(ctx: Ctx, seat: int, action: Mapping[str, Any]) -> None:
    """Rotate the wheel; take every market die showing one of the card's 3 goods, 1 good each,
    without paying (none: 1 good from the supply). The dice are rerolled in Rest."""
    b = ctx.game.board
    ctx.rotate_wheel(seat)
    taken = 0
    for kind in action["goods"]:
        i = ctx.content.good_index[kind]
        for _ in range(b.market[i]):
            ctx.emit("bought", seat, good=kind, cost=0)
        taken += b.market[i]
        b.set_aside += b.market[i]
        b.market[i] = 0
    gain_goods(ctx, seat, taken or 1, source="great bazaar")


def do_commission(ctx: Ctx, seat: int, action: Mapping[str, Any]) -> None:
    take_commission(ctx, seat, action["town"], "queen's commissions")


def do_travel(ctx: Ctx, seat: int, action: Mapping[str, Any]) -> None:
    """Discard the companion of the noted slot (the farthest brings its travel die), choose
    the destination, declare the route (shortcut with 3 lanterns) and lead the caravan."""
    g, b = ctx.game, ctx.game.board
    ctx.emit("excursion", seat, choice="caravan")
    slot = action["companion"]
    card = b.companion_row[slot]
    extra = False
    if card:
        b.companion_row[slot] = None
        b.companion_deck.append(card)  # it does not collect companions: under the deck
        extra = slot == COMPANION_SLOTS - 1
        ctx.emit("companion_discarded", seat, card=card, travel_die=extra)
    g.turn.extra_die = extra
    g.turn.extra[FORTUNES_KEY] = list(action.get("good_fortune") or DEFAULT_FORTUNES)
    tied = best_towns(ctx, seat, list(ctx.content.towns))
    ask(ctx, seat, "destination", town_options(ctx, tied, "destination"), "the destination of its caravan")


def do_ruins(ctx: Ctx, seat: int, action: Mapping[str, Any]) -> None:
    """Move the ruins marker the card's number of spaces (1 good + 1 blazing quartz); then,
    with a lantern, return it and roll the ruins die."""
    move_ruins(ctx, seat, int(action["move"]))
    if ctx.player(seat).lanterns:
        ctx.add(seat, "lanterns", -1, "ruins die")
        roll_ruins_die(ctx, seat)


def do_dark_market(ctx: Ctx, seat: int, action: Mapping[str, Any]) -> None:
    """Pay the card's number of coins to move the marker that many spaces (only the bazaar is
    free for it); north, east, west: 2 goods; south: the card's noted commission or deed."""
    n = int(action["move"])
    ctx.pay(seat, "coins", n, "dark market")
    move_dark_market(ctx, seat, n, south=action["south"])


def do_inn(ctx: Ctx, seat: int, action: Mapping[str, Any]) -> None:
    """Sell to the inn hero matching its heroes + commissions (a tie or none: the noted slot,
    or the next one after it): up to the card's number of goods, one per request, for the
    current values of the hero's most valuable requests; the hero joins with its bonus."""
    b = ctx.game.board
    tied, decided = inn_candidates(ctx, seat)
    slot = tied[0] if decided else anchor(tied, list(range(INN_SLOTS)), int(action["hero"]))
    hero = b.inn[slot]
    assert hero is not None
    requests = ctx.content.heroes[hero].requests
    n = min(int(action["sell"]), len(requests), state(ctx.game, seat)["goods"])
    coins = sum(sorted((ctx.value(r) for r in requests), reverse=True)[:n])
    add_goods(ctx, seat, -n, "sold at the ringway inn")
    ctx.emit("concern_sold", seat, hero=hero, goods_count=n, coins=coins)
    ctx.add(seat, "coins", coins, "ringway inn")
    b.inn[slot] = None
    ctx.gain_hero(seat, hero, source="ringway inn")


PERFORM: dict[str, Callable[[Ctx, int, Mapping[str, Any]], None]] = {
    "bazaar": do_bazaar,
    "commission": do_commission,
    "travel": do_travel,
    "ruins": do_ruins,
    "dark_market": do_dark_market,
    "inn": do_inn,
}
