"""Setup, the turn (Plan → Move → Activate → Rest), overflow decisions, the end of rounds.

Rulebook references: "Setting up the Game" and "Player Setup" (pp. 4–5), "Playing the
Game" (p. 6), "Step 1: Plan" .. "Step 4: Rest" (pp. 6–7), "Wagon Overview" (p. 18).
"""

from __future__ import annotations

from .context import MAX_PER_SECTION, Ctx
from .errors import PluginError
from .goods import label as good_label
from .hooks import is_bool, is_distances, is_str_list
from .seats import HUMAN
from .state import PoolDie, Task
from .steps import Choice, Option, Step

ROUNDS = 13
REFRESH_ROUNDS = (4, 7, 9, 10)
"""End of these rounds: remove 1 spent die, reroll the rest into the main reserve."""
DISTRICTS = ("great_bazaar", "queens_commissions", "yurgs_excursions", "dark_market", "ringway_inn")
"""Clockwise around the Ringway (docs/content.md, "Ringway order"). Wagon space ``s`` lies between district
``s - 1`` and district ``s``; space 0 (the start space) has no building."""
DISTRICT_NAMES = {
    "great_bazaar": "the Great Bazaar",
    "queens_commissions": "the Queen's Commissions",
    "yurgs_excursions": "Yurg's Excursions",
    "dark_market": "the Dark Market",
    "ringway_inn": "the Ringway Inn",
}
STARTING_GOOD = ((5, 0), (4, 1), (3, 2), (2, 3))
"""Player setup step 19: (value of the starting good, extra coins) by seating position."""


def adjacent(space: int) -> tuple[str, str]:
    return DISTRICTS[(space - 1) % 5], DISTRICTS[space % 5]


def connected_building(ctx: Ctx, space: int) -> str | None:
    b = ctx.game.board.buildings
    return b[space - 1] if 1 <= space <= len(b) else None


# -- setup ---------------------------------------------------------------------------------


def setup(ctx: Ctx) -> None:
    """Build the board and the players' wagons (rulebook pp. 4–5), then push the first turn.

    A seat a seat kind takes (core/seats.py) is dealt like a player's, then made the kind's;
    it takes no steed, does not draft and does not choose a starting deed (the deck's top)."""
    g, c, b = ctx.game, ctx.content, ctx.game.board
    n = g.config.players
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
    # Players (13–21).
    from .state import Player

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


class ChooseStartingDeed(Choice):
    """Advanced setup (p. 5, step 17): draw 2 deeds, keep 1, the other to the bottom."""

    kind = "choose_starting_deed"
    prompt = "keep one of two deeds"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        return [(d, f"keep {ctx.content.components[d].name}") for d in task.data["deeds"]]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        ctx.player(seat).deeds.append(option)
        ctx.game.board.deed_deck.extend(d for d in task.data["deeds"] if d != option)
        ctx.emit("deed_gained", seat, source="starting deed")  # public: the next seat's turn to choose
        ctx.emit("deed_kept", seat, private=True, deed=option)


