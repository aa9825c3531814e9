"""Caravans to the outlying towns (rulebook pp. 11–13, 14) and the final travel (p. 13).

Step 1 prepare (companion, route + destination, clockwise join decisions, travel dice),
step 2 the event (roll, take dice in route order with repeatable lantern rerolls,
reward or penalty), step 3 deliveries (simultaneous), step 4 good fortune.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product
from typing import Any

from .context import Ctx
from .goods import is_upgraded
from .goods import label as good_label
from .hooks import is_int, is_int_list
from .seats import HUMAN
from .state import CompanionCard, Task
from .steps import Choice, Option, Step

SHORTCUT_LANTERNS = 3
PRESTIGE_BY_COUNT = (0, 1, 3, 6)
TRAVEL_DIE_MAX = 6


def shortcut_cost(ctx: Ctx, seat: int) -> int:
    cost = ctx.first("darkroad_shortcut_cost", is_int, seat=seat)
    return SHORTCUT_LANTERNS if cost is None else cost


class CaravanCompanion(Choice):
    """Choose one available companion or the top of the companion deck; the card farthest
    from the deck brings its travel die."""

    kind = "caravan_companion"
    prompt = "caravan: choose a companion"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        b = ctx.game.board
        opts = []
        for i, card in enumerate(b.companion_row):
            if card:
                die = " (with the extra travel die)" if i == 2 else ""
                opts.append((f"row:{i}", f"take {ctx.content.companion_of(card).name}{die}"))
        if b.companion_deck:
            opts.append(("deck", "take the top card of the companion deck"))
        return opts

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        b = ctx.game.board
        card: str | None
        if option == "deck":
            card, extra = b.companion_deck.pop(0), False
        else:
            i = int(option.split(":")[1])
            card, extra = b.companion_row[i], i == 2
            b.companion_row[i] = None
        assert card is not None
        ctx.player(seat).companions.append(CompanionCard(card=card))
        ctx.emit("companion_taken", seat, card=card, companion=ctx.content.companion_cards.get(card, card),
                 travel_die=extra)
        ctx.game.turn["extra_die"] = extra


class CaravanRoute(Choice):
    """Declare the route (dark road, or a shortcut for 3 lanterns) and the destination."""

    kind = "caravan_route"
    prompt = "caravan: declare the route and the destination town"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        routes = ["dark_road"]
        cost = shortcut_cost(ctx, seat)
        if ctx.player(seat).lanterns >= cost:
            routes.append("shortcut")
        towns = ctx.content.towns
        return [(f"{r}:{t}", f"take the {r.replace('_', ' ')} to {towns[t].name}"
                 + (f" (pay {cost} lanterns)" if r == "shortcut" and cost else ""))
                for r in routes for t in towns]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        route, town = option.split(":")
        if route == "shortcut":
            ctx.pay(seat, "lanterns", shortcut_cost(ctx, seat), "shortcut")
        n = len(ctx.game.players)
        others = [(seat + k) % n for k in range(1, n)]
        ctx.game.turn["caravan"] = {"leader": seat, "route": route, "town": town, "members": [seat],
                                    "extra_die": bool(ctx.game.turn.pop("extra_die", False))}
        ctx.emit("caravan_declared", seat, route=route, town=town)
        ctx.push("caravan_event", seat)
        for other in reversed(others):
            ctx.push("caravan_join", other)


class CaravanJoin(Choice):
    """Each other player, clockwise, says yes or no to joining the caravan."""

    kind = "caravan_join"
    prompt = "join the caravan?"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        c = ctx.game.turn["caravan"]
        town = ctx.content.towns[c["town"]].name
        return [("yes", f"join the caravan to {town} by the {c['route'].replace('_', ' ')}"), ("no", "stay home")]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        c = ctx.game.turn["caravan"]
        if option == "yes":
            c["members"].append(seat)
        ctx.emit("caravan_answer", seat, join=option == "yes")


class CaravanEvent(Step):
    """Reveal the route's event card, roll 1 travel die per member (+1 for the companion's)."""

    kind = "caravan_event"

    def run(self, ctx: Ctx, task: Task) -> None:
        c = ctx.game.turn["caravan"]
        deck = ctx.game.board.events[c["route"]]
        event = deck.pop(0)
        deck.append(event)
        dice = sorted(ctx.roll() for _ in range(len(c["members"]) + (1 if c["extra_die"] else 0)))
        c["event"], c["dice"], c["rolled"] = event, dice, list(dice)
        ctx.emit("event_revealed", task.seat, event=event, name=ctx.content.events[event].name, dice=dice)
        leader, members = c["leader"], c["members"]
        n = len(ctx.game.players)
        ordered = sorted(members, key=lambda s: (s - leader) % n)  # leader, then clockwise
        if c["route"] == "shortcut":
            ordered = ordered[1:] + ordered[:1]  # leader's left first, leader last
        ctx.push("good_fortune", leader, left=2 if c["route"] == "shortcut" else 1)
        ctx.push("deliveries", -1, final=False, pending=list(ordered), town={})
        for seat in reversed(ordered):
            ctx.push("travel_die", seat)


class TravelDie(Choice):
    """Take 1 travel die (rewards/penalties by the event card); before choosing, pay 1
    lantern to reroll all remaining dice, as often as you like."""

    kind = "travel_die"
    prompt = "caravan: take a travel die"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        c = ctx.game.turn["caravan"]
        ev = ctx.content.events[c["event"]]
        bonuses = sorted({0} | {b for bs in ctx.call("darkroad_travel_die_bonus", is_int_list, seat=seat) for b in bs})
        opts = []
        for v in sorted(set(c["dice"])):
            faces = set()
            for bonus in bonuses:
                face = min(TRAVEL_DIE_MAX, v + bonus)
                if face in faces:
                    continue  # a bonus beyond the cap changes nothing
                faces.add(face)
                tag = f"take:{v}" + (f":+{bonus}" if bonus else "")
                plus = f" +{bonus} = {face}" if bonus else ""
                opts.append((tag, f"take the {v}{plus}: {', '.join(ev.faces[face]) or 'nothing'}"))
        if ctx.player(seat).lanterns and c["dice"]:
            opts.append(("reroll", "pay 1 lantern to reroll the remaining dice"))
        return opts

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        c = ctx.game.turn["caravan"]
        if option == "reroll":
            ctx.pay(seat, "lanterns", 1, "travel die reroll")
            c["dice"] = sorted(ctx.roll() for _ in c["dice"])
            c["rolled"] += c["dice"]
            ctx.emit("travel_dice_rerolled", seat, dice=list(c["dice"]))
            ctx.push("travel_die", seat)
            return
        parts = option.split(":")
        v = int(parts[1])
        bonus = int(parts[2]) if len(parts) > 2 else 0
        c["dice"].remove(v)
        face = min(TRAVEL_DIE_MAX, v + bonus)
        ctx.emit("travel_die_taken", seat, die=v, face=face)
        c.setdefault("taken", {})[str(seat)] = face
        ctx.gain_effects(seat, ctx.content.events[c["event"]].faces[face], source=f"event:{c['event']}")


def commission_options(ctx: Ctx, seat: int, commission: str) -> list[tuple[str, ...]]:
    """Every non-empty set of goods ``seat`` can deliver for ``commission`` (1 per request;
    a basic or an upgraded tile per requested type)."""
    held = set(ctx.player(seat).goods)
    choices = []
    for req in ctx.content.commissions[commission].requests:
        alts: list[str | None] = [None]
        alts += [g for g in (req, req + "+") if g in held]
        choices.append(alts)
    return [tuple(g for g in combo if g) for combo in product(*choices) if any(combo)]


class Deliveries(Choice):
    """Step 3 (p. 12): caravan members visit towns and deliver, simultaneously. The leader
    visits the declared town; others that town, the other town of its region, or pass.
    In the final travel every player picks any one town (p. 13)."""

    kind = "deliveries"
    prompt = "deliver commissions and heroes"

    def seats(self, ctx: Ctx, task: Task) -> list[int]:
        return list(task.data["pending"])

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        town = task.data["town"].get(str(seat))
        if town is None:
            return self.town_options(ctx, task, seat)
        p = ctx.player(seat)
        c = ctx.content
        opts: list[Option] = []
        for m in p.commissions:
            if c.commissions[m].town != town:
                continue
            for goods in commission_options(ctx, seat, m):
                opts.append((f"commission:{m}:{','.join(goods)}",
                             f"deliver {', '.join(good_label(g) for g in goods)} for the {c.towns[town].name} "
                             f"commission: {prestige_for(goods)} prestige"))
        for h in p.heroes:
            if c.heroes[h].town == town:
                opts.append((f"hero:{h}", f"deliver {c.heroes[h].name} to {c.towns[town].name}"))
        opts.append(("done", "finish delivering"))
        return opts

    def town_options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        towns = ctx.content.towns
        if task.data["final"]:
            allowed = list(towns)
        else:
            c = ctx.game.turn["caravan"]
            allowed = [c["town"]] if seat == c["leader"] else ctx.content.region_towns(c["town"])
        return [(f"town:{t}", f"visit {towns[t].name}") for t in allowed] + [("pass", "visit no town")]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        data = {**task.data, "town": dict(task.data["town"]), "pending": list(task.data["pending"])}
        kind, _, rest = option.partition(":")
        if kind in ("done", "pass"):
            data["pending"].remove(seat)
            if kind == "pass":
                ctx.emit("town_visited", seat, town=None)
            else:  # public, so the seats waiting on this one hear of it
                ctx.emit("deliveries_done", seat)
        elif kind == "town":
            data["town"][str(seat)] = rest
            ctx.emit("town_visited", seat, town=rest)
        if data["pending"]:
            ctx.push("deliveries", -1, **data)
        if kind == "commission":
            m, goods = rest.split(":")
            deliver_commission(ctx, seat, m, goods.split(","))
        elif kind == "hero":
            from .effects import deliver_hero

            deliver_hero(ctx, seat, rest, "delivery")

    def describe(self, ctx: Ctx, task: Task) -> str:
        return "final travel: " + self.prompt if task.data["final"] else "caravan: " + self.prompt


def prestige_for(goods: tuple[str, ...] | list[str]) -> int:
    """The prestige of delivering ``goods`` to one commission (rulebook, "Delivering
    commissions"): 1/3/6 for 1/2/3 goods, +1 for each upgraded good."""
    return PRESTIGE_BY_COUNT[len(goods)] + sum(1 for g in goods if is_upgraded(g))


def deliver_commission(ctx: Ctx, seat: int, commission: str, goods: Sequence[str]) -> None:
    """1/3/6 prestige for 1/2/3 goods, +1 per upgraded good; the commission to the log; then
    ``darkroad_commission_delivered``. The one delivery of a commission, for players and seat
    kinds alike: the goods leave a player's storage, or a seat kind's own accounting
    (:meth:`SeatKind.spend_goods`: the Private Concern's goods are a count), whose event also
    says how many (``goods_count``)."""
    p = ctx.player(seat)
    goods = list(goods)
    extra: dict[str, Any] = {}
    if p.kind == HUMAN:
        for g in goods:
            p.goods.remove(g)
    else:
        ctx.engine.seat_kinds[p.kind].spend_goods(ctx, seat, goods, f"commission:{commission}")
        extra["goods_count"] = len(goods)
    p.commissions.remove(commission)
    p.delivered_commissions.append(commission)
    gained = prestige_for(goods)
    ctx.emit("commission_delivered", seat, commission=commission, goods=goods, prestige=gained, **extra)
    ctx.add(seat, "prestige", gained, f"commission:{commission}")
    ctx.call("darkroad_commission_delivered", seat=seat, commission=commission, goods=list(goods))


class GoodFortune(Choice):
    """Step 4 (p. 13): the leader gets 1 (dark road) or 2 (shortcut) good fortunes."""

    kind = "good_fortune"
    prompt = "good fortune: choose one"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        b = ctx.game.board
        first, later = ctx.content.good_fortune_coins
        opts = [("illuminated", "gain 1 illuminated die")]
        if any(b.courtyard) or b.deed_deck:
            opts.append(("deed", "gain 1 available deed and its bonus"))
        opts.append(("coins", f"gain {first if b.five_coins else later} coins"))
        if b.upgrades and len(ctx.player(seat).upgrades) < upgrade_limit(ctx, seat):
            opts.append(("upgrade", "gain 1 available wagon upgrade"))
        return opts

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        if task.data["left"] > 1:
            ctx.push("good_fortune", seat, left=task.data["left"] - 1)
        ctx.emit("good_fortune", seat, choice=option)
        if option == "coins":
            b = ctx.game.board
            first, later = ctx.content.good_fortune_coins
            ctx.add(seat, "coins", first if b.five_coins else later, "good fortune")
            b.five_coins = False
        elif option == "upgrade":
            ctx.push("choose_upgrade", seat)
        else:
            ctx.gain_effects(seat, [option], source="good fortune")


def upgrade_limit(ctx: Ctx, seat: int) -> int:
    limit = ctx.first("darkroad_upgrade_limit", is_int, seat=seat)
    return 1 if limit is None else limit


class ChooseUpgrade(Choice):
    """Which wagon upgrade a good fortune (or Cosimo) gives: part of that gain, so no ability
    comes in between; the limit ("You may only have 1 wagon upgrade per game", p. 19) is
    checked again here, as the gain resolves: at the limit it offers nothing and is skipped."""

    kind = "choose_upgrade"
    prompt = "choose a wagon upgrade"
    inside_gain = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        if len(ctx.player(seat).upgrades) >= upgrade_limit(ctx, seat):
            return []
        comps = ctx.content.components
        return [(f"upgrade:{u}", f"{comps[u].name}: {comps[u].text}") for u in ctx.game.board.upgrades]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        gain_upgrade(ctx, seat, option.split(":", 1)[1])


def gain_upgrade(ctx: Ctx, seat: int, upgrade: str) -> None:
    ctx.game.board.upgrades.remove(upgrade)
    ctx.player(seat).upgrades.append(upgrade)
    ctx.emit("upgrade_gained", seat, upgrade=upgrade)
    ctx.call("darkroad_upgrade_gained", seat=seat, upgrade=upgrade)
    ctx.check_storage(seat)
    ctx.check_inventory(seat)


STEPS: list[Step] = [CaravanCompanion(), CaravanRoute(), CaravanJoin(), CaravanEvent(), TravelDie(),
                     Deliveries(), GoodFortune(), ChooseUpgrade()]
