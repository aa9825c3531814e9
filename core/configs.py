"""Game configs: what makes one playable here, and what a game of it uses.

A :class:`~darkroad.core.state.GameConfig` names the game's size, seed, buildings, companions,
variants and the plugins' options (an automated seat's). :func:`check` refuses one this
installation cannot play, naming what is wrong (and the plugin that failed to load, when a
missing component may be its); :func:`seat_assignment` gives the automated seats its options
ask for; :func:`buildings`, :func:`companion_deck` and :func:`plugins_used` are what a new
game of it starts with.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from .errors import BadConfig, UnknownComponent
from .i18n import Text

if TYPE_CHECKING:
    from .context import Ctx
    from .engine import Engine
    from .seats import SeatKind
    from .state import Game, GameConfig

BUILDING_SPACES = 4
VARIANTS = ("drafting", "advanced_deeds")

REPEATED_ID = "repeated-id"
"""``buildings`` or ``companions`` names an id twice."""
BUILDING_COUNT = "building-count"
"""``buildings`` names neither 4 buildings nor none."""
TILE_SIDES = "tile-sides"
"""``buildings`` names both sides of one double-sided tile."""


def check(engine: Engine, config: GameConfig) -> None:
    """Raise :class:`BadConfig` / :class:`UnknownComponent` for an unplayable config."""
    if not isinstance(config.players, int) or not 2 <= config.players <= 4:
        raise BadConfig("players must be 2 to 4, got %(players)r", players=config.players)
    seat_assignment(engine, config)
    comps, hint = engine.content.components, engine.registry.failed_hint
    for b in config.buildings:
        if b not in comps:
            raise UnknownComponent("unknown building '%(id)s'%(hint)s", id=b, hint=hint(b))
        if comps[b].kind != "building":
            raise BadConfig("'%(id)s' is a %(kind)s, not a building", id=b, kind=comps[b].kind)
    chosen = [*repeated_ids("buildings", config.buildings), *building_problems(engine, config.buildings)]
    if chosen:
        raise BadConfig(chosen[0][1])
    for c in config.companions:
        if c not in comps or comps[c].kind != "companion":
            raise UnknownComponent("unknown companion '%(id)s'%(hint)s", id=c, hint=hint(c))
    unknown = set(config.variants) - set(VARIANTS)
    if unknown:
        raise BadConfig("unknown variants %(names)s", names=str(sorted(unknown)))
    if len(engine.content.of_kind("building")) < BUILDING_SPACES:
        raise BadConfig("this installation has fewer than 4 buildings")


def repeated_ids(field: str, ids: Sequence[str]) -> list[tuple[str, Text]]:
    """:data:`REPEATED_ID` and its message when ``ids`` (``field``: ``buildings``, ``companions``)
    names an id more than once; else nothing."""
    twice = sorted({id_ for id_ in ids if ids.count(id_) > 1})
    if not twice:
        return []
    return [(REPEATED_ID, Text("`%(field)s` names each id at most once: %(ids)s more than once", field=field,
                               ids=", ".join(twice)))]


def building_problems(engine: Engine, ids: Sequence[str]) -> list[tuple[str, Text]]:
    """What is wrong with ``ids`` as a game's buildings, besides an id named twice
    (:func:`repeated_ids`), each as its code and message: neither 4 nor none
    (:data:`BUILDING_COUNT`), both sides of a double-sided tile (:data:`TILE_SIDES`, one for
    each such tile). The one check of the chosen buildings, for a setup and for any config."""
    found = []
    if len(ids) not in (0, BUILDING_SPACES):
        found.append((BUILDING_COUNT, Text("`buildings` names exactly 4 buildings or none, not %(count)d",
                                           count=len(ids))))
    for sides in tile_clashes(engine, ids):
        found.append((TILE_SIDES, Text("`buildings` names both sides of one tile: %(sides)s", sides=", ".join(sides))))
    return found


def tile_clashes(engine: Engine, ids: Iterable[str]) -> list[list[str]]:
    """The double-sided building tiles of which ``ids`` names both sides: the ids of each one's
    sides, sorted, the tiles in the order of their first side's id (ids of no building ignored)."""
    comps = engine.content.components
    tiles: dict[Any, list[str]] = {}
    for b in sorted(set(ids)):
        comp = comps.get(b)
        if comp is not None and comp.kind == "building" and comp.data.get("tile") is not None:
            tiles.setdefault(comp.data["tile"], []).append(b)
    return [sides for sides in tiles.values() if len(sides) > 1]


