"""Per-seat views: the only way state leaves the core.

A view shows the public board and every player's public wagon; the viewing seat also
sees its own coins and deeds. Other seats' coins and deeds, the order of every deck,
the commission stacks below their tops and the RNG are never shown. A spectator
(``seat=None``) sees only public information.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import msgspec
from attrs import Factory, asdict, frozen

from . import i18n
from .actions import MAX_DETAILS_LENGTH, MAX_LABEL_LENGTH, MAX_OPTION_LENGTH, MAX_TYPE_LENGTH
from .context import MARKET_VALUES, Ctx
from .goods import good_type
from .projection import projected, projections
from .rulebook.activate import DISTRICTS
from .rulebook.scoring import worded_details
from .seats import HUMAN
from .state import PluginVersions
from .storage import Packer, StorageSpec
from .undo import available as undo_available
from .view_board import board_block, dice_struct, market_wheel
from .view_players import player_block

if TYPE_CHECKING:
    from .engine import Engine
    from .state import Caravan, Game, Player, ScoreLine

_encode = msgspec.json.encode
_KIND = operator.attrgetter("kind")


class _NoName:
    """The type of :data:`NO_NAME`."""


NO_NAME = _NoName()
"""A player's block without a ``name`` field (a view built without names)."""


def _storage(packer: Packer, spec: StorageSpec | None, goods: list[str],
             encoded: bool = False) -> dict[str, Any] | msgspec.Raw | None:
    """One arrangement of ``goods`` (the view's list) in a player's storage (``spec``, ``None``
    for an automated seat: a seat kind keeps goods its own way, the Private Concern's are a
    count), cells naming goods by their index in that list; ``None`` for an automated seat
    and while the goods do not fit (an overflow discard is the next decision). ``encoded``: as
    JSON (the arrangement's own, :func:`_arranged`), for a view that is to be encoded."""
    if spec is None:
        return None
    found = _arranged(packer, tuple(goods), spec)
    if found is None:
        return None
    return found.encoded if encoded else _storage_block(found, spec)


def _storage_block(found: _Arranged, spec: StorageSpec) -> dict[str, Any]:
    """The storage block of an arrangement (:func:`_arranged`)."""
    grid, fixed, extra, slotted = found.grid, found.fixed, found.extra, found.slotted
    # The view's own lists: the arrangement is shared by every view that shows it.
    return {"grid": list(map(list, grid)), "fixed_tiles": [list(map(list, tile)) for tile in fixed] if fixed else [],
            "extra_grids": [list(map(list, g)) for g in extra] if extra else [], "slots": spec.any_slots,
            "slot_goods": list(slotted)}


class _Arranged(NamedTuple):
    """An arrangement of some goods in a storage as a view shows it (:func:`_arranged`)."""

    grid: tuple[tuple[int | None, ...], ...]
    fixed: tuple[tuple[tuple[int, int], ...], ...]
    extra: tuple[tuple[tuple[int | None, ...], ...], ...]
    slotted: tuple[int, ...]
    encoded: msgspec.Raw
    """The storage block of a view as JSON (:func:`_storage_block`'s lists are its arrays)."""


_UNSEEN: Any = object()


def _arranged(packer: Packer, goods: tuple[str, ...], spec: StorageSpec) -> _Arranged | None:
    """:func:`_arrange`, kept in ``packer``'s table of them (:attr:`Packer.shown`, with its
    figure): views are built on every request, and laying out the grids costs more than the
    rest of a view."""
    shown = packer.shown
    found: _Arranged | None = shown.get((goods, spec), _UNSEEN)
    if found is _UNSEEN:
        found = shown.keep((goods, spec), _arrange(packer, goods, spec))
    return found


