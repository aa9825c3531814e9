"""Setting up the game (rulebook "Setting up the Game" and "Player Setup", pp. 4–5), with the
drafting variant (p. 14) and the advanced deeds (p. 5)."""

from __future__ import annotations

from ..context import Ctx
from ..hookspecs import hookimpl
from ..i18n import N_
from ..state import Player, Task
from ..steps import Choice, Option, Step
from ..wording import say
from .rest import refill_companions, refill_courtyard, refill_inn

STARTING_GOOD = ((5, 0), (4, 1), (3, 2), (2, 3))
"""Player setup step 19: (value of the starting good, extra coins) by seating position."""


def setup(ctx: Ctx) -> None:
    """Build the board and the players' wagons (rulebook pp. 4–5), then push the first turn.

    A seat a seat kind takes (core/seats.py) is dealt like a player's, then made the kind's;
    it takes no steed, does not draft and does not choose a starting deed (the deck's top)."""
    g, c, b = ctx.game, ctx.content, ctx.game.board
    # 4. the Great Bazaar: a die decides the $5 good; dice on the first five sections.
    b.wheel_offset = ctx.randbelow(6)
    b.market = [0] * 6
    for pos in range(5):
        b.market[(b.wheel_offset + pos) % 6] = 1
    # 5. commissions: one face-up stack per town, shuffled.
    b.commission_stacks = {t: [] for t in c.towns}
    for m in sorted(c.commissions):
        b.commission_stacks[c.commissions[m].town].append(m)
    for stack in b.commission_stacks.values():
        ctx.shuffle(stack)
    # 7. events, 8. upgrades, 9. companions, 11. heroes, 12. deeds.
    b.events = {"dark_road": sorted(e for e in c.events if c.events[e].route == "dark_road"),
                "shortcut": sorted(e for e in c.events if c.events[e].route == "shortcut")}
    for deck in b.events.values():
        ctx.shuffle(deck)
    b.upgrades = [u.id for u in c.of_kind("upgrade")]
    b.companion_deck = ctx.engine.companion_deck(g.config)
    ctx.shuffle(b.companion_deck)
    b.companion_row = [None, None, None]
    refill_companions(ctx)
    b.hero_deck = sorted(h for h in c.heroes if not c.heroes[h].starting)
    ctx.shuffle(b.hero_deck)
    b.inn = [None] * 4
    refill_inn(ctx)
    b.deed_deck = [d.id for d in c.of_kind("deed")]
    ctx.shuffle(b.deed_deck)
    b.courtyard = [None, None]
    b.dark_market, b.ruins, b.five_coins = 2, 3, True
    deal(ctx)


def deal(ctx: Ctx) -> None:
    """Player setup (13–21): each wagon's dice, horseshoe, starting good and coins; steeds and
    starting heroes dealt (or drafted); starting deeds; then the first turn."""
    g, c, b = ctx.game, ctx.content, ctx.game.board
    n = g.config.players
    g.players = []
    starting = sorted(h for h in c.heroes if c.heroes[h].starting)
    ctx.shuffle(starting)
    steeds = [s.id for s in c.of_kind("steed")]
    ctx.shuffle(steeds)
    drafting = bool(g.config.variants.get("drafting"))
    for seat in range(n):
        p = Player(seat=seat)
        p.reserve = [ctx.roll() - 1 for _ in range(4)]
        p.special = [ctx.roll() - 1]
        p.horseshoes = 1
        value, extra = STARTING_GOOD[seat]
        p.goods = [ctx.goods_of_value(value)[0]]
        p.coins += extra
        g.players.append(p)
    automated = ctx.engine.seat_assignment(g.config)
    for seat, kind in sorted(automated.items()):
        g.players[seat].kind = kind.id
        kind.setup(ctx, seat)
    humans = [seat for seat in range(n) if seat not in automated]
    ctx.push("turn", g.start_seat)
    if drafting:
        b.extra["draft"] = [[steeds[i], starting[i]] for i in range(len(humans) + 1)]
        for seat in reversed(humans):
            ctx.push("draft", seat)
    else:
        for seat in reversed(humans):
            g.players[seat].steeds.append(steeds[seat])
            ctx.emit("steed_dealt", seat, steed=steeds[seat])
            ctx.gain_hero(seat, starting[seat], source="starting hero")
    # An automated seat's starting hero: drafting, one the draft's stacks do not hold.
    for i, (seat, kind) in enumerate(sorted(automated.items())):
        kind.starting_hero(ctx, seat, starting[len(humans) + 1 + i if drafting else seat])
    for seat in reversed(range(n)):
        if g.config.variants.get("advanced_deeds") and seat not in automated:
            ctx.push("choose_starting_deed", seat, deeds=[b.deed_deck.pop(0), b.deed_deck.pop(0)])
        else:
            g.players[seat].deeds.append(b.deed_deck.pop(0))
    refill_courtyard(ctx)
    ctx.call("darkroad_setup")
    ctx.emit("game_started", None, players=n, buildings=list(b.buildings))


class Setup(Step):
    """Set the game up: the step every game begins with (``Engine.create`` pushes it)."""

    kind = "setup"

    def run(self, ctx: Ctx, task: Task) -> None:
        setup(ctx)


class ChooseStartingDeed(Choice):
    """Advanced setup (p. 5, step 17): draw 2 deeds, keep 1, the other to the bottom."""

    kind = "choose_starting_deed"
    prompt = N_("keep one of two deeds")
    logs_answer = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        return [(d, say("keep %(deed)s", deed=ctx.words.component(d))) for d in task.data["deeds"]]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        ctx.player(seat).deeds.append(option)
        ctx.game.board.deed_deck.extend(d for d in task.data["deeds"] if d != option)
        ctx.emit("deed_gained", seat, source="starting deed")  # public: the next seat's turn to choose
        ctx.emit("deed_kept", seat, private=True, deed=option)


class Draft(Choice):
    """Drafting variant (p. 14): take a steed + starting hero stack, in turn order."""

    kind = "draft"
    prompt = N_("draft a steed and starting hero")
    logs_answer = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        return [(f"stack:{i}", say("take %(steed)s with %(hero)s", steed=ctx.words.component(s), hero=ctx.words.hero(h)))
                for i, (s, h) in enumerate(ctx.game.board.extra["draft"]) if s]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        stacks = ctx.game.board.extra["draft"]
        i = int(option.split(":")[1])
        steed, hero = stacks[i]
        stacks[i] = [None, None]
        ctx.player(seat).steeds.append(steed)
        ctx.emit("steed_dealt", seat, steed=steed)
        ctx.gain_hero(seat, hero, source="starting hero")
        if sum(1 for s, _ in stacks if s) == 1:
            del ctx.game.board.extra["draft"]


STEPS: list[Step] = [Setup(), ChooseStartingDeed(), Draft()]


@hookimpl
def darkroad_steps() -> list[Step]:
    return list(STEPS)
