"""The Snow Owl, a fan loyal companion (3 cards, ``snow_owl-1`` to ``snow_owl-3``). Each
ability is triggered once, on the owner's own turn, with a gift of 1 blazing quartz that
stays on the card (it counts for the tie-breaker):

0. *Moonlit scouting*: look at the top 2 heroes of the hero deck; gain one of them (its
   bonus applies) and put the other on the bottom of the deck. A decision of its own
   (:class:`Scout`), contributed with ``darkroad_steps``.
1. *Snowy perch*: gain 1 lantern; for the rest of the game you have 1 more lantern slot
   (``darkroad_capacity``, answering from the gifts on the owner's cards: the game holds
   all the state).

Written as the base game's companions are, with the companion kit
(``darkroad.plugins.companions.kit``): one :class:`SnowOwl` (a ``kit.Companion``) offers
the abilities, takes the gift and resolves them; the lasting slot is a rule-point hook,
a module function, as in any plugin. Companion options are ``"<card id>:<ability id>"``
(``"snow_owl-2:1"``); the engine asks this plugin for them only while the seat holds a
Snow Owl card.

Balance: scouting is the Snow Bee's "gain 1 available hero" with a choice of the next
two; the perch is the Phoenix's 2 lanterns spread over the game.
"""

from __future__ import annotations

from darkroad.core import Choice, Ctx, Task, hookimpl, i18n
from darkroad.plugins.companions import kit

N_ = i18n.N_
_ = i18n.messages(__name__).gettext

ID = "snow_owl"
SCOUT, PERCH = 0, 1
TEXTS = (
    "Look at the top 2 heroes of the hero deck: gain one of them and put the other on the bottom of the deck.",
    "Gain 1 lantern. For the rest of the game you have 1 more lantern slot.",
)
LOOK = 2


class Scout(Choice):
    """Which of the top 2 heroes of the hero deck to gain (``"hero:<id>"``)."""

    kind = f"{ID}_scout"
    prompt = N_("Snow Owl: gain one of the top 2 heroes of the hero deck; the other goes to the bottom")

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[tuple[str, str]]:
        # Read from the deck every time: options must follow the game as it is now.
        # A hero's name from its content pack's catalog (i18n.translated looks in every domain).
        return [(f"hero:{h}", _("gain %(hero)s", hero=i18n.translated(ctx.content.heroes[h].name)))
                for h in ctx.game.board.hero_deck[:LOOK]]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        hero = option.removeprefix("hero:")
        deck = ctx.game.board.hero_deck
        looked = deck[:LOOK]
        for h in looked:
            deck.remove(h)
        for h in looked:
            if h != hero:
                ctx.return_hero(h)
        ctx.gain_hero(seat, hero, source=f"companion:{task.data['card']}")


class SnowOwl(kit.Companion):
    """The owl's abilities; the kit gives the gift (1 blazing quartz, kept on the card)."""

    def usable(self, ctx: Ctx, seat: int, ability: int) -> bool:
        return bool(ctx.game.board.hero_deck) if ability == SCOUT else True

    def resolve(self, ctx: Ctx, seat: int, card: str, ability: int) -> None:
        if ability == SCOUT:
            ctx.push(Scout.kind, seat, card=card)  # the choice resolves before the pending decision
        else:
            ctx.gain_effects(seat, ["lantern:1"], source=f"companion:{card}")


companion = SnowOwl(kit.loyal(ID, "Snow Owl", TEXTS), steps=[Scout()])

darkroad_components = companion.components
darkroad_steps = companion.steps
darkroad_companion_options = companion.companion_options
darkroad_companion_use = companion.companion_use


# The kit models a companion's own abilities, not a rule an ability changes for the rest of
# the game: the extra lantern slot is a rule-point hook, a plain module function.
@hookimpl
def darkroad_capacity(ctx: Ctx, seat: int, kind: str) -> int | None:
    if kind != "lanterns":
        return None
    return sum(1 for card in ctx.companion_cards(seat, ID) if PERCH in card.gifts) or None
