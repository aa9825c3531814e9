"""Game records: a whole game in one versioned JSON document, exported and imported.

A record holds what replays the game (the config, the plugins and their versions, the actions
in order) and what a reader wants beside it (the seats' kinds and names, each action's time,
the result). It never holds a seat's token or its hash. Only a finished game's record is
handed out: the seed in the config deals every hidden card, so a running game's record would
show them all.

Importing replays a record into a new game with fresh seat tokens, up to its end or up to a
version ``at`` (a running game to play on: an analysis board). A record that does not replay
exactly (its plugins missing or of other versions, an action illegal where it stands, a
version or a result other than the replay's) is refused before anything is stored.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal

import msgspec
from msgspec import Meta

from darkroad.api.app import lobby as lobbies
from darkroad.api.app.lobby import Lobby, LobbySeat
from darkroad.api.app.service_errors import ServiceError
from darkroad.core import HUMAN, Engine, Event, Game, GameConfig, actionlog, errors, game_setup

RECORD_FORMAT: Final = "darkroad-game-record"
RECORD_FORMAT_VERSION: Final = 1
SEAT_CHANGE = lobbies.SEAT_CHANGE
"""The ``type`` of a record's action that is a change of seats (a version of its own, no rule)."""
MAX_RECORD_ACTIONS = 20_000


def _doc(text: str) -> Meta:
    return Meta(description=text)


Id = Annotated[str, Meta(max_length=64)]
"""A component's, a plugin's, a bot's or a seat kind's id."""
Options = Annotated[dict[Id, Any], Meta(max_length=64)]


