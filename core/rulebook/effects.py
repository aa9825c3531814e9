"""Effects: the small language of the rewards and penalties printed on cards, dice and tiles.

An effect is a string. *Concrete* effects resolve at once; *abstract* ones ("a good of
your choice") become a ``choose_effect`` decision whose options are concrete effects.

Resources (``N`` signed; a penalty takes what there is, never below zero):
``coins:N`` ``prestige:N`` ``lantern:N`` ``quartz:N`` ``horseshoe:N``.
Goods: ``good:<type>`` / ``good:<type>+`` (concrete); ``good:any[+]``,
``good:value1[+]``, ``good:value5[+]``, ``good:not_on_wheel``, ``good:craft[+]``;
``upgrade_good`` / ``upgrade_good:<type>``; ``downgrade_good`` / ``downgrade_good:<type>``;
``lose_good`` / ``lose_good:most_valuable`` / ``lose_good:<token>``.
Cards: ``hero`` / ``hero:inn:<slot>`` / ``hero:deck``; ``lose_hero`` / ``lose_hero:<id>``;
``deliver_hero`` / ``deliver_hero:<id>``; ``commission`` / ``commission:<town>``;
``deed`` / ``deed:courtyard:<slot>`` / ``deed:deck``.
Other: ``illuminated``; ``ruins`` (the ruins action); ``ruins:N``; ``dark_market:N``;
``ruins_die``; ``illuminated_reroll``; ``nothing``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..context import EFFECT_RESOURCE, Ctx
from ..goods import UP, good_type, is_upgraded
from ..hookspecs import hookimpl
from ..state import Task
from ..steps import Choice, Option, Step
from .dark_market import move_dark_market
from .deliveries import deliver_hero
from .yurgs_excursions import move_ruins, roll_ruins_die


def _suffix(arg: str) -> tuple[str, str]:
    return (arg[:-1], UP) if arg.endswith(UP) else (arg, "")


def expand(ctx: Ctx, seat: int, effect: str) -> list[str] | None:
    """The concrete effects an abstract effect offers, or ``None`` if it is concrete."""
    verb, _, arg = effect.partition(":")
    p = ctx.player(seat)
    b = ctx.game.board
    if verb == "good":
        base, up = _suffix(arg)
        if base in ctx.content.good_index:
            return None
        if base == "any":
            kinds = list(ctx.content.good_ids)
        elif base.startswith("value"):
            kinds = ctx.goods_of_value(int(base[5:]))
        elif base == "not_on_wheel":
            kinds = ctx.not_on_wheel()
        elif base == "craft":
            die = p.locked[0]
            kinds = [ctx.content.crafting_chart[die]] if die is not None else list(ctx.content.good_ids)
        else:
            raise ValueError(f"unknown good effect {effect!r}")
        return [f"good:{k}{up}" for k in kinds]
    if verb == "upgrade_good" and not arg:
        return sorted({f"upgrade_good:{g}" for g in p.goods if not is_upgraded(g)})
    if verb == "downgrade_good" and not arg:
        return sorted({f"downgrade_good:{good_type(g)}" for g in p.goods if is_upgraded(g)})
    if verb == "lose_good" and (not arg or arg == "most_valuable"):
        pool = ctx.most_valuable(seat) if arg else sorted(set(p.goods))
        return [f"lose_good:{g}" for g in pool]
    if verb == "hero" and not arg:
        engaged = ctx.engaged()
        opts = [f"hero:inn:{i}" for i, h in enumerate(b.inn) if h and h not in engaged]
        return opts + (["hero:deck"] if b.hero_deck else [])
    if verb in ("lose_hero", "deliver_hero") and not arg:
        return [f"{verb}:{h}" for h in p.heroes]
    if verb == "commission" and not arg:
        return [f"commission:{t}" for t, s in b.commission_stacks.items() if s]
    if verb == "deed" and not arg:
        opts = [f"deed:courtyard:{i}" for i, d in enumerate(b.courtyard) if d]
        return opts + (["deed:deck"] if b.deed_deck else [])
    return None


def describe(ctx: Ctx, effect: str) -> str:
    """An effect in plain words, for a label (the engine's words: :meth:`Words.effect`)."""
    return ctx.words.effect(effect, ctx.game.board)


def resolve(ctx: Ctx, seat: int, effect: str, source: str = "") -> None:
    """Resolve one effect for ``seat`` (:meth:`Ctx.resolve_effect`: the rulebook's way, below,
    or a plugin's for its seats or its verbs)."""
    ctx.resolve_effect(seat, effect, source)


@hookimpl(trylast=True)
def darkroad_resolve_effect(ctx: Ctx, seat: int, verb: str, arg: str, source: str) -> bool | None:
    """The rulebook's effect language: a concrete effect at once, an abstract one as the
    ``choose_effect`` decision between the concrete ones it offers (one offer: taken at once).
    A verb the language does not know: ``None``."""
    effect = f"{verb}:{arg}" if arg else verb
    opts = expand(ctx, seat, effect)
    if opts is not None:
        if len(opts) == 1:
            ctx.resolve_effect(seat, opts[0], source)
        elif opts:
            ctx.push("choose_effect", seat, opts=opts, source=source, effect=effect)
        return True
    handler = CONCRETE.get(verb)
    if handler is None:
        return None
    handler(ctx, seat, arg, source)
    return True


# -- concrete effects --------------------------------------------------------------------


def _resource(verb: str) -> Callable[[Ctx, int, str, str], None]:
    def run(ctx: Ctx, seat: int, arg: str, source: str) -> None:
        ctx.add(seat, EFFECT_RESOURCE[verb], int(arg), source)

    return run


def _good(ctx: Ctx, seat: int, arg: str, source: str) -> None:
    ctx.gain_good(seat, arg, source)


def _lose_good(ctx: Ctx, seat: int, arg: str, source: str) -> None:
    if arg in ctx.player(seat).goods:
        ctx.lose_good(seat, arg, source)


def _flip(to_upgraded: bool) -> Callable[[Ctx, int, str, str], None]:
    def run(ctx: Ctx, seat: int, arg: str, source: str) -> None:
        goods = ctx.player(seat).goods
        old, new = (arg, arg + UP) if to_upgraded else (arg + UP, arg)
        if old in goods:
            goods[goods.index(old)] = new
            ctx.emit("good_flipped", seat, good=old, to=new, source=source)

    return run


def _hero(ctx: Ctx, seat: int, arg: str, source: str) -> None:
    b = ctx.game.board
    if arg == "deck":
        hero = ctx.draw_hero()
    else:
        i = int(arg.split(":")[1])
        if b.inn[i] in ctx.engaged():
            return  # being sold to at the Ringway Inn: not available
        hero, b.inn[i] = b.inn[i], None
    if hero:
        ctx.gain_hero(seat, hero, source=source)


def _lose_hero(ctx: Ctx, seat: int, arg: str, source: str) -> None:
    p = ctx.player(seat)
    if arg in p.heroes:
        p.heroes.remove(arg)
        ctx.return_hero(arg)
        ctx.emit("hero_lost", seat, hero=arg, source=source)
        ctx.check_storage(seat)


def _deliver_hero(ctx: Ctx, seat: int, arg: str, source: str) -> None:
    deliver_hero(ctx, seat, arg, source)


def _commission(ctx: Ctx, seat: int, arg: str, source: str) -> None:
    stack = ctx.game.board.commission_stacks.get(arg)
    if stack:
        ctx.gain_commission(seat, stack.pop(0), source)


def _deed(ctx: Ctx, seat: int, arg: str, source: str) -> None:
    b = ctx.game.board
    bonus: Sequence[str] = ()
    if arg == "deck":
        deed = b.deed_deck.pop(0) if b.deed_deck else None
    else:
        i = int(arg.split(":")[1])
        deed, b.courtyard[i] = b.courtyard[i], None
        if i < len(ctx.content.courtyard_banners):
            bonus = ctx.content.courtyard_banners[i]
    if deed:
        ctx.player(seat).deeds.append(deed)
        ctx.emit("deed_gained", seat, source=source)
        ctx.emit("deed_gained_private", seat, private=True, deed=deed)
        ctx.gain_effects(seat, bonus, source="courtyard banner")


def _illuminated(ctx: Ctx, seat: int, arg: str, source: str) -> None:
    ctx.gain_illuminated(seat, source)


def _ruins(ctx: Ctx, seat: int, arg: str, source: str) -> None:
    if arg:
        move_ruins(ctx, seat, int(arg))
    else:
        ctx.push("ruins_move", seat)


def _dark_market(ctx: Ctx, seat: int, arg: str, source: str) -> None:
    move_dark_market(ctx, seat, int(arg))


def _ruins_die(ctx: Ctx, seat: int, arg: str, source: str) -> None:
    roll_ruins_die(ctx, seat)


def _illuminated_reroll(ctx: Ctx, seat: int, arg: str, source: str) -> None:
    roll_ruins_die(ctx, seat, rerolling=True)


def _nothing(ctx: Ctx, seat: int, arg: str, source: str) -> None:
    return None


CONCRETE: dict[str, Callable[[Ctx, int, str, str], None]] = {
    **{verb: _resource(verb) for verb in EFFECT_RESOURCE},
    "good": _good,
    "lose_good": _lose_good,
    "upgrade_good": _flip(True),
    "downgrade_good": _flip(False),
    "hero": _hero,
    "lose_hero": _lose_hero,
    "deliver_hero": _deliver_hero,
    "commission": _commission,
    "deed": _deed,
    "illuminated": _illuminated,
    "ruins": _ruins,
    "dark_market": _dark_market,
    "ruins_die": _ruins_die,
    "illuminated_reroll": _illuminated_reroll,
    "nothing": _nothing,
}


VERBS = frozenset(CONCRETE)
"""The verbs of the effect language (``darkroad.core.EFFECT_VERBS``)."""


class EffectStep(Step):
    """Resolve one effect string (pushed by ``ctx.gain_effects``)."""

    kind = "effect"

    def run(self, ctx: Ctx, task: Task) -> None:
        resolve(ctx, task.seat, task.data["e"], task.data.get("source", ""))


class Notify(Step):
    """Call a reaction hook at this point of the stack (after the steps pushed above it)."""

    kind = "notify"

    def run(self, ctx: Ctx, task: Task) -> None:
        ctx.call(task.data["hook"], seat=task.seat, **task.data.get("args", {}))


class ChooseEffect(Choice):
    """Pick one concrete effect of several (a good of your choice, a hero, a deed, ...)."""

    kind = "choose_effect"
    inside_gain = True  # which good, hero, deed, ...: part of the gain (docs/content.md, timing item 1)
    logs_answer = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        # Re-expand: the board may have changed (a companion ability) since it was pushed.
        fresh = expand(ctx, seat, task.data["effect"])
        opts = fresh if fresh is not None else task.data["opts"]
        # An abstract option with nothing behind it (no deed left) is no option.
        return [(o, describe(ctx, o)) for o in opts if expand(ctx, seat, o) != []]

    def has_options(self, ctx: Ctx, task: Task, seat: int) -> bool:
        fresh = expand(ctx, seat, task.data["effect"])
        return any(expand(ctx, seat, o) != [] for o in (fresh if fresh is not None else task.data["opts"]))

    def allows(self, ctx: Ctx, task: Task, seat: int, option: str) -> bool:
        fresh = expand(ctx, seat, task.data["effect"])
        return option in (fresh if fresh is not None else task.data["opts"]) and expand(ctx, seat, option) != []

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        resolve(ctx, seat, option, task.data.get("source", ""))

    def describe(self, ctx: Ctx, task: Task) -> str:
        return ctx.words.choose(task.data["effect"], task.data.get("source", ""))


STEPS: list[Step] = [EffectStep(), ChooseEffect(), Notify()]


@hookimpl
def darkroad_steps() -> list[Step]:
    return list(STEPS)
