"""What every companion plugin shares (rulebook pp. 16–17, "Companions").

"You may only trigger companion abilities on your own turn, but may do so at any time."
Loyal companions have two one-time abilities, each triggered with a gift of 1 blazing
quartz that stays on the card (it counts for the tie-breaker). Stray companions have one
ability for the stated gift; the gift returns to the supply and the card passes to the
player seated on the left.

A companion module declares one :class:`Companion` (a subclass with two methods:
``usable(ctx, seat, ability)``, the ability can do something now, and
``resolve(ctx, seat, card, ability)``, its effect) built on its component (:func:`loyal` or
:func:`stray`), or a :class:`LoyalEffects` when its abilities are effect lists, and binds the
hooks, which are its methods (bound methods carry the ``hookimpl`` marker like functions do)::

    companion = Grace(stray(ID, "Grace", "Gain 1 available deed and its bonus.", "potion"),
                      steps=[GraceGift()], gift_step=GraceGift.kind)
    darkroad_components = companion.components
    darkroad_steps = companion.steps            # with steps of its own only
    darkroad_companion_options = companion.companion_options
    darkroad_companion_use = companion.companion_use

A rule point of its own (Flicker's shortcut cost) is a module function, as in any plugin.
Options are ``"<card id>:<ability id>"``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from darkroad.core import (
    EFFECT_RESOURCE,
    Choice,
    CompanionCard,
    Component,
    Ctx,
    Option,
    Step,
    Task,
    good_type,
    hookimpl,
    i18n,
    resolve_effect,
    wording,
)
from darkroad.core import expand_effect as expand

say = wording.speaker(__name__)

Usable = Callable[[Ctx, int, int], bool]
"""``(ctx, seat, ability index) -> bool``: the ability would do something now."""
Resolve = Callable[[Ctx, int, str, int], None]
"""``(ctx, seat, card id, ability index)``: gain the ability's effect (gift already given)."""

QUARTZ = "quartz"
HORSESHOE = "horseshoe"
HERO = "hero"
RESOURCE_GIFTS = {QUARTZ: "quartz", HORSESHOE: "horseshoes"}
"""Gifts that are counted resources (effect name -> :class:`Player` field)."""
GIFT_LABELS = {QUARTZ: i18n.N_("1 blazing quartz"), HORSESHOE: i18n.N_("1 horseshoe"), HERO: i18n.N_("a hero")}


def loyal(cid: str, name: str, texts: Sequence[str]) -> Component:
    """A loyal companion: 3 copies, one ability per text, each for 1 blazing quartz."""
    abilities = [{"id": str(i), "text": t, "gift": QUARTZ} for i, t in enumerate(texts)]
    return Component("companion", cid, name, " / ".join(texts),
                     {"loyalty": "loyal", "copies": 3, "abilities": abilities})


def stray(cid: str, name: str, text: str, gift: str) -> Component:
    """A stray companion: 1 copy, one ability for ``gift`` (a resource, ``"hero"`` or a good type)."""
    return Component("companion", cid, name, text,
                     {"loyalty": "stray", "copies": 1, "abilities": [{"id": "0", "text": text, "gift": gift}]})


def gift_of(ctx: Ctx, card: str, ability: int) -> str:
    return str(ctx.content.companion_of(card).data["abilities"][ability]["gift"])


def gift_options(ctx: Ctx, seat: int, gift: str) -> list[str]:
    """What ``seat`` can give as ``gift``: the resource itself, one of its heroes, or one
    of its goods of the requested type (basic or upgraded)."""
    found = _givable(ctx.player(seat), gift)
    return list(found) if gift in RESOURCE_GIFTS or gift == HERO else sorted(set(found))


def _givable(player: Any, gift: str) -> Iterator[str]:
    """What ``player`` has to give as ``gift``, one by one (the rule :func:`gift_options` lists
    and :func:`can_give` asks about)."""
    field = RESOURCE_GIFTS.get(gift)
    if field is not None:
        if getattr(player, field):
            yield gift
    elif gift == HERO:
        yield from player.heroes
    else:
        yield from (g for g in player.goods if good_type(g) == gift)


def gift_label(ctx: Ctx, gift: str, choice: str | None = None) -> str:
    if choice is None:
        return say(GIFT_LABELS[gift]) if gift in GIFT_LABELS else ctx.words.a_good(gift)
    if gift == HERO:
        return ctx.words.hero(choice)
    return say(GIFT_LABELS[gift]) if gift in GIFT_LABELS else ctx.words.a_good(choice)


