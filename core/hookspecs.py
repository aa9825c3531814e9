"""Every hook a darkroad plugin can implement.

Plugins implement hooks with :data:`darkroad.core.hookimpl`; an implementation may
accept any subset of a spec's arguments, and arguments are always passed by keyword,
so adding an argument later breaks no plugin. Never depend on the order in which
results of a non-firstresult hook arrive.

Two families:

* **Registration hooks** contribute content (card data), components (buildings,
  companions, steeds, deeds, wagon upgrades), extra engine steps, bots, seat kinds and
  the documentation of event types. Called once when the
  :class:`~darkroad.core.engine.Engine` is built.
* **Rule-point hooks** are called by the engine at fixed moments of a turn. They
  receive ``ctx`` (a :class:`~darkroad.core.context.Ctx`: the game being changed plus
  the operations a rule may use: gain, pay, push steps, emit events, roll dice) and the
  ``seat`` concerned. A component that owns a rule point checks that it is in play or
  owned by that seat (``ctx.in_play(id)``, ``ctx.owns(seat, id)``) and returns ``None``
  otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from .bots import Bot
    from .content import Component
    from .context import Ctx
    from .seats import SeatKind
    from .state import Task
    from .steps import Step
    from .view import EventType

hookspec = pluggy.HookspecMarker("darkroad")
hookimpl = pluggy.HookimplMarker("darkroad")
"""Marks a plugin's implementation of a hook (exported as ``darkroad.core.hookimpl``)."""


# -- registration -------------------------------------------------------------------


@hookspec
def darkroad_content() -> Mapping[str, Any] | None:
    """Contribute a content pack: card data (goods, towns, heroes, commissions, events, board).

    Called once when the engine is built. Return a dict in the format documented in
    :mod:`darkroad.core.content`, or ``None``. Packs of all plugins are merged; a
    duplicate id, a malformed pack or a broken cross-reference skips the plugin at fault
    (the later one of a clash), naming both (a strict load fails).
    """


@hookspec
def darkroad_components() -> Sequence[Component] | None:
    """Contribute components: buildings, companions, steeds, deeds, wagon upgrades.

    Called once when the engine is built. Return a list of
    :class:`~darkroad.core.content.Component` (``kind``, ``id``, ``name``, ``text``,
    ``data``); the engine fills in ``plugin``. A duplicate component id skips the later
    plugin, naming both (a strict load fails).
    """


@hookspec
def darkroad_steps() -> Sequence[Step] | None:
    """Contribute engine steps (automatic steps or decisions) a component pushes.

    Called once when the engine is built. Return a list of
    :class:`~darkroad.core.steps.Step` instances, each with a unique ``kind`` (a
    duplicate skips the later plugin); a component pushes them with
    ``ctx.push(kind, seat, **data)``.
    """


@hookspec
def darkroad_bots() -> Sequence[Bot] | None:
    """Contribute bots: computer players that choose one of a seat's legal actions.

    Called once when the engine is built. Return a list of
    :class:`~darkroad.core.bots.Bot` instances, each with a unique ``id`` (a duplicate
    skips the later plugin); the engine lists them in ``engine.bots`` and
    ``darkroad simulate --bot <id>`` seats them.
    """


@hookspec
def darkroad_seat_kinds() -> Sequence[SeatKind] | None:
    """Contribute seat kinds: automated seats with rules of their own (the base game's
    Private Concern is one).

    Called once when the engine is built. Return a list of
    :class:`~darkroad.core.seats.SeatKind` instances, each with a unique ``id`` (a
    duplicate, or game options another plugin already reads, skips the later plugin); the
    engine lists them in ``engine.seat_kinds`` and plays their seats in the games created
    with their options.
    """


@hookspec
def darkroad_event_types() -> Mapping[str, EventType] | None:
    """Document the events the plugin emits: event type -> :class:`~darkroad.core.view.EventType`
    (what it means, the JSON Schema of each ``data`` field).

    Called once when the engine is built. The base game's plugins' event types are typed one
    by one in the OpenAPI document; a fan plugin's share its open variant. An event type
    another plugin (or the core) documents skips the later plugin.
    """


# -- setup -----------------------------------------------------------------------------