def _arrange(packer: Packer, goods: tuple[str, ...], spec: StorageSpec) -> _Arranged | None:
    """:meth:`Packer.arrangement` of the good tokens ``goods`` as the view shows it (fixed tiles
    apart), with its block's JSON."""
    found = packer.arrangement([good_type(g) for g in goods], spec)
    if found is None:
        return None
    fixed: dict[int, list[tuple[int, int]]] = {}
    grid: list[tuple[int | None, ...]] = []
    for r, row in enumerate(found["grid"]):
        cells: list[int | None] = []
        for c, cell in enumerate(row):
            if isinstance(cell, str):  # "fixed:<i>": a fixed tile of the spec
                fixed.setdefault(int(cell.partition(":")[2]), []).append((r, c))
                cells.append(None)
            else:
                cells.append(cell)
        grid.append(tuple(cells))
    extra = tuple(tuple(tuple(row) for row in g) for g in found["extra"])
    tiles = tuple(tuple(fixed[i]) for i in sorted(fixed))
    slotted = tuple(found["any_slots"])
    # Tuples encode as the JSON arrays of the block's lists.
    encoded = msgspec.Raw(_encode({"grid": grid, "fixed_tiles": tiles, "extra_grids": extra, "slots": spec.any_slots,
                                   "slot_goods": slotted}))
    return _Arranged(tuple(grid), tiles, extra, slotted, encoded)


def _player(engine: Engine, spec: StorageSpec | None, p: Player, shown: bool,
            name: str | None | _NoName = NO_NAME) -> dict[str, Any]:
    """``p``'s part of a view to keep; ``spec``: its storage, ``None`` for an automated seat;
    ``shown``: with its coins and deeds (its own seat's view, or the game is over); ``name``: its
    ``name`` field (none without). The block's keys are :class:`~darkroad.core.view_players.
    PlayerBlock`'s, the one list of them (a view encoded at once uses the struct itself), as
    builtins: lists and dicts of the view's own."""
    goods = sorted(p.goods)
    out: dict[str, Any] = msgspec.to_builtins(player_block(p, goods, None, shown, msgspec.UNSET))
    out["storage"] = _storage(engine.packer, spec, goods, False)  # its lists made for this view already
    if p.kind != HUMAN:  # an automated seat: its seat kind's public state
        out.update(engine.seat_kinds[p.kind].public(p))
    if name is not NO_NAME:
        out["name"] = name
    return out


class EncodedPlayers:
    """What views to be encoded at once share, for a caller that encodes every view it builds as
    JSON (the API, on every request): ``view(..., encoded=...)``. The board's parts that are the
    engine's own, the same in every view, encoded once; the players' blocks are made as msgspec
    structs (:mod:`~darkroad.core.view_players`), the view sharing the game's lists. One
    engine's: what it holds comes from its content. No players' block is kept from one view to
    the next: its exact key (the player's state encoded) costs about as much as the struct made
    afresh (docs/performance.md, "What the core remembers")."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.ringway = msgspec.Raw(_encode(DISTRICTS))
        self.courtyard_banners = msgspec.Raw(_encode(engine.content.courtyard_banners))
        goods = engine.content.good_ids
        self.wheels = tuple(msgspec.Raw(_encode(market_wheel(goods, offset)))
                            for offset in range(len(MARKET_VALUES)))
        """The market's ``wheel`` block at each offset of the wheel."""
        self.dice = dice_struct(goods)
        """The market's ``dice`` block's type (:func:`~darkroad.core.view_board.dice_struct`)."""


def _config(engine: Engine, game: Game, shared: bool = False) -> dict[str, Any]:
    """The view's ``config`` block; ``shared``: for a view encoded at once (the config's own
    collections, not copies)."""
    config = game.config
    variants, buildings, versions = config.variants, config.buildings, config.plugins
    plugins: Any = versions
    if not shared:
        variants, buildings, plugins = dict(variants), list(buildings), dict(versions)
    elif type(versions) is PluginVersions:  # its JSON, made once
        plugins = versions.json
    out: dict[str, Any] = {"players": config.players, "variants": variants}
    # Every installed seat kind: its first seat in this game, or null (written here, not merged
    # from a dict of their own: the block is made in every view).
    kinds = engine.seat_kinds
    for kind in kinds:
        out[kind] = None
    for p in game.players:
        if p.kind in kinds and out[p.kind] is None:
            out[p.kind] = p.seat
    out["buildings"] = buildings
    out["plugins"] = plugins
    return out


