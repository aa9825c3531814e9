"""Seat kinds: automated seats a plugin contributes with ``darkroad_seat_kinds``.

Every seat of a game is a player's (``Player.kind == "human"``: a client or a bot answers
its decisions through the legal actions) unless a seat kind takes it. A seat kind is an
automated opponent with rules of its own: the engine never waits for its seats (they
have no legal actions); the kind decides for them. What a kind defines:

* **Who decides for it:** :meth:`SeatKind.turn` gives the steps of its turn (the engine
  adds Rest and the end of the turn). The rulebook's decisions that reach one of its seats
  ask the rule point's hook first (``darkroad_caravan_join``, ``darkroad_travel_die``,
  ``darkroad_deliveries``, ``darkroad_good_fortune``: the kind's plugin implements them for
  its seats); :meth:`SeatKind.intercept` answers every other step that reaches one of them
  (an automatic step of its seat, a plugin's decision awaiting it). Where its rules differ
  from the rulebook's in what it gains or how an effect resolves for it, its plugin
  implements those rule points (``darkroad_resolve_effect``, ``darkroad_gain_hero``,
  ``darkroad_limit_applies``). The engine asks it only in games with one of its seats.
* **Its setup:** :meth:`SeatKind.setup` (its seat was dealt like a player's: no steed, no
  draft, no choice of starting deed) and :meth:`SeatKind.starting_hero`.
* **Its view block:** :meth:`SeatKind.public`, extra keys of its seat in every view; the
  view's ``config`` names its seat under the kind's id (``null`` when it does not play).
* **Its scoring and tie rule:** :meth:`SeatKind.score` and :attr:`SeatKind.tiebreakers`.
* **How a game asks for it:** the game options (``GameConfig.options``) named after its id
  (``<id>: true``, ``<id>_seat: n``: its seat, the last one by default) and the game sizes
  it plays in (:attr:`SeatKind.players`; 2 seats with it is solo).
* **Its API surface:** what the HTTP API documents and accepts for it, as components
  contribute their actions and events: its request option (:attr:`SeatKind.request_field`,
  a field of the body that creates a game, and :attr:`SeatKind.request_text`) and the JSON
  Schemas of the view keys it adds (:attr:`SeatKind.view_blocks`, :class:`ViewBlock`).

A kind keeps its seat's state in ``Player.extra`` (JSON-able, saved with the game; not in
views: :meth:`SeatKind.public` shows what is public). Like a bot, one seat kind object
serves every game of a process: it keeps nothing between calls.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from attrs import field, frozen, validators

from .errors import BadConfig

if TYPE_CHECKING:
    from .content import Content
    from .context import Ctx
    from .engine import Engine
    from .state import GameConfig, Player, ScoreLine, Task
    from .steps import Step

HUMAN = "human"
"""``Player.kind`` of a seat no seat kind takes: a player's (a client or a bot decides)."""
TIEBREAKERS = ("discarded", "gifts", "commissions_delivered", "heroes_delivered")
"""The rulebook's tie-breakers in order (p. 13, "Breaking Ties"), as :class:`ScoreLine` fields."""

VIEW_PLACES = ("player", "caravan")
"""Where a :class:`ViewBlock` is: its seat's entry of the view's ``players``, or the view's ``caravan``."""


@frozen
class ViewBlock:
    """A key a seat kind adds to views, documented with the JSON Schema of its value (the HTTP
    API's document shows it as an optional member, present when the kind sends it).

    ``where`` is ``"player"`` for a key of its seat's view (one :meth:`SeatKind.public`
    returns) or ``"caravan"`` for one the kind keeps in the caravan under way
    (``game.turn.caravan.extra``, shown in the view's ``caravan``). A ``schema`` with a
    ``title`` becomes a named schema of the document (``#/components/schemas/<title>``),
    which generated clients turn into a type of that name."""

    key: str = field(validator=validators.matches_re(r"^[a-z][a-z0-9_]*$"))
    schema: Mapping[str, Any] = field(validator=validators.instance_of(Mapping))  # type: ignore[type-abstract]
    description: str
    """What it holds, in one sentence (the member's description in the document)."""
    where: Literal["player", "caravan"] = field(default="player", validator=validators.in_(VIEW_PLACES))


