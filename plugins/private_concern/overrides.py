"""Where the Private Concern plays otherwise than the rulebook: its implementations of the
rule points' ``firstresult`` hooks, each answering for its seats only (``None`` for any other
seat, and for what it does as a player does, so the rulebook's answer comes).

The rulebook's parts are plugins registered before every other (``rulebook.<part>``), so these
answers come first, as a pytest plugin overrides pytest's own behaviour. docs/plugins.md,
"Overriding the rulebook", walks through them.

* **Effects** (``darkroad_resolve_effect``): its goods are a count (a good, an upgraded one,
  one lost or flipped); an abstract hero, commission or deed is chosen by its selection rules,
  else by the creator; the Ruins of Yin and the Dark Market give it their own rewards. Every
  other effect resolves as the rulebook resolves it.
* **Gains** (``darkroad_gain_hero``, ``darkroad_limit_applies``): a hero joins with its bonus
  at once; it has no limit of heroes, commissions, lanterns, inventory or illuminated dice.
* **The caravan's decisions**: it joins a caravan when it holds something for the region or a
  lantern, takes the highest travel die, delivers in its best town, and takes the good
  fortunes its action card lists.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from darkroad.core import Ctx, Step, Task, hero_bonus, hookimpl

from .rules import (
    DEFAULT_FORTUNES,
    FORTUNES_KEY,
    add_goods,
    ask,
    commission_candidates,
    effect_options,
    gain_goods,
    inn_candidates,
    is_concern,
    matching,
    move_dark_market,
    move_ruins,
    state,
    take_deed,
    visit,
)

# -- effects --------------------------------------------------------------------------------------


def _good(ctx: Ctx, seat: int, arg: str, source: str) -> bool:
    gain_goods(ctx, seat, 1, upgraded=arg.endswith("+"), source=source)
    return True


def _lose_good(ctx: Ctx, seat: int, arg: str, source: str) -> bool:
    add_goods(ctx, seat, -1, source)
    return True


def _upgrade_good(ctx: Ctx, seat: int, arg: str, source: str) -> bool:
    if state(ctx.game, seat)["goods"]:
        ctx.add(seat, "quartz", 1, source)  # its good becomes an upgraded one
    return True


def _downgrade_good(ctx: Ctx, seat: int, arg: str, source: str) -> bool:
    ctx.add(seat, "quartz", -1, source)
    return True


def _hero(ctx: Ctx, seat: int, arg: str, source: str) -> bool | None:
    """The inn hero matching most of its heroes + commissions; a tie (or no match: then the
    deck's top hero is a candidate too) is the creator's choice. A given hero: the rulebook's."""
    if arg:
        return None
    slots, decided = inn_candidates(ctx, seat)
    opts = [f"hero:inn:{i}" for i in slots]
    if not decided and ctx.game.board.hero_deck and not matching(ctx, seat, slots):
        opts.append("hero:deck")
    ask(ctx, seat, "effect", effect_options(ctx, opts), "which hero it gains", source=source)
    return True


def _one_of_its_heroes(verb: str) -> Callable[[Ctx, int, str, str], bool | None]:
    what = "loses" if verb == "lose_hero" else "delivers"

    def which(ctx: Ctx, seat: int, arg: str, source: str) -> bool | None:
        """Which of its heroes it loses or delivers: the creator's choice."""
        if arg:
            return None
        heroes = [f"{verb}:{h}" for h in ctx.player(seat).heroes]
        ask(ctx, seat, "effect", effect_options(ctx, heroes), f"which hero it {what}", source=source)
        return True

    return which


def _commission(ctx: Ctx, seat: int, arg: str, source: str) -> bool | None:
    """A commission of the towns it holds most heroes + commissions for (a tie: the creator)."""
    if arg:
        return None
    tied, _ = commission_candidates(ctx, seat)
    ask(ctx, seat, "effect", effect_options(ctx, [f"commission:{t}" for t in tied]), "which commission it takes",
        source=source)
    return True


def _deed(ctx: Ctx, seat: int, arg: str, source: str) -> bool | None:
    """Which available deed: the creator's choice."""
    if arg:
        return None
    b = ctx.game.board
    opts = [f"deed:courtyard:{i}" for i, d in enumerate(b.courtyard) if d] + (["deed:deck"] if b.deed_deck else [])
    ask(ctx, seat, "effect", effect_options(ctx, opts), "which deed it takes", source=source)
    return True


def _ruins(ctx: Ctx, seat: int, arg: str, source: str) -> bool:
    move_ruins(ctx, seat, int(arg) if arg else 1)
    return True


def _dark_market(ctx: Ctx, seat: int, arg: str, source: str) -> bool:
    move_dark_market(ctx, seat, int(arg), south=None)
    return True


EFFECTS: dict[str, Callable[[Ctx, int, str, str], bool | None]] = {
    "good": _good,
    "lose_good": _lose_good,
    "upgrade_good": _upgrade_good,
    "downgrade_good": _downgrade_good,
    "hero": _hero,
    "lose_hero": _one_of_its_heroes("lose_hero"),
    "deliver_hero": _one_of_its_heroes("deliver_hero"),
    "commission": _commission,
    "deed": _deed,
    "ruins": _ruins,
    "dark_market": _dark_market,
}
"""The verbs of the effect language it resolves otherwise, by verb (``None``: as the rulebook)."""


@hookimpl
def darkroad_resolve_effect(ctx: Ctx, seat: int, verb: str, arg: str, source: str) -> bool | None:
    differs = EFFECTS.get(verb)
    if differs is None or not is_concern(ctx, seat):
        return None
    return differs(ctx, seat, arg, source)


# -- gains ----------------------------------------------------------------------------------------


@hookimpl
def darkroad_gain_hero(ctx: Ctx, seat: int, hero: str, bonus: bool, source: str) -> bool | None:
    """A hero joins with no limit, and gives its lantern or horseshoe at once."""
    if not is_concern(ctx, seat):
        return None
    ctx.player(seat).heroes.append(hero)
    ctx.emit("hero_joined", seat, hero=hero, source=source)
    if bonus:
        hero_bonus(ctx, seat, hero)
    return True


@hookimpl
def darkroad_limit_applies(ctx: Ctx, seat: int, kind: str) -> bool | None:
    """No limit of heroes, commissions, lanterns, inventory or illuminated dice (its goods are a
    count, never in storage): it keeps everything."""
    return False if is_concern(ctx, seat) else None


# -- the caravan's decisions ------------------------------------------------------------------------


@hookimpl
def darkroad_caravan_join(ctx: Ctx, seat: int) -> bool | None:
    """It follows when it has heroes or commissions for the caravan's region, or a lantern."""
    c = ctx.game.turn.caravan
    if not is_concern(ctx, seat) or c is None:
        return None
    p, content = ctx.player(seat), ctx.content
    region = set(content.region_towns(c.town))
    return p.lanterns > 0 or any(content.heroes[h].town in region for h in p.heroes) or any(
        content.commissions[m].town in region for m in p.commissions)


@hookimpl
def darkroad_travel_die(ctx: Ctx, seat: int) -> int | None:
    """The highest die; it never rerolls."""
    c = ctx.game.turn.caravan
    if not is_concern(ctx, seat) or c is None or not c.dice:
        return None
    return max(c.dice)


@hookimpl
def darkroad_deliveries(ctx: Ctx, seat: int, towns: Sequence[str]) -> bool | None:
    """It delivers in its best town of those it may visit (:func:`visit`)."""
    if not is_concern(ctx, seat):
        return None
    visit(ctx, seat, towns)
    return True


@hookimpl
def darkroad_good_fortune(ctx: Ctx, seat: int, count: int) -> bool | None:
    """The good fortune(s) listed on the card it travelled with: the first on the dark road,
    both on the shortcut."""
    if not is_concern(ctx, seat):
        return None
    c = ctx.game.turn.caravan
    fortunes = list((c.extra.get(FORTUNES_KEY) if c is not None else None) or DEFAULT_FORTUNES)
    for fortune in (fortunes * 2)[:count]:
        take_fortune(ctx, seat, fortune)
    return True


def take_fortune(ctx: Ctx, seat: int, fortune: str) -> None:
    """One good fortune its card names: coins (the $5 while it lies on the track), an
    illuminated die, or a deed (:func:`take_deed`: its card's slot, or the next)."""
    b = ctx.game.board
    ctx.emit("good_fortune", seat, choice=fortune.partition(":")[0])
    if fortune == "coins":
        first, later = ctx.content.good_fortune_coins
        ctx.add(seat, "coins", first if b.five_coins else later, "good fortune")
        b.five_coins = False
    elif fortune == "illuminated":
        ctx.gain_illuminated(seat, "good fortune")
    else:
        take_deed(ctx, seat, fortune.partition(":")[2], "good fortune")


# -- any other decision ---------------------------------------------------------------------------


def intercept(ctx: Ctx, task: Task, step: Step, seat: int) -> bool:
    """A decision of a plugin that reached its seat (every rulebook decision is answered at a
    hook above): the creator chooses among its options, labelled for the Private Concern. Its
    automatic steps run as a player's."""
    if not step.decision:
        return False
    ctx.pop(task)
    opts = list(step.options(ctx, task, seat))
    if len(opts) == 1:
        step.choose(ctx, task, seat, opts[0][0])
    elif opts:
        ask(ctx, seat, "relay", [(o, f"the Private Concern: {label}") for o, label in opts],
            step.describe(ctx, task), task={"kind": task.kind, "seat": task.seat, "data": task.data})
    return True