def score_line(line: ScoreLine) -> dict[str, Any]:
    """A score line with every field (the same shape in a finished view and ``GET .../score``)."""
    return asdict(line)


def _final_score(engine: Engine, game: Game) -> list[dict[str, Any]]:
    """The finished game's score lines; in another language than English the deeds' lines are
    worded again in it (a game keeps them as worded when it finished, in English)."""
    lines = [score_line(s) for s in game.score]
    if i18n.current_locale() != i18n.DEFAULT_LOCALE:
        ctx = Ctx(engine, game)
        for line in lines:
            if game.players[line["seat"]].kind == HUMAN:
                line["details"] = worded_details(ctx, line["seat"])
    return lines


def _caravan(c: Caravan, shared: bool) -> dict[str, Any]:
    """The view's ``caravan``: its fields, those not set yet left out, and the plugins' keys
    beside them (a seat kind's view blocks). ``shared``: for a view encoded at once (its lists
    are the game's); else copied."""
    out: dict[str, Any] = {"leader": c.leader, "route": c.route, "town": c.town, "members": c.members,
                           "extra_die": c.extra_die}
    if c.event is not None:
        out["event"] = c.event
    if c.dice is not None:
        out["dice"] = c.dice
    if c.rolled is not None:
        out["rolled"] = c.rolled
    if c.taken is not None:
        out["taken"] = c.taken
    if c.extra:
        out.update(c.extra)
    return out if shared else msgspec.json.decode(_encode(out))


def view(engine: Engine, game: Game, seat: int | None, names: Sequence[str | None] | None = None,
         encoded: EncodedPlayers | None = None) -> dict[str, Any]:
    """``seat``'s view of ``game`` (``None``: a spectator's). ``names``: a display name per seat,
    each player's ``name`` (none without); ``encoded``: the players' blocks kept encoded between
    views (:class:`EncodedPlayers`; the view is then for msgspec to encode at once: it shares
    lists with the game, and holds the blocks the engine's content gives encoded already)."""
    if encoded is not None and encoded.engine is not engine:
        raise ValueError("these encoded players belong to another engine")
    ctx = Ctx(engine, game)  # one for every question the view asks of this game
    decision = engine.decision(game, ctx)
    caravan = game.turn.caravan
    finished = game.finished
    return {
        "schema_version": game.schema_version,
        "version": game.version,
        "status": "finished" if finished else "active",
        "round": game.round,
        "phase": game.phase,
        "active_seat": game.active,
        "start_seat": game.start_seat,
        "seat": seat,
        "awaiting": decision["seats"] if decision else [],
        "undo_available": undo_available(game, seat),
        "decision": decision,
        "config": _config(engine, game, encoded is not None),
        "board": board_block(engine, game, encoded),
        "caravan": None if caravan is None else _caravan(caravan, encoded is not None),
        "players": _players(engine, ctx, seat, names) if encoded is None else
        _encoded_players(engine, ctx, seat, names, finished),
        "projected": projected(engine, game, seat, ctx) if encoded is None else projections(engine, game, seat, ctx),
        "score": _final_score(engine, game) if finished else None,
        "winners": list(game.winners) if finished else None,
    }


def _players(engine: Engine, ctx: Ctx, seat: int | None, names: Sequence[str | None] | None) -> list[Any]:
    """The view's ``players`` of ``ctx``'s game: every seat's block, its coins and deeds shown
    to its own seat (and to everyone once the game is over)."""
    game = ctx.game
    storage_spec = engine.storage_spec
    finished = game.finished
    players: list[Any] = []
    for i, p in enumerate(game.players):
        name = NO_NAME if names is None else names[i]
        shown = finished or p.seat == seat
        players.append(_player(engine, storage_spec(ctx, p.seat) if p.kind == HUMAN else None, p, shown, name))
    return players


