"""The Snow Owl, a fan loyal companion (3 cards, ``snow_owl-1`` to ``snow_owl-3``). Each
ability is triggered once, on the owner's own turn, with a gift of 1 blazing quartz that
stays on the card (it counts for the tie-breaker):

0. *Moonlit scouting*: look at the top 2 heroes of the hero deck; gain one of them (its
   bonus applies) and put the other on the bottom of the deck. A decision of its own
   (:class:`Scout`), contributed with ``darkroad_steps``.
1. *Snowy perch*: gain 1 lantern; for the rest of the game you have 1 more lantern slot
   (``darkroad_capacity``, answering from the gifts on the owner's cards: the game holds
   all the state).

Companion options are ``"<card id>:<ability id>"`` (``"snow_owl-2:1"``); the engine asks
this plugin for them only while the seat holds a Snow Owl card.

Balance: scouting is the Snow Bee's "gain 1 available hero" with a choice of the next
two; the perch is the Phoenix's 2 lanterns spread over the game.
"""

from __future__ import annotations

from darkroad.core import Choice, Component, Ctx, Step, Task, hookimpl

ID = "snow_owl"
SCOUT, PERCH = 0, 1
TEXTS = (
    "Look at the top 2 heroes of the hero deck: gain one of them and put the other on the bottom of the deck.",
    "Gain 1 lantern. For the rest of the game you have 1 more lantern slot.",
)
GIFT = "quartz"
LOOK = 2


class Scout(Choice):
    """Which of the top 2 heroes of the hero deck to gain (``"hero:<id>"``)."""

    kind = f"{ID}_scout"
    prompt = "Snow Owl: gain one of the top 2 heroes of the hero deck; the other goes to the bottom"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[tuple[str, str]]:
        # Read from the deck every time: options must follow the game as it is now.
        return [(f"hero:{h}", f"gain {ctx.content.heroes[h].name}") for h in ctx.game.board.hero_deck[:LOOK]]

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


SCOUT_STEP = Scout()


def usable(ctx: Ctx, seat: int, ability: int) -> bool:
    """Whether the ability would do something now."""
    return bool(ctx.game.board.hero_deck) if ability == SCOUT else True


@hookimpl
def darkroad_components() -> list[Component]:
    abilities = [{"id": str(i), "text": text, "gift": GIFT} for i, text in enumerate(TEXTS)]
    return [Component("companion", ID, "Snow Owl", " / ".join(TEXTS),
                      {"loyalty": "loyal", "copies": 3, "abilities": abilities})]


@hookimpl
def darkroad_steps() -> list[Step]:
    return [SCOUT_STEP]


@hookimpl
def darkroad_companion_options(ctx: Ctx, seat: int) -> list[tuple[str, str]] | None:
    if ctx.player(seat).quartz < 1:
        return None  # every ability asks a gift of 1 blazing quartz
    return [(f"{card.card}:{i}", f"Snow Owl (gift 1 blazing quartz): {text}")
            for card in ctx.companion_cards(seat, ID)
            for i, text in enumerate(TEXTS)
            if i not in card.gifts and usable(ctx, seat, i)]


@hookimpl
def darkroad_companion_use(ctx: Ctx, seat: int, option: str) -> bool | None:
    card_id, _, ability_id = option.partition(":")
    card = next((c for c in ctx.companion_cards(seat, ID) if c.card == card_id), None)
    if card is None or ability_id not in ("0", "1"):
        return None  # not one of ours: another plugin answers
    ability = int(ability_id)
    source = f"companion:{card.card}"
    ctx.emit("companion_used", seat, card=card.card, companion=ID, ability=ability_id)
    ctx.pay(seat, "quartz", 1, source)
    card.gifts.append(ability)  # the gift stays on the card: this ability is spent
    if ability == SCOUT:
        ctx.push(SCOUT_STEP.kind, seat, card=card.card)
    else:
        ctx.gain_effects(seat, ["lantern:1"], source=source)
    return True


@hookimpl
def darkroad_capacity(ctx: Ctx, seat: int, kind: str) -> int | None:
    if kind != "lanterns":
        return None
    perches = sum(1 for card in ctx.companion_cards(seat, ID) if PERCH in card.gifts)
    return perches or None
