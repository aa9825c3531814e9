"""Step 3 of a caravan, "Visit Towns" (rulebook p. 12), and the final travel (p. 13).

"The leader may only visit the town they declared as their destination. Each other player in
the caravan may visit that same town or the other town in the same region (or pass). All
players may simultaneously deliver any number of commissions and heroes to the towns they have
chosen to visit." A commission: "You must deliver at least 1 good. Gain 1/3/6 prestige for
delivering 1/2/3 of the requested goods ... You gain 1 additional prestige for each upgraded
good that you deliver." A hero: "Gain the reward shown for that region on the kingdom board."
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product
from typing import Any

from .. import explain
from ..context import Ctx
from ..goods import is_upgraded
from ..hooks import is_bool
from ..hookspecs import hookimpl
from ..i18n import N_
from ..seats import HUMAN
from ..state import Task
from ..steps import Choice, Option, Step
from ..wording import count, say

PRESTIGE_BY_COUNT = (0, 1, 3, 6)


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
    prompt = N_("deliver commissions and heroes")
    logs_answer = True

    def seats(self, ctx: Ctx, task: Task) -> list[int]:
        return list(task.data["pending"])

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        town = task.data["town"].get(str(seat))
        if town is None:
            return self.town_options(ctx, task, seat)
        p = ctx.player(seat)
        c = ctx.content
        words = ctx.words
        opts: list[Option] = []
        for m in p.commissions:
            if c.commissions[m].town != town:
                continue
            for goods in commission_options(ctx, seat, m):
                opts.append((f"commission:{m}:{','.join(goods)}",
                             say("deliver %(goods)s to the %(town)s commission: gain %(prestige)s",
                                 goods=words.goods(goods), town=words.town(town),
                                 prestige=count(prestige_for(goods), "prestige"))))
        for h in p.heroes:
            if c.heroes[h].town == town:
                opts.append((f"hero:{h}", say("deliver %(hero)s to %(town)s: %(reward)s", hero=words.hero(h),
                                              town=words.town(town), reward=words.effects(c.towns[town].reward))))
        opts.append(("done", say("finish delivering")))
        return opts

    def has_options(self, ctx: Ctx, task: Task, seat: int) -> bool:
        return True  # passing, or being done

    def allows(self, ctx: Ctx, task: Task, seat: int, option: str) -> bool:
        town = task.data["town"].get(str(seat))
        kind, _, rest = option.partition(":")
        if town is None:
            return option == "pass" or (kind == "town" and rest in self.towns(ctx, task, seat))
        if option == "done":
            return True
        p, c = ctx.player(seat), ctx.content
        if kind == "hero":
            return rest in p.heroes and c.heroes[rest].town == town
        m, _, goods = rest.partition(":")
        return kind == "commission" and m in p.commissions and c.commissions[m].town == town \
            and any(goods == ",".join(g) for g in commission_options(ctx, seat, m))

    def details(self, ctx: Ctx, task: Task, seat: int) -> dict[str, str]:
        """A commission's prestige rule (p. 12), a town's reward for heroes (p. 19)."""
        out = {}
        for option, _ in self.options(ctx, task, seat):
            kind, _, rest = option.partition(":")
            if kind == "commission":
                goods = rest.partition(":")[2].split(",")
                out[option] = explain.commission_prestige(goods, prestige_for(goods))
            elif kind in ("hero", "town"):
                town = ctx.content.heroes[rest].town if kind == "hero" else rest
                out[option] = explain.town_reward(ctx, town)
        return out

    def towns(self, ctx: Ctx, task: Task, seat: int) -> list[str]:
        """The towns ``seat`` may visit: the declared town for the leader, a town of its region
        for another member, any town in the final travel."""
        if task.data["final"]:
            return list(ctx.content.towns)
        c = ctx.game.turn.caravan
        assert c is not None  # the deliveries of a caravan: the final travel has none
        return [c.town] if seat == c.leader else list(ctx.content.region_towns(c.town))

    def town_options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        return ([(f"town:{t}", say("visit %(town)s", town=ctx.words.town(t))) for t in self.towns(ctx, task, seat)]
                + [("pass", say("visit no town"))])

    def automated(self, ctx: Ctx, task: Task, seat: int) -> bool:
        if not ctx.first("darkroad_deliveries", is_bool, seat=seat, towns=self.towns(ctx, task, seat)):
            return False
        # Done: the decision waits for the other seats (in its place: what the deliveries
        # pushed, a choice for the seat, comes first).
        pending = [s for s in task.data["pending"] if s != seat]
        stack = ctx.game.stack
        i = next(i for i in range(len(stack) - 1, -1, -1) if stack[i] is task)
        if pending:
            data = {**task.data, "town": dict(task.data["town"]), "pending": pending}
            stack[i] = Task(kind=task.kind, seat=task.seat, data=data)
        else:
            del stack[i]
        return True

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
            deliver_hero(ctx, seat, rest, "delivery")

    def describe(self, ctx: Ctx, task: Task) -> str:
        return say("final travel: deliver commissions and heroes") if task.data["final"] \
            else say("caravan: deliver commissions and heroes")


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


def deliver_hero(ctx: Ctx, seat: int, hero: str, source: str = "") -> None:
    """Deliver ``hero`` to its town: region reward, hero to the merchant's log, then
    ``darkroad_hero_delivered``. The one delivery of a hero, for players and seat kinds alike
    (the reward's effects reach a seat kind's seat through its ``intercept``)."""
    p = ctx.player(seat)
    if hero not in p.heroes:
        return
    p.heroes.remove(hero)
    p.delivered_heroes.append(hero)
    town = ctx.content.towns[ctx.content.heroes[hero].town]
    ctx.emit("hero_delivered", seat, hero=hero, town=town.id, source=source)
    ctx.push("notify", seat, hook="darkroad_hero_delivered", args={"hero": hero})  # after the reward
    ctx.gain_effects(seat, town.reward, source=f"deliver:{hero}")
    ctx.check_storage(seat)


STEPS: list[Step] = [Deliveries()]


@hookimpl
def darkroad_steps() -> list[Step]:
    return list(STEPS)