def _encoded_players(engine: Engine, ctx: Ctx, seat: int | None, names: Sequence[str | None] | None,
                     finished: bool) -> list[Any]:
    """:func:`_players` of a view to encode (``finished``: the game is over): each block a :class:`~darkroad.core.view_players.
    PlayerBlock`, its storage the arrangement's JSON from :func:`_arranged` (not through
    :func:`_storage`, whose other branches a view to encode never takes: one call a seat less)."""
    packer = engine.packer
    storage_spec = engine.storage_spec
    players: list[Any] = []
    for i, p in enumerate(ctx.game.players):
        name = msgspec.UNSET if names is None else names[i]
        shown = finished or p.seat == seat
        if p.kind != HUMAN:  # an automated seat: its seat kind's keys among the block's
            players.append(_player(engine, None, p, shown, NO_NAME if name is msgspec.UNSET else name))
            continue
        goods = sorted(p.goods)
        found = _arranged(packer, tuple(goods), storage_spec(ctx, p.seat))
        players.append(player_block(p, goods, None if found is None else found.encoded, shown, name))
    return players


def action_schema(engine: Engine) -> dict[str, Any]:
    """JSON Schema of an action: ``oneOf`` the decision types, tagged by ``type``.

    The decision types of the core and the built-in plugins are listed one by one; those a
    fan plugin contributes share one open variant, so the document (and the clients
    generated from it) does not change with the plugins installed on a server.
    """
    builtin = {k for k, s in engine.steps.items() if s.decision and engine.step_is_builtin(k)}
    kinds = sorted(builtin) + ["companion"]

    def variant(title: str, type_schema: dict[str, Any], description: str) -> dict[str, Any]:
        return {
            "type": "object",
            "title": title,
            "description": description,
            "required": ["type", "seat", "option"],
            "additionalProperties": False,
            "properties": {
                "type": type_schema,
                "seat": {"type": "integer", "minimum": 0, "maximum": 3},
                "option": {"type": "string", "maxLength": MAX_OPTION_LENGTH},
                "label": {"type": "string", "maxLength": MAX_LABEL_LENGTH,
                          "description": "What the answer does, in words (ignored when sent back)."},
                "details": {"type": "string", "maxLength": MAX_DETAILS_LENGTH,
                            "description": "What the answer gives, in words, when the label has no room for it "
                                           "(the good a slot would craft, the prices at the Great Bazaar, an event "
                                           "card's faces, a town's reward); listed actions only, ignored when sent "
                                           "back."},
            },
        }

    variants = []
    for k in kinds:
        step = engine.steps.get(k)
        doc = (step.prompt or step.__doc__ or "").strip().split("\n")[0] if step else \
            "trigger a companion ability on your own turn"
        variants.append(variant(k, {"type": "string", "const": k}, doc))
    plugin_type = {"type": "string", "maxLength": MAX_TYPE_LENGTH, "not": {"enum": kinds}}
    variants.append(variant("plugin_decision", plugin_type,
                            "answer a decision contributed by a fan plugin (its step kind)"))
    return {"oneOf": variants}


STR, INT, BOOL = {"type": "string"}, {"type": "integer"}, {"type": "boolean"}
NSTR, NINT = {"type": ["string", "null"]}, {"type": ["integer", "null"]}
INTS, STRS = {"type": "array", "items": INT}, {"type": "array", "items": STR}
SEAT = {"type": "integer", "minimum": 0, "maximum": 3}