def seat_assignment(engine: Engine, config: GameConfig) -> dict[int, SeatKind]:
    """The automated seats of a game created with ``config`` (seat -> its seat kind), or
    :class:`BadConfig` when its options do not make a playable game: an option no installed
    plugin reads, a seat kind's own checks, a game size it does not play, two kinds in one
    seat, no seat left for a player."""
    if not isinstance(config.options, dict):
        raise BadConfig("options must be an object, got %(options)r", options=config.options)
    readers = {option: kind for kind in engine.seat_kinds.values() for option in kind.options}
    unknown = sorted(set(config.options) - readers.keys())
    if unknown:
        raise BadConfig("unknown option(s) %(names)s%(hint)s", names=str(unknown),
                        hint=engine.registry.failed_hint(unknown[0]))
    seats: dict[int, SeatKind] = {}
    for kind in {readers[o].id: readers[o] for o in sorted(config.options)}.values():
        kind.check_config(engine, config)
        for seat in kind.seats(config):
            if config.players not in kind.players:
                sizes = ", ".join(map(str, kind.players))
                raise BadConfig("the %(kind)s plays in games of %(sizes)s seats (itself included), not %(players)d",
                                kind=Text(kind.name) if kind.name else kind.id, sizes=sizes, players=config.players)
            if seat in seats:
                raise BadConfig("seat %(seat)d cannot be both '%(one)s' and '%(other)s'", seat=seat, one=seats[seat].id,
                                other=kind.id)
            seats[seat] = kind
    if len(seats) >= config.players:
        raise BadConfig("a game needs at least one player's seat")
    return seats


def buildings(engine: Engine, ctx: Ctx) -> list[str]:
    """The buildings of a new game, in the order of the building spaces: the config's, else the
    first game's (the buildings marked ``first_game``), else drawn from the base game's, one
    side of a double-sided tile at most (with ``random_buildings``, always drawn)."""
    cfg = ctx.game.config
    if cfg.buildings:
        chosen = list(cfg.buildings)
    elif not cfg.random_buildings:
        first = [b.id for b in engine.content.of_kind("building") if b.data.get("first_game")]
        chosen = first if len(first) == BUILDING_SPACES else []
    else:
        chosen = []
    if not chosen:
        pool = engine.registry.base_game("building")
        ctx.shuffle(pool)
        tiles: set[Any] = set()
        for b in pool:
            tile = b.data.get("tile")
            if tile is None or tile not in tiles:
                chosen.append(b.id)
                if tile is not None:
                    tiles.add(tile)
            if len(chosen) == BUILDING_SPACES:
                break
    ctx.shuffle(chosen)  # assigned randomly to the building spaces
    return chosen


def companion_deck(engine: Engine, config: GameConfig) -> list[str]:
    """The companion card ids of a new game: the base game's plus the chosen ones."""
    ids = {c.id for c in engine.registry.base_game("companion")} | set(config.companions)
    return sorted(card for card, comp in engine.content.companion_cards.items() if comp in ids)


def plugins_used(engine: Engine, game: Game) -> dict[str, str]:
    """The plugins a new game uses (its buildings', companions', automated seats', every other
    component's and content pack's), with their versions: what ``config.plugins`` records."""
    config, comps = game.config, engine.content.components
    used = {comps[b].plugin for b in game.board.buildings}
    used |= {c.plugin for c in engine.registry.base_game("companion")} | {comps[c].plugin for c in config.companions}
    used |= {c.plugin for c in comps.values() if c.kind not in ("building", "companion")}
    used |= {impl.plugin_name for impl in engine.pm.hook.darkroad_content.get_hookimpls()}
    used |= {engine.seat_kind_plugins[kind.id] for kind in seat_assignment(engine, config).values()}
    loaded = engine.plugins.plugins
    return {n: loaded[n].version for n in sorted(used) if n in loaded}