@hookspec
def darkroad_setup(ctx: Ctx) -> None:
    """Called once at the end of game setup, before the first decision.

    Use it to put plugin-owned board state in ``ctx.game.board.extra``.
    Return value ignored.
    """


# -- plan ------------------------------------------------------------------------------


@hookspec(firstresult=True)
def darkroad_slot_action(ctx: Ctx, seat: int, slot: int, last_rounds: bool) -> bool | None:
    """Replace the special action of locked slot ``slot`` (1, 2 or 3) just taken by ``seat``.

    Called after a die left the slot during Plan. ``last_rounds`` is true when the
    main reserve was empty (the last 3 rounds). Return ``True`` when the plugin handled
    the slot action (by pushing its own steps); ``None`` leaves the rulebook's action.
    Stops at first non-None result.
    """


# -- move ------------------------------------------------------------------------------


@hookspec
def darkroad_movement_options(ctx: Ctx, seat: int) -> Sequence[int] | None:
    """Extra movement distances ``seat`` may choose besides its action-pool dice.

    Called when the Move decision is enumerated. Return a list of distances (0..5),
    or ``None``. Results of all plugins are merged.
    """


# -- activate --------------------------------------------------------------------------


@hookspec
def darkroad_building_targets(ctx: Ctx, seat: int, connected: str | None) -> Sequence[str] | None:
    """Buildings ``seat`` may activate with its illuminated die instead of the connected one.

    Called when the Activate decision is enumerated with an illuminated die in the pool.
    ``connected`` is the building next to the wagon (``None`` at the start space).
    Return building ids (any of the buildings in play) or ``None``; merged.
    """


@hookspec(firstresult=True)
def darkroad_activate_building(ctx: Ctx, seat: int, building: str) -> bool | None:
    """Resolve the activation of ``building`` by ``seat``.

    The plugin providing the building pushes its steps (payments, choices, gains) and
    returns ``True``; others return ``None``. Stops at first non-None result.
    """


@hookspec
def darkroad_bazaar_discount(ctx: Ctx, seat: int) -> int | None:
    """Coins taken off ``seat``'s total cost of one visit to the Great Bazaar.

    Called once per visit before buying. Return a non-negative int or ``None``; the
    results are added up. The cost never goes below zero.
    """


@hookspec
def darkroad_excursion(ctx: Ctx, seat: int, choice: str) -> None:
    """``seat`` chose at Yurg's Excursions: ``choice`` is ``"ruins"`` or ``"caravan"``.

    Called right after the choice, before anything else of it resolves. Return value
    ignored; use ``ctx`` to gain or push steps.
    """


@hookspec(firstresult=True)
def darkroad_ruins_die_cost(ctx: Ctx, seat: int) -> int | None:
    """Lanterns ``seat`` pays to roll the ruins die (rulebook: 1).

    Stops at first non-None result.
    """


# -- caravans --------------------------------------------------------------------------


@hookspec(firstresult=True)
def darkroad_shortcut_cost(ctx: Ctx, seat: int) -> int | None:
    """Lanterns the caravan leader ``seat`` pays for a shortcut (rulebook: 3).

    Stops at first non-None result.
    """


@hookspec
def darkroad_travel_die_bonus(ctx: Ctx, seat: int) -> Sequence[int] | None:
    """Optional additions ``seat`` may make to the travel die it chooses (e.g. ``[1]``).

    Called when the travel-die decision is enumerated; each bonus becomes an extra
    option for every die. The modified face is capped at 6. Merged.
    """


@hookspec
def darkroad_commission_delivered(ctx: Ctx, seat: int, commission: str, goods: Sequence[str]) -> None:
    """``seat`` delivered ``commission`` with ``goods`` (tokens, ``"+"`` = upgraded).

    Called after the prestige was gained. Return value ignored.
    """


@hookspec
def darkroad_hero_delivered(ctx: Ctx, seat: int, hero: str) -> None:
    """``seat`` delivered ``hero`` to its town; called once the region reward was gained.
    Return value ignored."""


# -- effects and gains: the rulebook's answer comes last ---------------------------------


