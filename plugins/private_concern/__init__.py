"""The Private Concern: the automated opponent of solo play, which may also fill one seat of a
3–4 player game (rulebook p. 14, "Private Concern Variant"). A seat kind (entry point
``private-concern``): docs/private-concern.md has its rules and rulings.

A game asks for it with the game options ``private_concern: true`` and, optionally,
``private_concern_seat: n`` (default: the last seat); ``players`` counts it, so solo is two
seats. Its turns follow its 10 action cards, content data of the base game's content pack
(``private_concern_cards``, checked by :mod:`.cards`); :mod:`.rules` has what the Trader's rules
make its own (its state, its choices), :mod:`.concern_turn` its turn, :mod:`.overrides` the rule points
where it plays otherwise than the rulebook (its implementations of their hooks, registered from
here), :mod:`.events` documents its events and :mod:`.views` what it adds to views.

Its API surface is declared here, as a fan seat kind declares its own: the HTTP API's body
that creates a game has the field ``private_concern`` (its id; ``true`` seats it) and its
seat's view the block ``concern``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from darkroad.core import (
    BadConfig,
    Content,
    Ctx,
    Engine,
    EventType,
    GameConfig,
    Player,
    ScoreLine,
    SeatKind,
    Step,
    Task,
    hookimpl,
)

from . import cards, overrides, rules
from .concern_turn import ConcernAction, ConcernTurn
from .events import EVENTS
from .overrides import (
    darkroad_caravan_join,
    darkroad_deliveries,
    darkroad_gain_hero,
    darkroad_good_fortune,
    darkroad_limit_applies,
    darkroad_resolve_effect,
    darkroad_travel_die,
)
from .views import VIEW_BLOCKS


class PrivateConcern(SeatKind):
    """The Private Concern as a seat kind: its own rules are in :mod:`.rules` and :mod:`.concern_turn`;
    where it plays otherwise than the rulebook, :mod:`.overrides` answers the rule point."""

    id = rules.KIND
    name = "Private Concern"
    text = ("The automated opponent: solo against one player, or one seat of a 3-4 player game; its turns "
            "follow its 10 action cards.")
    players = (2, 3, 4)
    tiebreakers = rules.TIEBREAKERS
    # Its API surface: the request field is its id, ``private_concern``; the API adds where it
    # may be asked for (solo, 3-4 players) from ``players``.
    request_text = "Seat the Private Concern, the automated opponent, in the last seat"
    view_blocks = VIEW_BLOCKS
    score_notes = {"deed_vp": "1 per deed", "goods_vp": "1 VP per good it holds",
                   "quartz_vp": "1 VP per blazing quartz"}

    def check_config(self, engine: Engine, config: GameConfig) -> None:
        super().check_config(engine, config)
        if config.options.get(self.id) and not rules.cards(engine.content):
            raise BadConfig("this installation has no Private Concern action cards")

    def check_content(self, content: Content) -> None:
        cards.validate_cards(content)

    def setup(self, ctx: Ctx, seat: int) -> None:
        rules.setup(ctx, seat)

    def turn(self, ctx: Ctx, seat: int) -> Sequence[tuple[str, dict[str, Any]]]:
        return [(ConcernTurn.kind, {})]

    def intercept(self, ctx: Ctx, task: Task, step: Step, seat: int) -> bool:
        return overrides.intercept(ctx, task, step, seat)

    def spend_goods(self, ctx: Ctx, seat: int, goods: Sequence[str], source: str) -> None:
        rules.spend_goods(ctx, seat, goods, source)

    def public(self, player: Player) -> Mapping[str, Any]:
        return {rules.STATE: rules.public(player)}

    def score(self, ctx: Ctx, seat: int) -> ScoreLine:
        return rules.score(ctx, seat)

    def redraw_hidden(self, player: Player, rng: random.Random) -> None:
        # Its deck of action cards is face down (its discard pile is public).
        deck = player.extra[rules.STATE]["deck"]
        deck.sort()  # the sample depends on rng, not on the real order
        rng.shuffle(deck)


SEAT_KIND = PrivateConcern()


@hookimpl
def darkroad_seat_kinds() -> list[SeatKind]:
    return [SEAT_KIND]


@hookimpl
def darkroad_steps() -> list[Step]:
    return [ConcernTurn(), ConcernAction(), rules.ConcernChoice()]


@hookimpl
def darkroad_event_types() -> dict[str, EventType]:
    return dict(EVENTS)


__all__ = [
    "SEAT_KIND",
    "PrivateConcern",
    "darkroad_caravan_join",
    "darkroad_deliveries",
    "darkroad_event_types",
    "darkroad_gain_hero",
    "darkroad_good_fortune",
    "darkroad_limit_applies",
    "darkroad_resolve_effect",
    "darkroad_seat_kinds",
    "darkroad_steps",
    "darkroad_travel_die",
]