class SeatKind:
    """An automated seat. Subclass it, set ``id`` (unique among the installed seat kinds,
    not ``"human"``), ``name`` and ``text``, implement :meth:`turn`, :meth:`intercept` and
    whatever else differs from a player, and return an instance from ``darkroad_seat_kinds``."""

    id: ClassVar[str] = ""
    name: ClassVar[str] = ""
    """Its display name (``"Private Concern"``): names its seat in views and messages."""
    text: ClassVar[str] = ""
    """One sentence: what it is."""
    players: ClassVar[tuple[int, ...]] = (2, 3, 4)
    """The game sizes it plays in, counting its own seat (2: solo, one player against it)."""
    tiebreakers: ClassVar[tuple[str, ...]] = TIEBREAKERS
    """The tie-breakers its score lines are compared by, in order (:data:`TIEBREAKERS` or a
    beginning of it). Two tied seats are compared by the tie-breakers both their kinds use."""

    # -- its API surface ------------------------------------------------------------------
    request_field: ClassVar[str] = ""
    """Its field in the HTTP API's body that creates a game (``POST /v1/games``): ``true``
    seats it in the last seat (empty: its :attr:`id`, see :attr:`api_field`)."""
    request_text: ClassVar[str] = ""
    """What that field does, for the API's document, without where it is allowed (the API
    adds that from :attr:`players`): "Seat the Peddler, who sells its wares, in the last
    seat". Empty: said from :attr:`name`."""
    view_blocks: ClassVar[tuple[ViewBlock, ...]] = ()
    """The keys it adds to views, with the JSON Schema of each: every key :meth:`public`
    returns, and any it keeps in the caravan under way."""
    score_notes: ClassVar[Mapping[str, str]] = {}
    """How its :meth:`score` fills the :class:`ScoreLine` fields it scores its own way, by
    field, for the API's document: ``{"goods_vp": "1 VP per good it holds"}``."""

    @property
    def api_field(self) -> str:
        """Its field in the API's request that creates a game: :attr:`request_field`, or its id."""
        return self.request_field or self.id

    # -- how a game asks for it ---------------------------------------------------------
    @property
    def options(self) -> tuple[str, ...]:
        """The ``GameConfig.options`` this kind reads: ``<id>`` (bool: it takes a seat) and
        ``<id>_seat`` (its seat; absent or null: the last seat)."""
        return (self.id, f"{self.id}_seat")

    def game_options(self, seat: int | None = None) -> dict[str, Any]:
        """The ``GameConfig.options`` that put it in a game: at ``seat``, or its default seat."""
        return {self.id: True} if seat is None else {self.id: True, f"{self.id}_seat": seat}

    def seats(self, config: GameConfig) -> list[int]:
        """Its seats in a game created with ``config`` (empty: it does not play)."""
        if not config.options.get(self.id):
            return []
        seat = config.options.get(f"{self.id}_seat")
        return [config.players - 1 if seat is None else seat]

    def check_config(self, engine: Engine, config: GameConfig) -> None:
        """Raise :class:`BadConfig` for options of this kind a game cannot be created with."""
        flag, seat_option = self.id, f"{self.id}_seat"
        on = config.options.get(flag, False)
        if not isinstance(on, bool):
            raise BadConfig("%(option)s must be true or false, got %(value)r", option=flag, value=on)
        seat = config.options.get(seat_option)
        if seat is not None:
            if not on:
                raise BadConfig("%(option)s needs %(flag)s: true", option=seat_option, flag=flag)
            if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < config.players:
                raise BadConfig("%(option)s must be a seat 0..%(last)d, got %(value)r", option=seat_option,
                                last=config.players - 1, value=seat)

    def check_content(self, content: Content) -> None:
        """Check, once when the engine is built, the content it plays with (card data a
        content pack brings under a key of its own: ``content.extra``); raise
        :class:`~darkroad.core.content.ContentError` naming the pack's plugin to skip it."""

    # -- setup ------------------------------------------------------------------------------
    def setup(self, ctx: Ctx, seat: int) -> None:
        """Make ``seat`` this kind's, once every seat was dealt like a player's (night dice,
        an illuminated die, a horseshoe, the starting good and coins of its position; no
        steed, and it neither drafts nor chooses a starting deed: it takes the deck's top)."""

    def starting_hero(self, ctx: Ctx, seat: int, hero: str) -> None:
        """Its starting hero joins it (after the players' heroes)."""
        ctx.gain_hero(seat, hero, source="starting hero")

    # -- play ------------------------------------------------------------------------------
    def turn(self, ctx: Ctx, seat: int) -> Sequence[tuple[str, dict[str, Any]]]:
        """The steps of its turn up to Rest, as ``(step kind, data)`` in the order they
        resolve; the engine adds Rest and the end of the turn."""
        raise NotImplementedError

    def intercept(self, ctx: Ctx, task: Task, step: Step, seat: int) -> bool:
        """A step on top of the stack reached ``seat``, one of its seats: an automatic step
        of its seat (``task.seat``) or a decision that awaits it and that no rule point's hook
        answered (:meth:`Step.automated`). Resolve it by the kind's rules (pop ``task`` from
        ``ctx.game.stack`` first) and return ``True``; ``False`` lets the engine run an
        automatic step as for a player. A decision awaiting one of its seats must be answered
        here (its seats have no legal actions)."""
        return False

    def spend_goods(self, ctx: Ctx, seat: int, goods: Sequence[str], source: str) -> None:
        """``seat`` hands over ``goods`` (good tokens, ``"+"`` upgraded) for a commission it
        delivers through the core's delivery (``deliver_commission``), which then gives the
        prestige, logs the commission and calls ``darkroad_commission_delivered``. The
        default takes the tokens out of ``player.goods``, as for a player; a kind that keeps
        its goods otherwise (a count in ``player.extra``) takes them from there."""
        p = ctx.player(seat)
        for g in goods:
            p.goods.remove(g)

    # -- views and scoring -------------------------------------------------------------------
    def public(self, player: Player) -> Mapping[str, Any]:
        """Extra keys of its seat in every view (its public state, from ``player.extra``)."""
        return {}

    def score(self, ctx: Ctx, seat: int) -> ScoreLine | None:
        """Its final score line (``None``: scored like a player's)."""
        return None

    def redraw_hidden(self, player: Player, rng: random.Random) -> None:
        """Draw again, with ``rng``, what of its seat's state the other seats cannot see (the
        order of a deck of its own), in place: :meth:`Engine.determinize` calls it on a copy
        of the game. Its public state (:meth:`public`) must not change."""
