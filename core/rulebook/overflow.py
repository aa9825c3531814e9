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

from collections.abc import Callable

from ..context import Ctx
from ..hookspecs import hookimpl
from ..i18n import N_
from ..state import Task
from ..steps import Choice, Option, Step
from ..wording import say


class Discard(Choice):
    """An overflow discard (p. 18): ``seat`` holds more of ``what`` than its wagon takes and
    discards one (the new one or another) until the rest fit: a good to the supply, a hero to
    the bottom of the hero deck, a commission to the bottom of its town's stack, a blazing
    quartz or a horseshoe to the supply. One step for the four limits; its kind is
    ``discard_<what>`` (the type of the action that answers it)."""

    settles_overflow = True
    logs_answer = True

    def __init__(self, what: str, prompt: str) -> None:
        self.what = what
        self.kind = f"discard_{what}"  # type: ignore[misc]  # a class's constant in other steps
        self.prompt = prompt  # type: ignore[misc]

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        if not over(ctx, seat, self.what) or not ctx.limited(seat, _LIMIT[self.what]):
            return []
        return _HELD[self.what](ctx, seat)

    def has_options(self, ctx: Ctx, task: Task, seat: int) -> bool:
        return over(ctx, seat, self.what) and ctx.limited(seat, _LIMIT[self.what]) \
            and any(_held_ids(ctx, seat, self.what))

    def allows(self, ctx: Ctx, task: Task, seat: int, option: str) -> bool:
        verb, _, held = option.partition(":")
        return verb == "discard" and held in _held_ids(ctx, seat, self.what) and over(ctx, seat, self.what) \
            and ctx.limited(seat, _LIMIT[self.what])

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        _DROP[self.what](ctx, seat, option.split(":", 1)[1])
        if over(ctx, seat, self.what):
            ctx.overflow(self.kind, seat)  # still too many: one more
        if self.what == "hero":
            ctx.check_storage(seat)  # the hero discarded may have stored a good


def over(ctx: Ctx, seat: int, what: str) -> bool:
    """Whether ``seat`` holds more of ``what`` (``"good"``, ``"hero"``, ``"commission"``,
    ``"inventory"``) than its wagon takes."""
    p = ctx.player(seat)
    if what == "good":
        return not ctx.fits(seat, p.goods)
    if what == "inventory":
        return p.quartz + p.horseshoes > ctx.capacity(seat, "inventory")
    if what == "hero":
        return len(p.heroes) > ctx.capacity(seat, "heroes")
    return len(p.commissions) > ctx.capacity(seat, "commissions")


def _held_ids(ctx: Ctx, seat: int, what: str) -> list[str]:
    """What ``seat`` may discard of ``what``: the ids of :data:`_HELD`'s options, unworded."""
    p = ctx.player(seat)
    if what == "good":
        return p.goods
    if what == "hero":
        return p.heroes
    if what == "commission":
        return p.commissions
    return (["quartz"] if p.quartz else []) + (["horseshoes"] if p.horseshoes else [])


def _goods(ctx: Ctx, seat: int) -> list[Option]:
    return [(f"discard:{g}", say("return %(good)s", good=ctx.words.a_good(g))) for g in sorted(set(ctx.player(seat).goods))]


def _heroes(ctx: Ctx, seat: int) -> list[Option]:
    return [(f"discard:{h}", say("discard %(hero)s", hero=ctx.words.hero(h))) for h in ctx.player(seat).heroes]


def _commissions(ctx: Ctx, seat: int) -> list[Option]:
    return [(f"discard:{m}", say("discard %(commission)s", commission=ctx.words.commission(m)))
            for m in ctx.player(seat).commissions]


def _inventory(ctx: Ctx, seat: int) -> list[Option]:
    p = ctx.player(seat)
    return ([("discard:quartz", say("discard 1 blazing quartz"))] if p.quartz else []) + (
        [("discard:horseshoes", say("discard 1 horseshoe"))] if p.horseshoes else [])


def _drop_good(ctx: Ctx, seat: int, good: str) -> None:
    ctx.lose_good(seat, good, "storage full")


def _drop_hero(ctx: Ctx, seat: int, hero: str) -> None:
    ctx.player(seat).heroes.remove(hero)
    ctx.return_hero(hero)
    ctx.emit("hero_discarded", seat, hero=hero)


def _drop_commission(ctx: Ctx, seat: int, commission: str) -> None:
    ctx.player(seat).commissions.remove(commission)
    ctx.return_commission(commission)
    ctx.emit("commission_discarded", seat, commission=commission)


def _drop_inventory(ctx: Ctx, seat: int, resource: str) -> None:
    p = ctx.player(seat)
    setattr(p, resource, getattr(p, resource) - 1)
    ctx.emit("discarded", seat, resource=resource, amount=1, reason="inventory full")


_LIMIT = {"good": "storage", "hero": "heroes", "commission": "commissions", "inventory": "inventory"}
"""The limit (``Ctx.limited``) of each discard."""
_HELD: dict[str, Callable[[Ctx, int], list[Option]]] = {
    "good": _goods, "hero": _heroes, "commission": _commissions, "inventory": _inventory}
"""What may be discarded, by limit."""
_DROP: dict[str, Callable[[Ctx, int, str], None]] = {
    "good": _drop_good, "hero": _drop_hero, "commission": _drop_commission, "inventory": _drop_inventory}
"""How one is discarded, by limit."""


@hookimpl(trylast=True)
def darkroad_gain_hero(ctx: Ctx, seat: int, hero: str, bonus: bool, source: str) -> bool | None:
    """A hero joins the wagon; over 3 heroes one is discarded (this one, or another to make
    room), and the bonus waits for that: "If all of your hero slots are full and you decide to
    discard the new hero instead of a different hero, you do not gain the new hero's bonus"
    (p. 10)."""
    p = ctx.player(seat)
    p.heroes.append(hero)
    ctx.emit("hero_joined", seat, hero=hero, source=source)
    if bonus:
        ctx.push("hero_bonus", seat, hero=hero)
    if len(p.heroes) > ctx.capacity(seat, "heroes") and ctx.limited(seat, "heroes"):
        ctx.overflow("discard_hero", seat)
    return True


class HeroBonus(Step):
    """A hero that joined gives its bonus, unless it was the one discarded (p. 10)."""

    kind = "hero_bonus"

    def run(self, ctx: Ctx, task: Task) -> None:
        if task.data["hero"] in ctx.player(task.seat).heroes:
            hero_bonus(ctx, task.seat, task.data["hero"])


def hero_bonus(ctx: Ctx, seat: int, hero: str) -> None:
    """``seat`` gains the bonus of ``hero``: a lantern or a horseshoe ("If the hero has a
    storage icon, they can store any 1 good": storage, no gain)."""
    bonus = ctx.content.heroes[hero].bonus
    if bonus == "lantern":
        ctx.add(seat, "lanterns", 1, f"hero:{hero}")
    elif bonus == "horseshoe":
        ctx.add(seat, "horseshoes", 1, f"hero:{hero}")


STEPS: list[Step] = [
    Discard("good", N_("your goods do not fit: return one to the supply")),
    Discard("hero", N_("too many heroes: discard one")),
    Discard("commission", N_("too many commissions: discard one")),
    Discard("inventory", N_("inventory full: discard a blazing quartz or a horseshoe")),
    HeroBonus(),
]


@hookimpl
def darkroad_steps() -> list[Step]:
    return list(STEPS)