def can_gain(ctx: Ctx, seat: int, effect: str) -> bool:
    """Whether an effect has something behind it now (an abstract one offers an option)."""
    return expand(ctx, seat, effect) != []


def can_give(player: Any, gift: str) -> bool:
    """Whether ``player`` has something to give as ``gift`` (``bool(gift_options(...))``, without
    listing them: the engine asks on every decision of a seat's own turn)."""
    return next(_givable(player, gift), None) is not None


def options(ctx: Ctx, seat: int, cid: str, usable: Usable) -> list[Option]:
    """The abilities of ``seat``'s ``cid`` cards that are unused, payable and useful now. Asked
    on every decision of the seat's own turn and usually finding none (an ability used, no
    blazing quartz to give), so the cheap checks come first and nothing is listed or worded
    until an ability passes them."""
    player = ctx.game.players[seat]
    owner = ctx.content.companion_cards
    out: list[Option] = []
    abilities: Any = None
    pending: list[Any] | None = None  # looked at once, when an ability is unused and its gift there
    givable: dict[str, bool] = {}  # gift -> whether seat has one to give (asked once per gift)
    for card in player.companions:
        if owner.get(card.card) != cid:
            continue
        if abilities is None:
            abilities = ctx.content.components[cid].data["abilities"]
        for i, ability in enumerate(abilities):
            if i in card.gifts:
                continue
            gift = ability["gift"]
            can = givable.get(gift)
            if can is None:
                can = givable[gift] = can_give(player, gift)
            if not can:
                continue
            if pending is None:
                pending = gifts_pending(ctx)
            if card.card in pending:
                break  # triggered: its owner is choosing the gift
            if usable(ctx, seat, i):
                words = ctx.words
                out.append((f"{card.card}:{ability['id']}",
                            say("%(companion)s (gift %(gift)s): %(ability)s", companion=words.component(cid),
                                gift=gift_label(ctx, gift), ability=words.component_text(cid, ability["text"]))))
    return out


def gift_pending(ctx: Ctx, card: str) -> bool:
    """Whether ``card`` was triggered and its owner is still choosing the gift."""
    return card in gifts_pending(ctx)


def gifts_pending(ctx: Ctx) -> list[Any]:
    """The cards triggered whose owners are still choosing the gift (one look at the stack)."""
    steps = ctx.engine.steps
    out = []
    for t in ctx.game.stack:
        if isinstance(steps[t.kind], GiftChoice):
            out.append(t.data.get("card"))
    return out


def find(ctx: Ctx, seat: int, option: str, cid: str) -> tuple[CompanionCard, int] | None:
    """The card and ability index ``option`` names, if it is one of ``seat``'s ``cid`` cards."""
    card_id, _, ability_id = option.partition(":")
    if ctx.content.companion_cards.get(card_id) != cid:
        return None
    card = next((c for c in ctx.player(seat).companions if c.card == card_id), None)
    ids = [a["id"] for a in ctx.content.components[cid].data["abilities"]]
    if card is None or ability_id not in ids:
        return None
    return card, ids.index(ability_id)


def use(ctx: Ctx, seat: int, option: str, cid: str, resolve: Resolve, gift_step: str | None = None) -> bool | None:
    """Trigger ``option``: give the gift, then resolve the ability.

    When the player could give one of several things (which hero, a basic or an upgraded
    potion), ``gift_step`` (a :class:`GiftChoice` of the module) asks first.
    """
    found = find(ctx, seat, option, cid)
    if found is None:
        return None
    card, ability = found
    ctx.emit("companion_used", seat, card=card.card, companion=cid,
             ability=ctx.content.components[cid].data["abilities"][ability]["id"])
    choices = gift_options(ctx, seat, gift_of(ctx, card.card, ability))
    if len(choices) > 1 and gift_step is not None:
        ctx.push(gift_step, seat, card=card.card, ability=ability)
        return True
    give(ctx, seat, card.card, ability, choices[0])
    resolve(ctx, seat, card.card, ability)
    return True


def give(ctx: Ctx, seat: int, card: str, ability: int, choice: str) -> None:
    """Give the gift ``choice``: a loyal card keeps it (the ability is spent), a stray
    companion returns it to the supply and passes to the player on the left."""
    gift = gift_of(ctx, card, ability)
    source = f"companion:{card}"
    if gift in RESOURCE_GIFTS:
        ctx.pay(seat, RESOURCE_GIFTS[gift], 1, source)
    elif gift == HERO:
        resolve_effect(ctx, seat, f"lose_hero:{choice}", source)
    else:
        resolve_effect(ctx, seat, f"lose_good:{choice}", source)
    if ctx.content.companion_of(card).data["loyalty"] == "loyal":
        owned = next(c for c in ctx.player(seat).companions if c.card == card)
        owned.gifts.append(ability)
    else:
        pass_left(ctx, seat, card)


