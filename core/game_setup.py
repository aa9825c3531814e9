"""A game's setup as a caller asks for it: who plays, with which buildings, companions and
variants, and where an automated seat (a seat kind's) sits; checked here, in one place.

A caller (the HTTP API's ``POST /v1/games``, a script) describes the game it wants as a
:class:`SetupRequest`: ``players`` counts the players at the table, 1 being solo against the
one installed seat kind that plays solo (a 2-seat game in the engine), and each installed
seat kind may be asked for (``True``) or refused (``False``) by id. :func:`game_config` gives
the :class:`~darkroad.core.state.GameConfig` of that game, or every :class:`SetupProblem` of the
request, each with a stable ``code`` and a JSON Pointer into the request (``/buildings``, a
seat kind's request field) and a message in whole words; the bots it seats are the installed
ones (:attr:`Engine.bots <darkroad.core.engine.Engine.bots>`). The config itself is checked again when
the game is created (:func:`darkroad.core.configs.check`: the components exist, the options are
read by a plugin), as every config is, whoever built it; the chosen buildings' rules are that
module's (:func:`~darkroad.core.configs.building_problems`), used by both.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from attrs import Factory, frozen

from .configs import BUILDING_COUNT as BUILDING_COUNT
from .configs import REPEATED_ID as REPEATED_ID
from .configs import TILE_SIDES as TILE_SIDES
from .configs import building_problems, repeated_ids
from .errors import BadConfig, UnknownBot
from .i18n import Text
from .state import GameConfig

if TYPE_CHECKING:
    from .engine import Engine
    from .seats import SeatKind

SOLO = 1
"""``players`` of a solo game: one player against a seat kind that plays solo (2 seats in the engine)."""
SIZES = (2, 3, 4)
"""The game sizes besides solo (players at the table, an automated seat included)."""

KIND_SIZE = "seat-kind-size"
"""A seat kind asked for with a ``players`` it does not play in."""
KIND_REFUSED_SOLO = "seat-kind-refused-solo"
"""A seat kind refused (``False``) in a solo game, which is played against it."""
SEAT_COUNT = "seat-count"
"""The seats listed are not one per player's seat."""
NO_SOLO_KIND = "no-solo-kind"
"""A solo game where no installed seat kind plays solo."""
SOLO_KIND_UNCHOSEN = "solo-kind-unchosen"
"""A solo game with several seat kinds that play solo and not exactly one asked for."""
KIND_NOT_SOLO = "seat-kind-not-solo"
"""A seat kind asked for in a solo game that it does not play."""
UNKNOWN_BOT = UnknownBot.code
"""A bot seat or ``timeout_bot`` names a bot this installation does not have."""


@frozen(kw_only=True)
class SetupRequest:
    """The game a caller asks for."""

    players: int
    """Players at the table, an automated seat included: 1 (solo against a seat kind) to 4."""
    seed: int
    buildings: Sequence[str] = ()
    """Four different building ids, or none (the first game's, or random ones)."""
    random_buildings: bool = False
    variants: Collection[str] = ()
    """The optional rules played (``drafting``, ``advanced_deeds``)."""
    companions: Sequence[str] = ()
    """Extra companion ids shuffled into the companion deck, each at most once."""
    seat_kinds: Mapping[str, bool] = Factory(dict)
    """Seat kind id -> ``True`` (seat it) or ``False`` (refused); a kind not named is neither."""
    seats: int | None = None
    """How many seats the request lists one by one (``None``: it lists none)."""
    seat_bots: Sequence[str | None] = ()
    """The bot of each seat listed that a bot plays (``None`` for the others)."""
    timeout_bot: str | None = None
    """The bot that plays a seat its player lets time out (``None``: the service's default)."""