class Draft(Choice):
    """Drafting variant (p. 14): take a steed + starting hero stack, in turn order."""

    kind = "draft"
    prompt = "draft a steed and starting hero"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        c = ctx.content
        return [(f"stack:{i}", f"{c.components[s].name} with {c.heroes[h].name}")
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


# -- overflow ------------------------------------------------------------------------------


class DiscardGood(Choice):
    """Storage overflow (p. 18): discard goods until the rest fit."""

    kind = "discard_good"
    settles_overflow = True
    prompt = "your goods do not fit: return one to the supply"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        p = ctx.player(seat)
        if ctx.fits(seat, p.goods):
            return []
        return [(f"discard:{g}", f"return {good_label(g)}") for g in sorted(set(p.goods))]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        ctx.lose_good(seat, option.split(":", 1)[1], "storage full")
        ctx.check_storage(seat)


class DiscardHero(Choice):
    """More than 3 heroes (p. 18): discard one to the bottom of the hero deck."""

    kind = "discard_hero"
    settles_overflow = True
    prompt = "too many heroes: discard one"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        p = ctx.player(seat)
        if len(p.heroes) <= ctx.capacity(seat, "heroes"):
            return []
        return [(f"discard:{h}", f"discard {ctx.content.heroes[h].name}") for h in p.heroes]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        hero = option.split(":", 1)[1]
        ctx.player(seat).heroes.remove(hero)
        ctx.return_hero(hero)
        ctx.emit("hero_discarded", seat, hero=hero)
        if len(ctx.player(seat).heroes) > ctx.capacity(seat, "heroes"):
            ctx.overflow("discard_hero", seat)
        ctx.check_storage(seat)


class DiscardCommission(Choice):
    """More than 3 commissions (p. 18): discard one to the bottom of its town's stack."""

    kind = "discard_commission"
    settles_overflow = True
    prompt = "too many commissions: discard one"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        p = ctx.player(seat)
        if len(p.commissions) <= ctx.capacity(seat, "commissions"):
            return []
        c = ctx.content.commissions
        return [(f"discard:{m}", f"discard {c[m].town} commission ({', '.join(c[m].requests)})")
                for m in p.commissions]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        m = option.split(":", 1)[1]
        ctx.player(seat).commissions.remove(m)
        ctx.return_commission(m)
        ctx.emit("commission_discarded", seat, commission=m)
        if len(ctx.player(seat).commissions) > ctx.capacity(seat, "commissions"):
            ctx.overflow("discard_commission", seat)


class DiscardInventory(Choice):
    """More blazing quartz + horseshoes than inventory slots (p. 18): discard one."""

    kind = "discard_inventory"
    settles_overflow = True
    prompt = "inventory full: discard a blazing quartz or a horseshoe"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        p = ctx.player(seat)
        if p.quartz + p.horseshoes <= ctx.capacity(seat, "inventory"):
            return []
        opts = []
        if p.quartz:
            opts.append(("discard:quartz", "discard a blazing quartz"))
        if p.horseshoes:
            opts.append(("discard:horseshoes", "discard a horseshoe"))
        return opts

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        res = option.split(":", 1)[1]
        setattr(ctx.player(seat), res, getattr(ctx.player(seat), res) - 1)
        ctx.emit("discarded", seat, resource=res, amount=1, reason="inventory full")
        ctx.check_inventory(seat)


class HeroBonus(Step):
    """A hero that joined gives its bonus, unless it was the one discarded (p. 10)."""

    kind = "hero_bonus"

    def run(self, ctx: Ctx, task: Task) -> None:
        hero = task.data["hero"]
        if hero not in ctx.player(task.seat).heroes:
            return
        bonus = ctx.content.heroes[hero].bonus
        if bonus == "lantern":
            ctx.add(task.seat, "lanterns", 1, f"hero:{hero}")
        elif bonus == "horseshoe":
            ctx.add(task.seat, "horseshoes", 1, f"hero:{hero}")


# -- the turn --------------------------------------------------------------------------------


class Turn(Step):
    """Start ``seat``'s turn: Plan, Move, Activate, Rest, (companion moment), next turn."""

    kind = "turn"

    def run(self, ctx: Ctx, task: Task) -> None:
        g = ctx.game
        if g.round == 0:
            g.round = 1
        g.active = task.seat
        g.turn = {"seat": task.seat}
        ctx.emit("turn_started", task.seat, round=g.round)
        kind = g.players[task.seat].kind
        if kind != HUMAN:  # an automated seat: its seat kind's steps, then Rest
            steps = ctx.engine.seat_kinds[kind].turn(ctx, task.seat)
            ctx.push_many(task.seat, [*steps, ("rest", {}), ("end_turn", {})])
            return
        ctx.push_many(task.seat, [("plan", {}), ("move", {}), ("activate", {}), ("rest", {}),
                                  ("finish_turn", {}), ("end_turn", {})])


class Plan(Choice):
    """Step 1 (p. 6): optionally reset 1-2-3; bump a locked die with a reserve die
    (last 3 rounds: take a locked die), then the slot's special action."""

    kind = "plan"
    prompt = "plan: bump a locked die into your action pool"
    begins_phase = "plan"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        p = ctx.player(seat)
        opts: list[Option] = []
        locked = p.locked
        if not task.data.get("reset") and None not in locked and len(set(locked)) == 1 and locked != [1, 2, 3]:
            opts.append(("reset", "reset your locked dice to 1, 2, 3"))
        if p.reserve:
            for slot in (1, 2, 3):
                if locked[slot - 1] is None:
                    continue
                for v in sorted(set(p.reserve)):
                    opts.append((f"bump:{slot}:{v}",
                                 f"lock a {v} in slot #{slot}, bumping its {locked[slot - 1]} into your action pool"))
        else:
            for slot in (1, 2, 3):
                if locked[slot - 1] is not None:
                    opts.append((f"take:{slot}", f"move the {locked[slot - 1]} in slot #{slot} to your action pool"))
        return opts

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        p = ctx.player(seat)
        parts = option.split(":")
        if parts[0] == "reset":
            p.locked = [1, 2, 3]
            ctx.emit("dice_reset", seat)
            ctx.push("plan", seat, reset=True)
            return
        slot = int(parts[1])
        bumped = p.locked[slot - 1]
        assert bumped is not None
        p.pool.append(PoolDie(kind="night", value=bumped))
        if parts[0] == "bump":
            v = int(parts[2])
            p.reserve.remove(v)
            p.locked[slot - 1] = v
        else:
            p.locked[slot - 1] = None
        ctx.emit("die_bumped", seat, slot=slot, to_pool=bumped, locked=p.locked[slot - 1])
        ctx.push("slot_action", seat, slot=slot, last_rounds=parts[0] == "take")


class SlotAction(Step):
    """The special action of the slot a die just left (p. 6); wagon upgrades may replace it."""

    kind = "slot_action"

    def run(self, ctx: Ctx, task: Task) -> None:
        seat, slot, last = task.seat, task.data["slot"], task.data["last_rounds"]
        if ctx.first("darkroad_slot_action", is_bool, seat=seat, slot=slot, last_rounds=last):
            return
        if slot == 1:
            ctx.gain_effects(seat, ["good:any" if last else "good:craft"], source="slot #1")
        elif slot == 2:
            ctx.push("slot2", seat)
        else:
            ctx.push("slot3", seat)


class Slot2(Choice):
    kind = "slot2"
    prompt = "slot #2: gain a lantern or move an illuminated die to your action pool"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        opts = [("lantern", "gain 1 lantern")]
        opts += [(f"illuminated:{v}", f"move your illuminated {v} to your action pool")
                 for v in sorted(set(ctx.player(seat).special))]
        return opts

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        if option == "lantern":
            ctx.add(seat, "lanterns", 1, "slot #2")
        else:
            move_illuminated(ctx, seat, int(option.split(":")[1]))


def move_illuminated(ctx: Ctx, seat: int, value: int) -> None:
    p = ctx.player(seat)
    p.special.remove(value)
    p.pool.append(PoolDie(kind="illuminated", value=value))
    ctx.emit("illuminated_to_pool", seat, value=value)


class Slot3(Choice):
    kind = "slot3"
    prompt = "slot #3: gain 2 coins or rotate the market wheel"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        return [("coins", "gain 2 coins"), ("rotate", "rotate the market wheel 1 space clockwise")]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        if option == "coins":
            ctx.add(seat, "coins", 2, "slot #3")
        else:
            ctx.rotate_wheel(seat)


class Move(Choice):
    """Step 2 (p. 7): move clockwise by one pool die's value (0 stays)."""

    kind = "move"
    prompt = "move: choose a die from your action pool"
    begins_phase = "move"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        p = ctx.player(seat)
        dists = {d.value for d in p.pool}
        labels = {d.value: f"move {d.value} with your {d.kind} die" for d in p.pool}
        for extra in ctx.call("darkroad_movement_options", is_distances, seat=seat):
            for v in extra:
                if v not in dists:
                    dists.add(v)
                    labels[v] = f"move exactly {v}"
        return [(f"move:{v}", labels[v]) for v in sorted(dists)]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        p = ctx.player(seat)
        n = int(option.split(":")[1])
        p.position = (p.position + n) % 5
        ctx.emit("moved", seat, steps=n, position=p.position)
        if p.horseshoes:
            ctx.push("horseshoe", seat)


class Horseshoe(Choice):
    """After moving, optionally spend 1 horseshoe to move 1 space either way (max 1 per turn)."""

    kind = "horseshoe"
    prompt = "spend a horseshoe to move 1 space?"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        if not ctx.player(seat).horseshoes or ctx.game.turn.get("horseshoe"):
            return []
        return [("keep", "do not spend a horseshoe"), ("cw", "spend a horseshoe: 1 space clockwise"),
                ("ccw", "spend a horseshoe: 1 space counterclockwise")]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        if option == "keep":
            return
        p = ctx.player(seat)
        ctx.pay(seat, "horseshoes", 1, "horseshoe move")
        ctx.game.turn["horseshoe"] = True
        p.position = (p.position + (1 if option == "cw" else -1)) % 5
        ctx.emit("moved", seat, steps=1 if option == "cw" else -1, position=p.position, horseshoe=True)


class Activate(Choice):
    """Step 3 (p. 7): night die → one adjacent district; night + illuminated → both
    districts and the connected building, in any order, each fully resolved."""

    kind = "activate"
    prompt = "activate: choose what to activate next"
    begins_phase = "activate"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        p = ctx.player(seat)
        left, right = adjacent(p.position)
        done = set(task.data.get("done", ()))
        if not any(d.kind == "illuminated" for d in p.pool):
            if done:
                return []
            return [(f"district:{d}", f"activate {DISTRICT_NAMES[d]}") for d in (left, right)]
        opts = [(f"district:{d}", f"activate {DISTRICT_NAMES[d]}") for d in (left, right) if d not in done]
        if "building" not in done:
            connected = connected_building(ctx, p.position)
            targets = [connected] if connected else []
            for extra in ctx.call("darkroad_building_targets", is_str_list, seat=seat, connected=connected):
                targets += [t for t in extra if t not in targets and ctx.in_play(t)]
            opts += [(f"building:{b}", f"activate {ctx.content.components[b].name}") for b in targets]
        return opts

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        what, _, target = option.partition(":")
        done = list(task.data.get("done", ()))
        done.append(target if what == "district" else "building")
        ctx.push("activate", seat, done=done)
        ctx.emit("activated", seat, target=target, what=what)
        if what == "district":
            ctx.push(target, seat)
        elif not ctx.first("darkroad_activate_building", is_bool, seat=seat, building=target):
            owner = ctx.content.components[target].plugin if target in ctx.content.components else ""
            raise PluginError(f"no plugin resolved building {target!r} (provided by {owner!r})", plugin=owner)


class FinishTurn(Choice):
    """A last moment of the turn, after Rest, for companion abilities ("You may only trigger
    companion abilities on your own turn, but may do so at any time", p. 16; Rest is the
    turn's fourth step); a decision only when an ability is usable."""

    kind = "finish_turn"
    prompt = "end your turn (or trigger a companion ability first)"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        if not ctx.engine.companion_options(ctx, seat):
            return []
        return [("end", "end your turn")]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        return None


class Rest(Step):
    """Step 4 (p. 7): return dice, reroll bought market dice, refill the offers; at the end
    of rounds 4, 7, 9, 10 remove 1 spent die and reroll the rest into the main reserve."""

    kind = "rest"

    def run(self, ctx: Ctx, task: Task) -> None:
        g, seat = ctx.game, task.seat
        g.phase = "rest"
        p = ctx.player(seat)
        # "Retrieve the night die you used this turn ... placing it in the spent pile ... If you
        # also used an illuminated die this turn, retrieve that die too, but return it to the
        # supply instead." (rulebook, Step 4: Rest)
        p.spent += sum(1 for d in p.pool if d.kind == "night")
        p.pool = []
        upkeep(ctx, seat)
        if g.round in REFRESH_ROUNDS and not p.reserve and p.spent:
            p.spent -= 1
            p.removed += 1
            p.reserve = [ctx.roll() - 1 for _ in range(p.spent)]
            p.spent = 0
            ctx.emit("night_dice_refreshed", seat, removed=1, reserve=list(p.reserve))


def upkeep(ctx: Ctx, seat: int) -> None:
    """Rest's upkeep of the kingdom board: reroll the market dice bought this turn (at most 2
    per section), refill the companion row, the inn and the courtyard."""
    b = ctx.game.board
    for _ in range(b.set_aside):
        while True:
            face = ctx.randbelow(6)
            if b.market[face] < MAX_PER_SECTION:
                b.market[face] += 1
                break
    if b.set_aside:
        ctx.emit("market_rerolled", seat, market=list(b.market))
    b.set_aside = 0
    refill_companions(ctx)
    refill_inn(ctx)
    refill_courtyard(ctx)


def refill_companions(ctx: Ctx) -> None:
    """Slide companions toward the end of the row, refill from the deck (the farthest card
    carries a travel die)."""
    b = ctx.game.board
    kept = [c for c in b.companion_row if c]
    row: list[str | None] = [None] * (3 - len(kept)) + kept
    for i in range(len(row)):
        if row[i] is None and b.companion_deck:
            row[i] = b.companion_deck.pop(0)
    b.companion_row = row


def refill_inn(ctx: Ctx) -> None:
    b = ctx.game.board
    for i, h in enumerate(b.inn):
        if h is None and b.hero_deck:
            b.inn[i] = b.hero_deck.pop(0)


def refill_courtyard(ctx: Ctx) -> None:
    b = ctx.game.board
    for i, d in enumerate(b.courtyard):
        if d is None and b.deed_deck:
            b.courtyard[i] = b.deed_deck.pop(0)


class EndTurn(Step):
    """Pass the turn clockwise; after round 13, the final travel and final scoring."""

    kind = "end_turn"

    def run(self, ctx: Ctx, task: Task) -> None:
        g = ctx.game
        # A companion ability used after Rest may have taken a card or a market die: the
        # upkeep covers it before the turn passes (nothing to do, and no die rolled, otherwise).
        upkeep(ctx, task.seat)
        nxt = (task.seat + 1) % len(g.players)
        if nxt == g.start_seat:
            ctx.emit("round_ended", None, round=g.round)
            if g.round >= ROUNDS:
                g.phase = "final_travel"
                g.turn = {}
                ctx.push("final_scoring")
                ctx.push("deliveries", -1, final=True, pending=list(range(len(g.players))), town={})
                return
            g.round += 1
        ctx.push("turn", nxt)


STEPS: list[Step] = [
    ChooseStartingDeed(), Draft(), DiscardGood(), DiscardHero(), DiscardCommission(), DiscardInventory(),
    HeroBonus(), Turn(), Plan(), SlotAction(), Slot2(), Slot3(), Move(), Horseshoe(), Activate(),
    FinishTurn(), Rest(), EndTurn(),
]