class RecordConfig(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """What the game was created with: replaying its actions on it gives the game again."""

    seed: Annotated[int, Meta(ge=0, le=2**63 - 1, description="Deals every card and rolls every die.")]
    players: Annotated[int, Meta(ge=1, le=4)]
    buildings: Annotated[list[Id], Meta(max_length=16, description=(
        "The building ids chosen at creation (empty: drawn from the seed)."))]
    random_buildings: bool = False
    variants: Options = msgspec.field(default_factory=dict)
    companions: Annotated[list[Id], Meta(max_length=32)] = msgspec.field(default_factory=list)
    options: Annotated[Options, _doc("The plugins' game options (a seat kind's seat).")] = msgspec.field(
        default_factory=dict
    )


class RecordSeat(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Who sat in a seat (never its token or the token's hash)."""

    seat: Annotated[int, Meta(ge=0, le=3)]
    kind: Annotated[Id, _doc("`human`, `open`, `bot` or an automated seat kind's id.")]
    name: Annotated[str, Meta(max_length=lobbies.MAX_NAME_LENGTH)] | None = None
    bot: Annotated[Id | None, _doc("The bot that played the seat at the end, if any.")] = None


class RecordAction(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """One version of the game: a seat's action, or a change of seats."""

    version: Annotated[int, Meta(ge=1, description="The version this action made (1, 2, 3, ... in order).")]
    seat: Annotated[int, Meta(ge=0, le=3)]
    type: Annotated[str, Meta(min_length=1, max_length=64, description=(
        "The action's type, as `GET .../actions` lists it; `withdrawn` for an answer a plugin failed "
        "to resolve; `seat_change` for a change of seats."))]
    option: Annotated[str, Meta(max_length=256, description=(
        "The chosen option; for a `seat_change`, what changed (`joined`, `left`, `replaced`, ...)."))]
    time: Annotated[float | None, _doc("When it was committed, in Unix seconds; null if unknown.")] = None
    events: Annotated[Annotated[int, Meta(ge=0, le=64)] | None,
                      _doc("A `seat_change` only: how many events it logged.")] = None


class RecordResult(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """The end of a finished game: the final score of each seat and the winners."""

    score: Annotated[list[Annotated[dict[Id, Any], Meta(max_length=64)]], Meta(max_length=4, description=(
        "Each seat's `ScoreLine`, as `GET .../score` answers it."))]
    winners: Annotated[list[int], Meta(max_length=4)]


class GameRecord(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """A whole game: enough to replay it exactly, never a secret of a seat."""

    format: Annotated[Literal["darkroad-game-record"], _doc("Names the format.")]
    format_version: Annotated[Literal[1], _doc("The format's version.")]
    config: RecordConfig
    plugins: Annotated[dict[Id, Id], Meta(max_length=256, description=(
        "The plugins the game used, with their versions."))]
    seats: Annotated[list[RecordSeat], Meta(max_length=4)]
    actions: Annotated[list[RecordAction], Meta(max_length=MAX_RECORD_ACTIONS)]
    version: Annotated[int, Meta(ge=0, description="The game's last version (the last action's).")]
    finished: bool
    result: Annotated[RecordResult | None, _doc("The final score and winners; null unless finished.")] = None
    game_id: Annotated[Id | None, _doc("The id of the game recorded (informative).")] = None


@dataclass(frozen=True, slots=True)
class Replayed:
    """A record replayed: the game at the version asked for, its events, and the action list's
    entries up to there (as the store keeps them)."""

    game: Game
    events: list[Event]
    applied: list[bytes]


def refused(code: str, detail: str) -> ServiceError:
    return ServiceError(code, detail)


def stored_action(record: dict[str, Any]) -> dict[str, Any]:
    """An entry of the action list without what only the record reads (its time)."""
    if "time" in record:
        record = {key: value for key, value in record.items() if key != "time"}
    return record


def build(engine: Engine, game_id: str, game: Game, lobby: Lobby | None, entries: Sequence[bytes],
          seat_names: Mapping[str, str]) -> GameRecord:
    """The record of ``game`` (stored as ``game_id`` with ``lobby``), from its action list ``entries``."""
    config = game.config
    lobbies.register(engine)
    actions = [_action(version, engine.log.read(raw)) for version, raw in enumerate(entries, start=1)]
    view = engine.view(game, None)
    seats = [RecordSeat(seat=seat["seat"], kind=seat["kind"], name=seat["name"], bot=seat["bot"])
             for seat in lobbies.seat_views(lobby, [p.kind for p in game.players], seat_names)]
    result = RecordResult(score=view["score"], winners=view["winners"]) if game.finished else None
    return GameRecord(
        format=RECORD_FORMAT,
        format_version=RECORD_FORMAT_VERSION,
        config=RecordConfig(seed=config.seed, players=config.players, buildings=list(config.buildings),
                            random_buildings=config.random_buildings, variants=dict(config.variants),
                            companions=list(config.companions), options=dict(config.options)),
        plugins=dict(config.plugins),
        seats=seats,
        actions=actions,
        version=game.version,
        finished=game.finished,
        result=result,
        game_id=game_id,
    )


def _action(version: int, made: actionlog.Record) -> RecordAction:
    """The record's action of version ``version``, made by ``made`` (the type and option it is
    stored with)."""
    if isinstance(made, actionlog.ServiceRecord):
        return RecordAction(version=version, seat=made.seat, type=made.kind, option=made.what, time=made.time,
                            events=made.events)
    if isinstance(made, actionlog.Undo):
        type_, option = actionlog.UNDO, str(made.restores)
    elif isinstance(made, actionlog.Withdrawn):
        type_, option = actionlog.WITHDRAWN, f"{made.type}:{made.option}"
    else:
        type_, option = made.action.type, made.action.option
    return RecordAction(version=version, seat=made.seat, type=type_, option=option, time=made.time)


def parse(raw: bytes | Any) -> GameRecord:
    """A record from its JSON (bytes) or decoded JSON: ``bad-record`` naming what is wrong."""
    try:
        if isinstance(raw, bytes | bytearray | memoryview):
            return msgspec.json.decode(raw, type=GameRecord)
        return msgspec.convert(raw, GameRecord)
    except msgspec.ValidationError as exc:
        raise refused("bad-record", f"Not a game record: {exc}") from exc
    except msgspec.DecodeError as exc:
        raise refused("bad-record", f"Not a game record (not JSON): {exc}") from exc


def check_plugins(engine: Engine, record: GameRecord) -> None:
    """``record-plugins`` unless every plugin the record names is installed at its version."""
    installed = engine.plugins.plugins
    missing = sorted(name for name in record.plugins if name not in installed)
    other = sorted(
        f"{name} {version} (installed: {installed[name].version})"
        for name, version in record.plugins.items()
        if name in installed and installed[name].version != version
    )
    problems = []
    if missing:
        failed = [f"{name} (failed to load: {engine.plugins.failed[name]})" for name in missing
                  if name in engine.plugins.failed]
        problems.append(f"missing plugin(s) {', '.join(failed or missing)}")
    if other:
        problems.append(f"other plugin version(s): the record needs {', '.join(other)}")
    if problems:
        raise refused("record-plugins", "This record cannot be replayed here: " + "; ".join(problems) + ".")


def config_of(record: GameRecord) -> GameConfig:
    config = record.config
    return GameConfig(players=config.players, seed=config.seed, buildings=list(config.buildings),
                      random_buildings=config.random_buildings, variants=dict(config.variants),
                      companions=list(config.companions), options=dict(config.options))


def replay(engine: Engine, record: GameRecord, at: int | None = None) -> Replayed:
    """The game of ``record`` replayed up to version ``at`` (the end if ``None``), checked
    against everything the record says: ``record-plugins``, ``unknown-version`` (``at``),
    ``record-not-replayable``, each naming what is wrong."""
    game, events = _created(engine, record, at)
    lobbies.register(engine)
    actions = record.actions[: record.version if at is None else at]
    logged = _read(engine, game, actions)
    applied: list[bytes] = []

    def each(_game: Game, made: actionlog.Record, new: list[Event]) -> None:
        events.extend(new)
        applied.append(made.encode())

    try:
        game = engine.log.replay(game, logged, each=each)  # the core's one replay loop
    except errors.DarkroadError as exc:
        # ``each`` heard of every version made before it: the failing action is the next one.
        raise refused("record-not-replayable", f"The {_where(actions[len(applied)])} does not replay: "
                                               f"{exc}") from exc
    if at is None:
        _check_ending(engine, record, game)
    return Replayed(game, events, applied)


def _read(engine: Engine, game: Game, actions: Sequence[RecordAction]) -> list[actionlog.Record]:
    """The action log's records of ``actions`` (a record's, played on ``game``), checked before
    any is replayed: versions 1, 2, 3, ... on from the game's, seats the game has, each an
    action the log reads (``record-not-replayable`` naming the first that is not)."""
    logged = []
    for version, entry in enumerate(actions, start=game.version + 1):
        if entry.version != version:
            raise refused("record-not-replayable", f"The {_where(entry)} follows version {version - 1}: "
                                                   "versions must go 1, 2, 3, ...")
        if entry.seat >= game.config.players:
            raise refused("record-not-replayable", f"The {_where(entry)} names a seat the game does not have.")
        try:
            logged.append(_logged(engine, entry))
        except errors.DarkroadError as exc:
            raise refused("record-not-replayable", f"The {_where(entry)} does not replay: {exc}") from exc
    return logged


def _where(entry: RecordAction) -> str:
    return f"action at version {entry.version} ({entry.type} {entry.option!r} of seat {entry.seat})"


def _logged(engine: Engine, entry: RecordAction) -> actionlog.Record:
    """The record of the action log a record's action is (``BadAction`` when it is none)."""
    if entry.type == SEAT_CHANGE:
        return actionlog.ServiceRecord(SEAT_CHANGE, entry.option, entry.seat, entry.events or 0, entry.time)
    return engine.log.read({"type": entry.type, "seat": entry.seat, "option": entry.option,
                            **({} if entry.time is None else {actionlog.TIME: entry.time})})


def _created(engine: Engine, record: GameRecord, at: int | None) -> tuple[Game, list[Event]]:
    """The game ``record`` begins with, once the record's plugins, version ``at`` and length
    are checked."""
    check_plugins(engine, record)
    if at is not None and not 0 <= at <= record.version:
        raise refused("unknown-version", f"`at` must be a version of the record, 0 to {record.version}; got {at}.")
    if len(record.actions) != record.version:
        raise refused("record-not-replayable", f"The record's version is {record.version} but it has "
                                               f"{len(record.actions)} action(s).")
    try:
        game, events = engine.create(config_of(record))
    except errors.DarkroadError as exc:
        raise refused("record-not-replayable", f"The record's config makes no game here: {exc}") from exc
    if game.config.plugins != record.plugins:
        raise refused("record-not-replayable", f"The record names plugins {record.plugins}, but its game "
                                               f"uses {game.config.plugins}.")
    return game, events


def _check_ending(engine: Engine, record: GameRecord, game: Game) -> None:
    """That ``game``, ``record`` replayed to its end, ended as the record says."""
    if game.finished != record.finished:
        raise refused("record-not-replayable", f"The record says the game is "
                                               f"{'' if record.finished else 'not '}finished; replayed, it is "
                                               f"{'' if game.finished else 'not '}finished.")
    if record.result is not None:
        view = engine.view(game, None)
        if record.result.score != view["score"] or record.result.winners != view["winners"]:
            raise refused("record-not-replayable", "The record's result differs from its replay's: "
                                                   f"winners {record.result.winners} vs {view['winners']}.")


def imported_lobby(engine: Engine, record: GameRecord, game: Game, now: float | None = None) -> Lobby:
    """The seats of a game imported from ``record``: the record's names; a player's seat (or an
    open one) a player's again, with a fresh token; a bot's seat the same bot's (``unknown-bot``
    if it is not installed)."""
    by_seat = {seat.seat: seat for seat in record.seats}
    seats = []
    for player in game.players:
        seat = by_seat.get(player.seat)
        if player.kind != HUMAN:
            seats.append(LobbySeat(player.kind, name=engine.seat_kinds[player.kind].name))
        elif seat is not None and seat.kind == "bot" and seat.bot is not None:
            if game_setup.bot_problems(engine, [seat.bot]):
                raise refused("unknown-bot", f"Seat {player.seat} of the record is played by bot {seat.bot!r}, "
                                             "which this server does not have.")
            seats.append(LobbySeat("bot", name=seat.name, bot=seat.bot))
        else:
            seats.append(LobbySeat("human", name=None if seat is None else seat.name))
    return Lobby(seats=seats, created=time.time() if now is None else now, started=True,
                 config=lobbies.config_summary(game, engine.seat_kinds))


def entries_of(raw_entries: Iterable[bytes]) -> list[dict[str, Any]]:
    """The decoded entries of an action list, without their times (``lobby.replay`` reads them)."""
    return [stored_action(msgspec.json.decode(raw)) for raw in raw_entries]