def pass_left(ctx: Ctx, seat: int, card: str) -> None:
    p = ctx.player(seat)
    p.companions = [c for c in p.companions if c.card != card]
    left = (seat + 1) % len(ctx.game.players)
    ctx.player(left).companions.append(CompanionCard(card=card))
    ctx.emit("companion_passed", seat, card=card, to=left)


def is_penalty(effect: str) -> bool:
    """Penalties (the red icons): losses, downgrades, negative amounts."""
    verb, _, arg = effect.partition(":")
    if verb.startswith("lose_") or verb == "downgrade_good":
        return True
    return verb in EFFECT_RESOURCE and arg.lstrip("-").isdigit() and int(arg) < 0


class GiftChoice(Choice):
    """Which hero or good to give when several would do; then the ability resolves.

    A companion module subclasses it with its own ``kind`` and ``resolve``.
    """

    prompt = i18n.N_("choose the gift for your companion")
    inside_gain = True  # the ability triggered resolves as one act (docs/content.md, timing item 1)

    def resolve(self, ctx: Ctx, seat: int, card: str, ability: int) -> None:
        raise NotImplementedError

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        gift = gift_of(ctx, task.data["card"], task.data["ability"])
        return [(f"gift:{g}", f"give {gift_label(ctx, gift, g)}") for g in gift_options(ctx, seat, gift)]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        card, ability = task.data["card"], task.data["ability"]
        give(ctx, seat, card, ability, option.split(":", 1)[1])
        self.resolve(ctx, seat, card, ability)


class Companion:
    """A companion: the hooks every companion needs, as methods a module binds.

    Subclasses override :meth:`usable` and :meth:`resolve`; ``steps`` are the companion's own
    steps (its :class:`GiftChoice` among them), ``gift_step`` the kind of the step that asks
    which gift to give when several would do.
    """

    def __init__(self, component: Component, steps: Sequence[Step] = (), gift_step: str | None = None) -> None:
        self.component = component
        self.cid = component.id
        self.all_steps = list(steps)
        self.gift_step = gift_step
        gifts = {ability["gift"] for ability in component.data["abilities"]}
        self._resource = RESOURCE_GIFTS.get(gifts.pop()) if len(gifts) == 1 else None
        """The :class:`Player` field of the one resource every ability takes as its gift (a loyal
        companion's blazing quartz), if so: without one, no ability is offered."""

    def usable(self, ctx: Ctx, seat: int, ability: int) -> bool:
        """Whether ability ``ability`` would do something for ``seat`` now (default: always)."""
        return True

    def resolve(self, ctx: Ctx, seat: int, card: str, ability: int) -> None:
        """Gain ability ``ability``'s effect (the gift is given)."""
        raise NotImplementedError

    @hookimpl(specname="darkroad_components")
    def components(self) -> list[Component]:
        return [self.component]

    @hookimpl(specname="darkroad_steps")
    def steps(self) -> list[Step]:
        return list(self.all_steps)

    @hookimpl(specname="darkroad_companion_options")
    def companion_options(self, ctx: Ctx, seat: int) -> list[Option]:
        if self._resource is not None and not getattr(ctx.game.players[seat], self._resource):
            return []  # (the usual answer: a loyal companion's owner without a blazing quartz)
        return options(ctx, seat, self.cid, self.usable)

    @hookimpl(specname="darkroad_companion_use")
    def companion_use(self, ctx: Ctx, seat: int, option: str) -> bool | None:
        return use(ctx, seat, option, self.cid, self.resolve, gift_step=self.gift_step)


class LoyalEffects(Companion):
    """A loyal companion whose two abilities are effect lists (each usable when all its
    effects have something behind them, unless ``usable`` says otherwise)."""

    def __init__(self, cid: str, name: str, texts: Sequence[str], effects: Sequence[Sequence[str]],
                 usable: Usable | None = None) -> None:
        super().__init__(loyal(cid, name, texts))
        self.effects = [list(e) for e in effects]
        self._usable = usable

    def usable(self, ctx: Ctx, seat: int, ability: int) -> bool:
        if self._usable is not None:
            return self._usable(ctx, seat, ability)
        return all(can_gain(ctx, seat, e) for e in self.effects[ability])

    def resolve(self, ctx: Ctx, seat: int, card: str, ability: int) -> None:
        ctx.gain_effects(seat, self.effects[ability], source=f"companion:{card}")