@frozen
class SetupProblem:
    """What is wrong with a :class:`SetupRequest`: a stable ``code`` (this module's constants,
    the buildings' from :mod:`darkroad.core.configs`), where (``pointer``, a JSON Pointer into
    the request: ``/buildings``, ``/seats``, a seat kind's request field ``/<api_field>``) and
    ``message`` (whole words, translated where shown)."""

    code: str
    pointer: str
    message: Text

    def error(self) -> BadConfig:
        """The error refusing the setup for this problem: :class:`UnknownBot` for a bot, else
        :class:`BadConfig`."""
        return (UnknownBot if self.code == UNKNOWN_BOT else BadConfig)(self.message)


def refused_sizes(kind: SeatKind) -> list[int]:
    """The game sizes of 2-4 players with which ``kind`` may not be asked for: those it does not
    play in (:attr:`SeatKind.players`), and 2, since its 2-seat game is asked for as solo
    (``players: 1``)."""
    return [n for n in SIZES if n == SOLO + 1 or n not in kind.players]


def solo_kinds(kinds: Iterable[SeatKind]) -> list[SeatKind]:
    """The seat kinds that play solo (in games of 2 seats, theirs included)."""
    return [kind for kind in kinds if SOLO + 1 in kind.players]


def the_text(kind: SeatKind) -> Text | str:
    """A seat kind's name in a sentence ("the Private Concern"; its id when it has no name)."""
    return Text("the %(kind)s", kind=Text(kind.name)) if kind.name else f"`{kind.id}`"


def plays_text(kind: SeatKind) -> Text:
    """Where ``kind`` may be asked for, in words (one sentence each way)."""
    fills = [n for n in (3, 4) if n in kind.players]
    sizes = "-".join(map(str, (fills[0], fills[-1]) if len(fills) > 1 else fills))
    solo = SOLO + 1 in kind.players
    if solo and fills:
        return Text("plays solo (players: 1) or fills a seat of a %(sizes)s player game", sizes=sizes)
    if solo:
        return Text("plays solo (players: 1)")
    if fills:
        return Text("fills a seat of a %(sizes)s player game", sizes=sizes)
    return Text("plays in no game the API creates")


def automated(kinds: Iterable[SeatKind], request: SetupRequest) -> list[SeatKind]:
    """The seat kinds taking a seat: those asked for; in a solo game where none is, the one
    installed seat kind that plays solo (asked for by ``players: 1`` alone)."""
    kinds = list(kinds)
    asked = [kind for kind in kinds if request.seat_kinds.get(kind.id) is True]
    if request.players == SOLO and not asked:
        solo = solo_kinds(kinds)
        return solo if len(solo) == 1 else []
    return asked


def seat_count(kinds: Iterable[SeatKind], request: SetupRequest) -> int:
    """How many seats a request lists one by one: one per player, the automated seat's excepted
    (solo and 2 players: one per player; 3-4: one fewer for each seat kind asked for)."""
    if request.players <= SOLO + 1:
        return request.players
    return request.players - sum(request.seat_kinds.get(kind.id) is True for kind in kinds)


def problems(engine: Engine, request: SetupRequest) -> list[SetupProblem]:
    """Everything wrong with ``request`` in this installation (empty when it sets up a game):
    first what its fields say against each other (:func:`field_problems`), then, when they
    agree, who plays a solo game (:func:`solo_problems`), then the bots it names
    (:func:`bot_problems`)."""
    return (field_problems(engine, request) or solo_problems(engine, request)
            or bot_problems(engine, request.seat_bots, request.timeout_bot))