@hookspec(firstresult=True)
def darkroad_resolve_effect(ctx: Ctx, seat: int, verb: str, arg: str, source: str) -> bool | None:
    """Resolve the effect ``verb:arg`` (``arg`` empty for a bare verb: ``"hero"``) for ``seat``.

    Called for every effect a card, die or tile gives (``ctx.gain_effects``, the choice of a
    ``choose_effect`` decision, ``resolve_effect``); ``source`` names what gave it. The
    rulebook (``rulebook.effects``) answers last and knows every verb of the effect language:
    a concrete effect at once, an abstract one as a ``choose_effect`` decision. Return ``True``
    when your plugin resolved it: a verb of its own, or a verb of the language that a seat it
    owns resolves otherwise (a seat kind's, checking ``ctx.player(seat).kind``); ``None``
    otherwise. Stops at first non-None result.
    """


@hookspec(firstresult=True)
def darkroad_gain_hero(ctx: Ctx, seat: int, hero: str, bonus: bool, source: str) -> bool | None:
    """``hero`` joins ``seat``'s wagon (``ctx.gain_hero``), with its bonus when ``bonus``.

    The rulebook (``rulebook.overflow``) answers last: the hero joins, and its bonus (a
    lantern or a horseshoe) comes once an overflow of heroes is settled: none when the new
    hero is the one discarded (p. 10). Return ``True`` when your plugin made the hero join
    its own way (a seat kind's seat); ``None`` otherwise. Stops at first non-None result.
    """


@hookspec(firstresult=True)
def darkroad_limit_applies(ctx: Ctx, seat: int, kind: str) -> bool | None:
    """Whether the rulebook's limit of ``kind`` binds ``seat``: ``"lanterns"``,
    ``"inventory"``, ``"heroes"``, ``"commissions"``, ``"illuminated"`` or ``"storage"``.

    Asked only when ``seat`` holds more of ``kind`` than its limit (the rulebook's plus
    ``darkroad_capacity``'s), or goods that do not fit its storage, or gains an illuminated
    die beyond the 2 it may hold. ``None`` leaves the rulebook's overflow (p. 18): a discard
    decision, or the lanterns and the illuminated die beyond the limit discarded at once;
    ``False`` lets the seat keep everything (a seat kind with no such limit). Stops at first
    non-None result.
    """


# -- automated seats: the rulebook's decisions a seat kind answers ------------------------


@hookspec(firstresult=True)
def darkroad_caravan_join(ctx: Ctx, seat: int) -> bool | None:
    """Whether ``seat``, an automated seat, joins the caravan under way
    (``ctx.game.turn.caravan``).

    Called when the ``caravan_join`` decision reaches a seat a seat kind plays (it has no
    legal actions). Return ``True`` (it joins) or ``False`` for your seat kind's seats;
    ``None`` leaves the decision to the seat kind's ``intercept``. Stops at first non-None
    result.
    """


@hookspec(firstresult=True)
def darkroad_travel_die(ctx: Ctx, seat: int) -> int | None:
    """The travel die ``seat``, an automated seat, takes: one of the values in
    ``ctx.game.turn.caravan.dice``.

    Called when the ``travel_die`` decision reaches a seat a seat kind plays; the die's face
    gives its reward or penalty as for a player. ``None`` leaves the decision to the seat
    kind's ``intercept``. Stops at first non-None result.
    """


@hookspec(firstresult=True)
def darkroad_deliveries(ctx: Ctx, seat: int, towns: Sequence[str]) -> bool | None:
    """``seat``, an automated seat, makes its deliveries: it visits one of ``towns`` (those
    the rulebook lets it visit: the caravan's destination for its leader, a town of that
    region for a member, any town in the final travel) or none, and delivers there by its
    seat kind's rules (``deliver_hero``, ``deliver_commission``).

    Called when the simultaneous ``deliveries`` decision reaches a seat a seat kind plays;
    the decision then waits for the other seats only. Return ``True`` when done; ``None``
    leaves the decision to the seat kind's ``intercept``. Stops at first non-None result.
    """


@hookspec(firstresult=True)
def darkroad_good_fortune(ctx: Ctx, seat: int, count: int) -> bool | None:
    """``seat``, an automated seat leading a caravan, takes its ``count`` good fortunes (1
    on the dark road, 2 on a shortcut, p. 13) by its seat kind's rules.

    Called when the ``good_fortune`` decision reaches a seat a seat kind plays. Return
    ``True`` when taken; ``None`` leaves the decision to the seat kind's ``intercept``.
    Stops at first non-None result.
    """


