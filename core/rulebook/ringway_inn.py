"""The Ringway Inn (rulebook p. 10): sell goods to a hero, who joins the wagon.

"Choose 1 available hero ... You may meet any number of their requests by selling them 1
good per request. You must sell at least 1 good." "Gain coins from the supply for the sold
goods, based on their current values. In addition, gain 1 blazing quartz and 1 extra coin
from the supply for each upgraded good sold." Then the hero joins with its bonus ("If all of
your hero slots are full and you decide to discard the new hero instead of a different hero,
you do not gain the new hero's bonus"). The sale is made one good at a time; the hero being
sold to is engaged meanwhile (nothing else may take it).
"""

from __future__ import annotations

from ..context import Ctx
from ..goods import good_type, is_upgraded
from ..hookspecs import hookimpl
from ..i18n import N_
from ..state import Task
from ..steps import Choice, Option, Step
from ..wording import HERO_CLASSES, count, say

BONUS_WORDS = {"lantern": N_("1 lantern"), "horseshoe": N_("1 horseshoe"), "storage": N_("room for any 1 good")}
"""A hero's bonus in words (p. 10: lantern, horseshoe, storage), as messages."""


class RingwayInn(Choice):
    """Pick 1 face-up hero you can sell at least 1 requested good to."""

    kind = "ringway_inn"
    prompt = N_("the Ringway Inn: choose a hero to sell to")
    logs_answer = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        held = {good_type(g) for g in ctx.player(seat).goods}
        opts = []
        for i, h in enumerate(ctx.game.board.inn):
            if h and held.intersection(ctx.content.heroes[h].requests):
                hero = ctx.content.heroes[h]
                words = ctx.words
                opts.append((f"hero:{i}", say("sell to %(hero)s (%(class)s, to %(town)s), who wants %(goods)s",
                                              hero=words.hero(h), town=words.town(hero.town),
                                              goods=words.goods(hero.requests), **{"class": say(HERO_CLASSES.get(hero.hero_class, hero.hero_class))})))
        return opts

    def _sells(self, ctx: Ctx, seat: int, hero: str | None) -> bool:
        """Whether ``seat`` holds a good ``hero`` (an inn slot's, or none) requests."""
        if not hero:
            return False
        requests = ctx.content.heroes[hero].requests
        return any(good_type(g) in requests for g in ctx.player(seat).goods)

    def has_options(self, ctx: Ctx, task: Task, seat: int) -> bool:
        return any(self._sells(ctx, seat, h) for h in ctx.game.board.inn)

    def allows(self, ctx: Ctx, task: Task, seat: int, option: str) -> bool:
        inn = ctx.game.board.inn
        return any(option == f"hero:{i}" and self._sells(ctx, seat, h) for i, h in enumerate(inn))

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        slot = int(option.split(":")[1])
        ctx.push("inn_sell", seat, slot=slot, hero=ctx.game.board.inn[slot], sold=[])


class InnSell(Choice):
    """Sell requested goods one at a time (1 per request, at least 1): current value, +1
    coin and +1 blazing quartz per upgraded good. Then the hero joins with its bonus."""

    kind = "inn_sell"
    prompt = N_("the Ringway Inn: sell a requested good, or finish")
    engages = ("hero",)
    logs_answer = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        hero = ctx.content.heroes[task.data["hero"]]
        opts = []
        for g in sorted(self._sellable(ctx, task, seat)):
            value = ctx.value(good_type(g)) + (1 if is_upgraded(g) else 0)
            good, coins = ctx.words.a_good(g), count(value, "coins")
            opts.append((f"sell:{g}", say("sell %(good)s for %(coins)s and 1 blazing quartz", good=good, coins=coins)
                         if is_upgraded(g) else say("sell %(good)s for %(coins)s", good=good, coins=coins)))
        if task.data["sold"]:
            name = ctx.words.hero(task.data["hero"])
            bonus = BONUS_WORDS.get(hero.bonus or "")
            opts.append(("done", say("finish: %(hero)s joins your wagon, with %(bonus)s", hero=name, bonus=say(bonus))
                         if bonus else say("finish: %(hero)s joins your wagon", hero=name)))
        return opts

    def has_options(self, ctx: Ctx, task: Task, seat: int) -> bool:
        return bool(task.data["sold"]) or bool(self._sellable(ctx, task, seat))

    def allows(self, ctx: Ctx, task: Task, seat: int, option: str) -> bool:
        if option == "done":
            return bool(task.data["sold"])
        return option[:5] == "sell:" and option[5:] in self._sellable(ctx, task, seat)

    @staticmethod
    def _sellable(ctx: Ctx, task: Task, seat: int) -> set[str]:
        """The goods :meth:`options` offers to sell (a good each of the hero's requests not sold yet)."""
        requests = ctx.content.heroes[task.data["hero"]].requests
        sold = {good_type(g) for g in task.data["sold"]}
        return {g for g in ctx.player(seat).goods if good_type(g) in requests and good_type(g) not in sold}

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        if option == "done":
            self.finish(ctx, task, seat)
            return
        good = option.split(":", 1)[1]
        sold = task.data["sold"] + [good]
        nxt = ctx.push("inn_sell", seat, slot=task.data["slot"], hero=task.data["hero"], sold=sold)
        ctx.lose_good(seat, good, "sold at the ringway inn")
        ctx.add(seat, "coins", ctx.value(good_type(good)) + (1 if is_upgraded(good) else 0), "ringway inn")
        if is_upgraded(good):
            ctx.add(seat, "quartz", 1, "ringway inn")
        if not self.options(ctx, nxt, seat)[:-1]:
            # Nothing left to sell: the sale is over.
            ctx.pop(nxt)
            ctx.push("inn_join", seat, slot=task.data["slot"], hero=task.data["hero"])

    def finish(self, ctx: Ctx, task: Task, seat: int) -> None:
        ctx.push("inn_join", seat, slot=task.data["slot"], hero=task.data["hero"])


class InnJoin(Step):
    """After the sale, the hero joins the wagon (with its bonus)."""

    kind = "inn_join"
    engages = ("hero",)

    def run(self, ctx: Ctx, task: Task) -> None:
        b = ctx.game.board
        slot, hero = task.data["slot"], task.data["hero"]
        if b.inn[slot] != hero:  # engaged by the sale, it cannot have been taken meanwhile
            raise RuntimeError(f"the hero sold to at the Ringway Inn, {hero!r}, left inn slot {slot}")
        b.inn[slot] = None
        ctx.gain_hero(task.seat, hero, source="ringway inn")


STEPS: list[Step] = [RingwayInn(), InnSell(), InnJoin()]


@hookimpl
def darkroad_steps() -> list[Step]:
    return list(STEPS)