def field_problems(engine: Engine, request: SetupRequest) -> list[SetupProblem]:
    """The request's fields against each other: an id twice; 1-3 buildings or both sides of one
    tile; a seat kind asked for in a game size it does not play, or refused in a solo game; the
    seats listed not one per player's seat."""
    found = [SetupProblem(code, f"/{field}", message)
             for field, ids in (("buildings", request.buildings), ("companions", request.companions))
             for code, message in repeated_ids(field, ids)]
    # The buildings' own rules are every config's (darkroad.core.configs), checked once there.
    found += [SetupProblem(code, "/buildings", message) for code, message in building_problems(engine, request.buildings)]
    for kind in engine.seat_kinds.values():
        field, wanted = kind.api_field, request.seat_kinds.get(kind.id)
        if wanted is True and request.players in refused_sizes(kind):
            found.append(SetupProblem(KIND_SIZE, f"/{field}", Text(
                "`%(field)s: true` with `players: %(players)d`: %(kind)s %(plays)s", field=field,
                players=request.players, kind=the_text(kind), plays=plays_text(kind))))
        elif wanted is False and request.players == SOLO:
            found.append(SetupProblem(KIND_REFUSED_SOLO, f"/{field}", Text(
                "`%(field)s: false` with `players: 1`: a 1-player game is solo against it; leave %(field)s out",
                field=field)))
    count = seat_count(engine.seat_kinds.values(), request)
    if request.seats is not None and request.seats != count:
        found.append(SetupProblem(SEAT_COUNT, "/seats", Text(
            "`seats` lists every seat but the automated one's: %(count)d here, not %(given)d", count=count,
            given=request.seats)))
    return found


def solo_problems(engine: Engine, request: SetupRequest) -> list[SetupProblem]:
    """Who plays a solo game: the one seat kind that plays solo, or the one asked for among
    several; none that does not play solo."""
    if request.players != SOLO:
        return []
    kinds = engine.seat_kinds.values()
    seated = automated(kinds, request)
    if len(seated) != 1:
        playing = [Text("`%(field)s: true` (%(kind)s)", field=kind.api_field, kind=the_text(kind))
                   for kind in solo_kinds(kinds)]
        if not playing:
            return [SetupProblem(NO_SOLO_KIND, "/players", Text(
                "a 1-player game is solo against a seat kind, and this installation has none that plays solo"))]
        return [SetupProblem(SOLO_KIND_UNCHOSEN, "/players", Text(
            "a 1-player game is solo against one seat kind, ask for one of: %(kinds)s", kinds=playing))]
    kind = seated[0]
    if SOLO + 1 not in kind.players:
        return [SetupProblem(KIND_NOT_SOLO, f"/{kind.api_field}", Text(
            "%(kind)s %(plays)s", kind=the_text(kind), plays=plays_text(kind)))]
    return []


def bot_problems(engine: Engine, seat_bots: Sequence[str | None], timeout_bot: str | None = None,
                 ) -> list[SetupProblem]:
    """The bots named that this installation does not have (:attr:`Engine.bots`): each seat's of
    ``seat_bots`` (``None``: no bot's seat) at ``/seats/<i>/bot``, then ``timeout_bot``."""
    named = [(f"/seats/{i}/bot", bot) for i, bot in enumerate(seat_bots) if bot is not None]
    if timeout_bot is not None:
        named.append(("/timeout_bot", timeout_bot))
    found = []
    for pointer, bot in named:
        if bot in engine.bots:
            continue
        if engine.bots:
            message = Text("No bot '%(bot)s' is installed here; installed bots: %(installed)s.", bot=bot,
                           installed=", ".join(sorted(engine.bots)))
        else:
            message = Text("No bot '%(bot)s' is installed here; no bot is installed.", bot=bot)
        found.append(SetupProblem(UNKNOWN_BOT, pointer, message))
    return found


def time_banks(initial: float, increment: float) -> tuple[float, float]:
    """A game's time banks as played: ``initial`` seconds in each seat's bank, and what a
    decision adds to it, at most ``initial`` (the most a bank holds)."""
    return initial, min(increment, initial)


def game_config(engine: Engine, request: SetupRequest) -> GameConfig | list[SetupProblem]:
    """The config of the game ``request`` asks for, or its :func:`problems`. Solo (``players:
    1``) is a 2-seat game in the engine: the player and the seat kind that plays solo."""
    found = problems(engine, request)
    if found:
        return found
    options: dict[str, object] = {}
    for kind in automated(engine.seat_kinds.values(), request):
        options |= kind.game_options()
    return GameConfig(
        options=options,
        players=max(request.players, SOLO + 1),
        seed=request.seed,
        buildings=list(request.buildings),
        random_buildings=request.random_buildings,
        variants=dict.fromkeys(request.variants, True),
        companions=list(request.companions),
    )
