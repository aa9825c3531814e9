"""What happens to a gain beyond a limit ("Wagon Overview", rulebook p. 18).

"You have 3 commission slots. If you gain a commission when all slots are full, you must
discard it unless you discard a different commission to make room." "You have 4 lantern
slots. If you gain another lantern when all of your slots are full, you must discard it."
Heroes (3 slots), goods (the storage grid) and the inventory (3 slots for blazing quartz and
horseshoes) alike: discard the new one, or another to make room. The discards are decisions
the engine settles at once (:meth:`Ctx.overflow`); a lantern, or an illuminated die beyond
the 2 a wagon may hold, is discarded at once (:class:`Ctx`).
"""

from __future__ import annotations

from ..context import Ctx
from ..goods import label as good_label
from ..state import Task
from ..steps import Choice, Option, Step


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


STEPS: list[Step] = [DiscardGood(), DiscardHero(), DiscardCommission(), DiscardInventory(), HeroBonus()]