def _d(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {**schema, "description": description}


_SOURCE = _d(STR, "What caused it, for display: a district, a card (`hero:<id>`, `event:<id>`, "
                  "`companion:<card>`), a component id, ...")
_RESOURCE = _d(STR, "`coins`, `prestige`, `lanterns`, `quartz`, `horseshoes` or `illuminated` (an illuminated die).")
_GOOD = _d(STR, "A good tile: its type id, with `+` for the upgraded side (`potion+`).")
_EFFECTS = _d(STRS, "Effects in the engine's effect language (`coins:3`, `good:any`, ...).")


@frozen
class EventType:
    """One event type: what it means and its ``data`` (the core's are in :data:`EVENTS`; a
    plugin documents its own with ``darkroad_event_types``).

    ``data`` maps each field to its JSON Schema; a name ending in ``?`` marks a field some
    emitters leave out (it does not always apply)."""

    description: str
    data: dict[str, dict[str, Any]] = Factory(dict)

    def fields(self) -> dict[str, dict[str, Any]]:
        return {name.rstrip("?"): schema for name, schema in self.data.items()}

    def required(self) -> list[str]:
        return sorted(name for name in self.data if not name.endswith("?"))


E = EventType
EVENTS: dict[str, EventType] = {
    # -- the core ------------------------------------------------------------------------------
    "activated": E("A seat activated a district or a building.", {
        "target": _d(STR, "The district or building id."), "what": _d(STR, "`district` or `building`.")}),
    "answered": E("The seat's answer to a decision a plugin contributes: its step, an `x:` option, a "
                  "companion ability (seen by that seat only: an option may name a secret). The core's own "
                  "decisions log what they do instead (`moved`, `bought`, ...).", {"decision": _d(STR, "The decision's type (its step kind, or `companion`)."),
                                      "option": _d(STR, "The option chosen."),
                                      "labels?": _d({"type": "object", "additionalProperties": STR},
                                                    "The option's label as the decision listed it, in each language "
                                                    "the service speaks, by language tag (`en`, `hu`): the answer "
                                                    "in words, whoever reads it. Absent from a companion ability's "
                                                    "(its card names it) and from events logged before it was "
                                                    "added.")}),
    "bought": E("A good was bought at the Great Bazaar.", {"good": _GOOD, "cost": _d(INT, "Coins paid.")}),
    "caravan_answer": E("A seat said whether it joins the caravan.", {"join": BOOL}),
    "caravan_declared": E("A seat leads a caravan.", {
        "route": _d(STR, "The route id."), "town": _d(STR, "The destination town id.")}),
    "commission_delivered": E("A commission was delivered.", {
        "commission": STR, "goods?": _d(STRS, "The goods delivered (a player)."),
        "goods_count?": _d(INT, "How many goods were delivered (a seat kind whose goods are a count)."),
        "prestige": _d(INT, "Prestige gained.")}),
    "commission_discarded": E("A commission was discarded (over the limit).", {"commission": STR}),
    "commission_gained": E("A seat took a commission.", {"commission": STR, "source": _SOURCE}),
    "companion_taken": E("A seat took a companion card from the row.", {
        "card": _d(STR, "The card id (`<companion>-<copy>`)."), "companion": _d(STR, "The companion's component id."),
        "travel_die": _d(BOOL, "The card carried the extra travel die.")}),
    "companion_used": E("A seat used a companion's ability.", {
        "card": STR, "companion": _d(STR, "The companion's component id."), "ability": _d(STR, "The ability's id.")}),
    "dark_market_moved": E("The dark market marker moved.", {
        "steps": INT, "space": _d(STR, "`north`, `east`, `south` or `west`.")}),
    "deed_gained": E("A seat gained a deed (which one: `deed_gained_private`, seen by that seat only).",
                     {"source": _SOURCE}),
    "deed_gained_private": E("The deed a seat gained (private to that seat).", {"deed": STR}),
    "deed_kept": E("The starting deed a seat kept (private to that seat; `deed_gained` is public).",
                   {"deed": STR}),
    "deliveries_done": E("A caravan member (in the final travel: a player) finished delivering."),
    "deed_revealed": E("A seat's deed, revealed at the end of the game.", {"deed": STR}),
    "dice_reset": E("A seat reset its locked night dice to 1, 2, 3."),
    "die_bumped": E("A night die left a locked slot for the action pool.", {
        "slot": _d(INT, "The slot, 1-3."), "to_pool": _d(INT, "The value of the die moved to the pool."),
        "locked": _d(NINT, "The value now locked in the slot (null: the slot stays empty).")}),
    "discarded": E("Resources over a limit were discarded.", {"resource": _RESOURCE, "amount": INT, "reason": STR}),
    "event_revealed": E("A caravan's event card was revealed and its travel dice rolled.", {
        "event": _d(STR, "The event card id."), "name": STR, "dice": _d(INTS, "The travel dice rolled.")}),
    "excursion": E("A seat chose an excursion at Yurg's Excursions.", {"choice": STR}),
    "gained": E("A seat gained a resource (`resource`, `amount`) or a good (`good`).", {
        "resource?": _RESOURCE, "amount?": INT, "good?": _GOOD,
        "value?": _d(INT, "The value of the illuminated die gained."), "source": _SOURCE}),
    "game_finished": E("The game is over (the score: `GET .../score`).", {
        "winners": _d(INTS, "The winning seats."),
        "scores": _d({"type": "object", "additionalProperties": INT}, "Each seat's total, by seat number.")}),
    "game_started": E("The game was set up.", {"players": _d(INT, "Seats."), "buildings": STRS}),
    "good_flipped": E("A good tile was turned to its other side.", {"good": _GOOD, "to": _GOOD, "source": _SOURCE}),
    "good_fortune": E("The caravan leader took a good fortune.", {"choice": STR}),
    "hero_delivered": E("A hero was delivered to their town.", {"hero": STR, "town": STR, "source": _SOURCE}),
    "hero_discarded": E("A hero was discarded (over the limit).", {"hero": STR}),
    "hero_joined": E("A hero joined a wagon.", {"hero": STR, "source": _SOURCE}),
    "hero_lost": E("A hero left a wagon.", {"hero": STR, "source": _SOURCE}),
    "illuminated_to_pool": E("An illuminated die went to the action pool.", {"value": INT}),
    "lost": E("A seat lost a resource (`resource`, `amount`) or a good (`good`).", {
        "resource?": _RESOURCE, "amount?": INT, "good?": _GOOD, "source": _SOURCE}),
    "market_die_changed": E("A market die was turned to another good type.", {
        "frm": _d(STR, "The good type it showed."), "to": _d(STR, "The good type it shows.")}),
    "market_rerolled": E("The market dice bought this turn were rerolled.", {
        "market": _d(INTS, "Market dice per good type, in wheel order.")}),
    "moved": E("A wagon moved around the Ringway.", {
        "steps": _d(INT, "Spaces moved (negative: counter-clockwise)."), "position": _d(INT, "The new space, 0-4."),
        "horseshoe?": _d(BOOL, "Moved one space by spending a horseshoe.")}),
    "night_dice_refreshed": E("Spent night dice were rerolled into the reserve, one fewer.", {
        "removed": INT, "reserve": INTS}),
    "option_withdrawn": E("An answer a plugin failed to resolve was taken out of the decision (seen by that seat "
                          "only); a decision left without answers is skipped.", {
        "decision": _d(STR, "The answer's type (the decision's step kind, or `companion`)."),
        "option": _d(STR, "The answer withdrawn."), "reason": _d(STR, "The plugin's failure."),
        "plugin": _d(STR, "The plugin that failed (empty: unknown).")}),
    "paid": E("A seat paid a resource.", {"resource": _RESOURCE, "amount": INT, "source": _SOURCE}),
    "round_ended": E("A round ended.", {"round": _d(INT, "The round that ended, 1-13.")}),
    "ruins_die_rolled": E("The ruins die was rolled.", {"face": STR, "reroll": BOOL}),
    "ruins_moved": E("The ruins marker moved.", {
        "steps": INT, "space": _d(STR, "`top_left`, `top_right`, `bottom_right` or `bottom_left`.")}),
    "steed_dealt": E("A seat was dealt its steed.", {"steed": STR}),
    "town_visited": E("A caravan member visited a town (null: none).", {"town": NSTR}),
    "travel_dice_rerolled": E("The remaining travel dice were rerolled (for 1 lantern).", {"dice": INTS}),
    "travel_die_taken": E("A seat took a travel die.", {
        "die": _d(INT, "The die's value."), "face": _d(INT, "The event card face applied (value plus bonuses).")}),
    "turn_started": E("A seat's turn started.", {"round": INT}),
    "undone": E("A seat took back its last action (core/undo.py): the game is again as it was at version "
                "`restored`, counted on as a new version. Followers refresh their view.", {
        "versions": _d(INTS, "The versions taken back, oldest first."),
        "restored": _d(INT, "The version whose position the game is in again.")}),
    "upgrade_gained": E("A seat gained a wagon upgrade.", {"upgrade": STR}),
    "wheel_rotated": E("The market wheel rotated.", {"at_5": _d(STR, "The good type now worth 5 coins.")}),
    # -- the built-in plugins (their modules emit these) ----------------------------------------
    "building_unused": E("A building's activation was passed up.", {"building": STR, "reason": STR}),
    "companion_passed": E("A stray companion moved on to the next seat.", {"card": STR, "to": SEAT}),
    "oracle_die_rolled": E("The oracle die was rolled.", {
        "face": _EFFECTS, "number?": _d(INT, "The face rolled, 1-6."), "source": _SOURCE}),
    "steed_gained": E("A seat gained another steed.", {"steed": STR, "source": _SOURCE}),
    "traded": E("A seat traded at a building.", {"building": STR, "gave": STR, "got": STR}),
    "travel_die_duplicated": E("A companion copied a travel die.", {"value": INT, "card": STR}),
    "upgrade_unused": E("A wagon upgrade had no effect.", {"upgrade": STR, "reason": STR}),
}
"""The events the core and the base game's component plugins emit (some are shared by
several components). Other plugins document theirs with ``darkroad_event_types``; in the
OpenAPI document those of fan plugins share the open variant of :func:`event_schema`."""
del E


def _data_schema(spec: EventType) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": spec.fields()}
    if spec.required():
        schema["required"] = spec.required()
    return schema


def event_schema(engine: Engine) -> dict[str, Any]:
    """JSON Schema of an event: ``oneOf`` the base installation's event types (:data:`EVENTS`
    and those the built-in plugins document with ``darkroad_event_types``), tagged by
    ``type``, each with its typed ``data``, and one open variant for the events of fan
    plugins (so the document does not change with the plugins a server installs)."""

    def variant(title: str, description: str, type_schema: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "object",
            "title": title,
            "description": description,
            "required": ["n", "type", "seat", "private_to", "data"],
            "properties": {
                "n": _d({"type": "integer", "minimum": 0}, "The event's position in the game's log, from 0."),
                "type": type_schema,
                "seat": _d({"type": ["integer", "null"], "minimum": 0, "maximum": 3},
                           "The seat it concerns (null: the whole table)."),
                "private_to": _d({"type": ["integer", "null"], "minimum": 0, "maximum": 3},
                                 "Only this seat sees it (null: public)."),
                "data": data,
            },
        }

    specs = dict(EVENTS)
    for event, (plugin, spec) in engine.event_types.items():
        loaded = engine.plugins.plugins.get(plugin)
        if loaded is not None and loaded.builtin:
            specs[event] = spec
    kinds = sorted(specs)
    known = [
        variant(k, specs[k].description, {"type": "string", "const": k},
                _data_schema(specs[k]))
        for k in kinds
    ]
    open_variant = variant(
        "component_event",
        "An event of a fan plugin: its `type` is none of the above, its `data` is the plugin's.",
        {"type": "string", "not": {"enum": kinds}},
        {"type": "object", "additionalProperties": True},
    )
    return {"oneOf": [*known, open_variant]}