# -- wagon -----------------------------------------------------------------------------


@hookspec
def darkroad_storage_extensions(ctx: Ctx, seat: int) -> Sequence[Mapping[str, Any]] | None:
    """Storage beyond the 6x5 grid that ``seat``'s components give.

    Return a list of dicts, each with any of ``any_slots`` (int: goods of any shape,
    one each), ``extra_grid`` ([cols, rows]: a separate small grid),
    ``fixed_tile`` ([[row, col], ...]: a tile that occupies cells of the main grid).
    Called on every storage check: keep it cheap. Merged.
    """


@hookspec
def darkroad_capacity(ctx: Ctx, seat: int, kind: str) -> int | None:
    """Change of ``seat``'s capacity for ``kind``: ``"lanterns"``, ``"inventory"``,
    ``"heroes"``, ``"commissions"``, ``"illuminated"``.

    Return a signed int (e.g. ``-1`` when an upgrade tile occupies a lantern slot) or
    ``None``; the results are added to the rulebook's limit.
    """


@hookspec(firstresult=True)
def darkroad_upgrade_limit(ctx: Ctx, seat: int) -> int | None:
    """How many wagon upgrades ``seat`` may hold (rulebook: 1). Stops at first non-None result."""


@hookspec
def darkroad_upgrade_gained(ctx: Ctx, seat: int, upgrade: str) -> None:
    """``seat`` just gained wagon upgrade ``upgrade``. Return value ignored."""


# -- companions --------------------------------------------------------------------------


@hookspec
def darkroad_companion_options(ctx: Ctx, seat: int) -> Sequence[tuple[str, str]] | None:
    """Companion abilities ``seat`` may trigger right now, as ``(option, label)`` pairs.

    Called on ``seat``'s own turn whenever a decision of ``seat`` is enumerated, and only
    on the plugins providing a companion card ``seat`` holds. The option id must start
    with the companion card id (``"phoenix-2:0"``). Merged.
    """


@hookspec(firstresult=True)
def darkroad_companion_use(ctx: Ctx, seat: int, option: str) -> bool | None:
    """Trigger the companion ability ``option`` (one returned by ``darkroad_companion_options``).

    The owning plugin pays the gift, pushes the ability's steps and returns ``True``.
    Stops at first non-None result.
    """


# -- any decision -------------------------------------------------------------------------


@hookspec
def darkroad_decision_options(ctx: Ctx, task: Task, seat: int) -> Sequence[tuple[str, str]] | None:
    """Extra options a plugin adds to the pending decision ``task`` for ``seat``.

    Option ids must start with ``"x:"`` followed by the plugin's component id. Merged.
    """


@hookspec(firstresult=True)
def darkroad_decision_choose(ctx: Ctx, task: Task, seat: int, option: str) -> bool | None:
    """Resolve an extra option added by ``darkroad_decision_options``.

    Return ``True`` when handled. The decision stays pending unless the plugin pops it
    (``ctx.pop(task)``). Stops at first non-None result.
    """


# -- game end ------------------------------------------------------------------------------


@hookspec(firstresult=True)
def darkroad_deed_score(ctx: Ctx, seat: int, deed: str) -> Mapping[str, int] | None:
    """Score deed ``deed`` held by ``seat`` at game end.

    Return ``{"coins": n}``, ``{"prestige": n}`` and/or ``{"vp": n}`` (0 when the
    criterion is not met); the plugin providing the deed answers, others return
    ``None``. Stops at first non-None result. The plugin providing the deed (its
    component's) is asked first, after any implementation marked ``tryfirst`` (one
    overriding another plugin's deed); the others only when it does not answer.
    """


@hookspec
def darkroad_game_end(ctx: Ctx) -> None:
    """Called once after final scoring, with ``ctx.game.score`` filled. Return ignored."""


def spec_names() -> list[str]:
    """Names of every hookspec, in declaration order."""
    return [n for n, v in globals().items() if n.startswith("darkroad_") and callable(v)]
