"""What a choice gives, in words: the ``details`` of a decision's actions (issue 42).

A label says what an answer does ("lock a 3 in slot #1, bumping its 1 into your action pool");
its details say what the player needs to know to choose it without the rulebook open: what
the slot does and which good slot #1 would craft, the price of each die and good at the Great
Bazaar, the event card's faces at a travel die, a town's reward at a delivery. Each is a
sentence or two of the engine's words (:mod:`darkroad.core.wording`), built from the game as it
is. A step offers them through :meth:`darkroad.core.steps.Step.details`; the engine gathers
them (:meth:`Engine.details`) and the API adds them to the listed actions.
"""

from __future__ import annotations

from collections.abc import Sequence

from .context import MARKET_VALUES, Ctx
from .wording import count, listed, say

UPGRADE_SLOT = "locked slot #%d"
"""A wagon upgrade's ``goes_in`` when it replaces a locked slot's special action."""


def slot(ctx: Ctx, seat: int, number: int, locked: int | None, last_rounds: bool) -> str:
    """What the special action of locked slot ``number`` gives ``seat`` (p. 6), a wagon upgrade
    replacing it included; for slot #1 the good the die ``locked`` there crafts."""
    words = ctx.words
    for upgrade in ctx.player(seat).upgrades:
        component = ctx.content.components.get(upgrade)
        if component is not None and component.data.get("goes_in") == UPGRADE_SLOT % number:
            return say("Slot #%(slot)d holds your %(upgrade)s: %(text)s", slot=number,
                       upgrade=words.component(upgrade), text=component.text)
    if number == 1:
        if last_rounds or locked is None:
            return say("Slot #1 gives a basic good of your choice (the last 3 rounds).")
        good = ctx.content.crafting_chart.get(locked)
        if good is None:
            return say("Slot #1 crafts the good the crafting chart gives for the die newly locked there.")
        return say("Slot #1 crafts by the crafting chart: a %(die)d crafts %(good)s ($%(value)d now).", die=locked,
                   good=words.a_good(good), value=ctx.value(good))
    if number == 2:
        return say("Slot #2: gain 1 lantern, or move an illuminated die to your action pool.")
    return say("Slot #3: gain 2 coins, or rotate the market wheel 1 space clockwise.")


def pool_die(value: int) -> str:
    """What the die bumped into the action pool is for (p. 7)."""
    return say("The %(die)d goes to your action pool, to move by.", die=value)


def _dice(n: int) -> str:
    return say("no market die") if n == 0 else count(n, "market_dice")


def wheel(ctx: Ctx, offset: int | None = None, dice: Sequence[int] | None = None) -> str:
    """The market wheel in words, each good's price and market dice ("potion $5 (2 market dice),
    book $4 (no market die), ..."); ``offset`` and ``dice``: the wheel as it would be."""
    words = ctx.words
    offset = ctx.game.board.wheel_offset if offset is None else offset
    dice = ctx.game.board.market if dice is None else dice
    return listed([say("%(good)s $%(price)d (%(dice)s)", good=words.good_type(good),
                       price=MARKET_VALUES[(i - offset) % 6], dice=_dice(dice[i]))
                   for i, good in enumerate(ctx.content.good_ids)])


def market(ctx: Ctx) -> str:
    """The market wheel now, as a sentence (p. 8: goods cost their current values)."""
    return say("The market wheel: %(goods)s.", goods=wheel(ctx))


def market_after(ctx: Ctx, option: str) -> str:
    """The Great Bazaar's details of ``option``: what changes on the wheel (the prices after a
    rotation; the two sections a changed die leaves and joins), or the wheel now."""
    board = ctx.game.board
    words = ctx.words
    if option == "rotate":
        prices = [say("%(good)s $%(price)d", good=words.good_type(good),
                      price=MARKET_VALUES[(i - board.wheel_offset + 1) % 6])
                  for i, good in enumerate(ctx.content.good_ids)]
        return say("After the rotation: %(prices)s.", prices=listed(prices))
    if option.startswith("change:"):
        _, src, dst = option.split(":")
        dice = board.market
        index = ctx.content.good_index
        return say("After the change: %(to)s at $%(to_price)d, %(from)s at $%(from_price)d.",
                   to=say("%(good)s %(dice)s", good=words.good_type(dst), dice=_dice(dice[index[dst]] + 1)),
                   to_price=ctx.value(dst),
                   **{"from": say("%(good)s %(dice)s", good=words.good_type(src), dice=_dice(dice[index[src]] - 1)),
                      "from_price": ctx.value(src)})
    return market(ctx)


def bazaar_buy(ctx: Ctx, good: str, paid: Sequence[str], price: int) -> str:
    """Why a good costs what it does at the Great Bazaar (p. 8: "The cost for each section is only
    counted once. If you buy 2 goods from a single section, the second is free")."""
    if good in paid:
        return say("You paid for its section already: the second good of a section is free.")
    left = ctx.game.board.market[ctx.content.good_index[good]]
    return say("Its section costs $%(value)d now and holds %(dice)s; a second good from the same section is "
               "free. You pay %(price)s.", value=ctx.value(good), dice=_dice(left), price=count(price, "coins"))


def event_faces(ctx: Ctx, event: str) -> str:
    """An event card's faces in words: what each travel die value gives (p. 12)."""
    card = ctx.content.events.get(event)
    if card is None:
        return ""
    words = ctx.words
    faces = [say("%(face)d: %(effects)s", face=face, effects=words.effects(card.faces[face]))
             for face in sorted(card.faces)]
    return say("%(event)s: %(faces)s.", event=words.event(event), faces="; ".join(faces))


def town_reward(ctx: Ctx, town: str) -> str:
    """What a hero delivered to ``town`` gives (p. 19, "Travel Rewards")."""
    found = ctx.content.towns.get(town)
    if found is None:
        return ""
    return say("A hero delivered to %(town)s gives %(reward)s.", town=ctx.words.town(town),
               reward=ctx.words.things(found.reward))


def commission_prestige(goods: Sequence[str], prestige: int) -> str:
    """A commission's prestige (p. 12: "Gain 1/3/6 prestige for delivering 1/2/3 of the requested
    goods ... 1 additional prestige for each upgraded good that you deliver")."""
    upgraded = sum(1 for good in goods if good.endswith("+"))
    if not upgraded:
        return say("1, 2 or 3 goods give 1, 3 or 6 prestige: these give %(prestige)s.",
                   prestige=count(prestige, "prestige"))
    return say("1, 2 or 3 goods give 1, 3 or 6 prestige, and each upgraded good 1 more: these give "
               "%(prestige)s.", prestige=count(prestige, "prestige"))
