"""A game's past: the view at any version, as the caller may see it, and its record.

The store keeps a game's config (in its state), its action list and its event log; the engine
replays a game exactly. A :class:`Timeline` is a game replayed once: the state after every
version (zlib-compressed), where each version's events start in the log, and the log itself.
This process keeps the timelines of the games last asked about (:class:`History`), so that
stepping through a whole game costs one replay and then a decode and a view per step; a
timeline of a running game is extended by the actions committed since, not replayed again.

What a caller sees at a version is what they saw then: the engine's view of the state at that
version for the caller's seat (a spectator's without a token) and the events of that version
they may see. A seat's token shows only that seat's past, so nothing hidden at a version is
shown by it.
"""

from __future__ import annotations

import zlib
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from darkroad.api.app import clock_history, records
from darkroad.api.app import lobby as lobbies
from darkroad.api.app.lobby import Lobby
from darkroad.api.app.reading import Reading
from darkroad.api.app.repository import GameRepository
from darkroad.api.app.service_errors import ServiceError
from darkroad.api.app.values import Caller
from darkroad.api.store.base import StoredEvent, StoredGame
from darkroad.core import Game, actionlog

TIMELINES = 16
"""Games whose timelines a process keeps (a 4-player game's is about 1.5 MB)."""
_LOG_PAGE = 500


@dataclass(slots=True)
class Timeline:
    """A game replayed: its state after every version, and where each version's events are."""

    tag: str
    """The tag of the last version replayed (see ``StoredGame.tag``)."""
    states: list[bytes]
    """The state after each version, 0 to the last (``Engine.dumps``, zlib-compressed)."""
    ends: list[int]
    """The number of events logged once each version was made (version v's are ``ends[v - 1]``
    to ``ends[v]``, version 0's from 0)."""
    entries: list[actionlog.Record]
    """The action list's records, as the core's log reads them (entry ``i`` made version ``i + 1``)."""
    log: list[StoredEvent]
    awaited: list[tuple[int, ...]] | None = None
    """A clock game's seats awaited at each version (``None``: not a clock game)."""
    clocks: list[clock_history.SeatClocks] | None = None
    """A clock game's seat clocks at each version, once a view asked (``clock_history``)."""

    @property
    def version(self) -> int:
        return len(self.states) - 1


def lobby_at(lobby: Lobby | None, entries: Sequence[actionlog.Record], version: int) -> Lobby | None:
    """The seats as they were at ``version``, from the current ``lobby`` and the changes of seats
    after ``version``, undone one by one (without the turn clock: ``timeout_at`` is null). A
    player who left a seat is shown without their name, which the game does not keep."""
    if lobby is None:
        return None
    past = lobby.copy()
    for seat in past.seats:
        seat.since = None
    for entry in reversed(entries[version:]):
        change = lobbies.seat_change(entry)
        if change is None:
            continue
        seat = past.seats[entry.seat]
        if change == "joined":
            seat.kind, seat.name, seat.joined = "open", None, None
            past.started = False
        elif change == "left":
            seat.kind, seat.name = "human", None
        elif change == "replaced":
            seat.replaced, seat.bot = False, None
        elif change == "reclaimed":
            seat.replaced, seat.bot = True, past.timeout_bot
    return past


class History:
    """The views of games at past versions, with their events, and finished games' records."""

    def __init__(self, games: GameRepository, reading: Reading, size: int = TIMELINES) -> None:
        self.games = games
        self.engine = games.engine
        self.reading = reading
        self.size = size
        self.timelines: OrderedDict[str, Timeline] = OrderedDict()
        """The timelines of the games last asked about, by game id (each checked against the
        stored version and tag before use). Its gain: stepping through a game's history costs a
        decode and a view a step (median 0.13 ms) instead of a replay of the game (163 ms for a
        whole 4-seat game), ``python benchmarks/history.py --games 2 --rounds 3``."""

    async def at(self, caller: Caller, version: int) -> bytes:
        """The ``HistoryEntry`` of the caller's game at ``version`` as JSON: the caller's view
        then and the events of that version the caller may see (``unknown-version`` past the
        game's current version)."""
        stored = caller.stored
        if not 0 <= version <= stored.version:
            raise ServiceError("unknown-version", "The game has versions 0 to %(last)d; there is no version %(asked)d.",
                               version=stored.version, last=stored.version, asked=version)
        timeline = await self.timeline(stored)
        view = self.view(stored, timeline, version, caller.seat)
        start = timeline.ends[version - 1] if version else 0
        events = [event.payload for event in timeline.log[start:timeline.ends[version]]
                  if event.visible_to(caller.seat)]
        return b"".join((b'{"version":%d,"latest":%d,"finished":%s,"view":' % (
            version, stored.version, b"true" if stored.finished else b"false"), view, b',"events":[',
            b",".join(events), b"]}"))

    async def answer(self, stored: StoredGame, version: int, seat: int, since: list[float | None] | None,
                     banks: list[float | None] | None = None) -> bytes:
        """``seat``'s view at ``version`` exactly as an action's answer showed it then (a retried
        request's, whose idempotency record keeps only the version, the seat and, in a game with
        a turn timeout or a clock, the seats' clocks ``since`` and time ``banks``)."""
        if stored.version == version:  # nothing happened since: the stored game is the answer's
            return self.reading.view_of(self.games.game(stored), seat, lobbies.decode(stored.lobby))
        timeline = await self.timeline(stored)
        if since is None:
            return self.view(stored, timeline, version, seat)
        lobby = lobby_at(lobbies.decode(stored.lobby), timeline.entries, version)
        if lobby is not None:
            for record, clock in zip(lobby.seats, since, strict=False):
                record.since = clock
            for record, bank in zip(lobby.seats, banks or (), strict=False):
                record.bank = bank
        return self.reading.view_of(self.state(timeline, version), seat, lobby)

    def view(self, stored: StoredGame, timeline: Timeline, version: int, seat: int | None) -> bytes:
        """``seat``'s view (JSON) at ``version`` of the game of ``timeline``, as it was answered then."""
        # Rendered anew each time: a replay page asks for each version once (web/src/replay.ts
        # keeps what it fetched).
        game = self.state(timeline, version)
        current = lobbies.decode(stored.lobby)
        lobby = lobby_at(current, timeline.entries, version)
        if current is not None and lobby is not None and lobby.clock is not None and timeline.awaited is not None:
            if timeline.clocks is None:  # the banks as they were, not as they are
                start = lobby_at(current, timeline.entries, 0)
                assert start is not None
                timeline.clocks = clock_history.clocks_by_version(start, timeline.entries,
                                                                  timeline.awaited)
            clock_history.set_clocks(lobby, timeline.clocks[version])
        return self.reading.view_of(game, seat, lobby)

    def state(self, timeline: Timeline, version: int) -> Game:
        """A fresh copy of the game at ``version``."""
        return self.engine.loads(zlib.decompress(timeline.states[version]))

    async def timeline(self, stored: StoredGame) -> Timeline:
        """The timeline of ``stored`` up to its version: kept, extended, or replayed anew."""
        kept = self.timelines.get(stored.id)
        if kept is not None and (kept.version > stored.version
                                 or (kept.version == stored.version and kept.tag != stored.tag)):
            kept = None  # the store lost versions this process saw (a failover): replay again
        if kept is not None and kept.version == stored.version:
            self.timelines.move_to_end(stored.id)
            return kept
        timeline = await self._replay(stored, kept)
        self.timelines[stored.id] = timeline
        self.timelines.move_to_end(stored.id)
        while len(self.timelines) > self.size:
            self.timelines.popitem(last=False)
        return timeline

    async def _replay(self, stored: StoredGame, kept: Timeline | None) -> Timeline:
        engine = self.engine
        lobbies.register(engine)
        entries = [engine.log.read(raw) for raw in (await self.games.store.actions(stored.id))[: stored.version]]
        lobby = lobbies.decode(stored.lobby)
        clocked = lobby is not None and lobby.clock is not None
        if len(entries) < stored.version:
            raise ServiceError("unknown-version", "The game's action list holds %(held)d of its %(versions)d versions; "
                                                  "its history is incomplete.", held=len(entries), versions=stored.version)
        if kept is None:
            config = self.games.game(stored).config
            game = engine.replay(config, [])
            states = [zlib.compress(engine.pack(game), 1)]
            ends = [game.events]
            log: list[StoredEvent] = []
            awaited = [tuple(engine.awaiting(game))] if clocked else None
        else:
            game = self.state(kept, kept.version)
            states, ends, log = list(kept.states), list(kept.ends), list(kept.log)
            awaited = None if kept.awaited is None else list(kept.awaited)
        def each(game: Game, record: object, events: object) -> None:
            states.append(zlib.compress(engine.pack(game), 1))
            ends.append(game.events)
            if awaited is not None:
                awaited.append(tuple(engine.awaiting(game)))

        # The core's one replay loop; an undo goes back to a version this timeline holds.
        engine.log.replay(game, entries[len(states) - 1:], each=each,
                          earlier=lambda k: engine.loads(zlib.decompress(states[k])))
        after = log[-1].n if log else -1
        while after + 1 < ends[-1]:
            page = await self.games.store.events(stored.id, after, _LOG_PAGE)
            if not page:
                break
            log += page
            after = page[-1].n
        # The log's positions are the events' numbers; an imported game's log may lack the
        # events of its changes of seats, so index by number, filling the gaps.
        return Timeline(stored.tag, states, ends, entries, _by_number(log, ends[-1]), awaited)

    async def record(self, caller: Caller) -> records.GameRecord:
        """The record of the caller's game (``game-not-finished`` while it is played: its seed
        would show every hidden card)."""
        stored = caller.stored
        if not stored.finished:
            raise ServiceError("game-not-finished", "A game's record is handed out once it is finished: its "
                                                    "seed deals every hidden card.")
        raw = (await self.games.store.actions(stored.id))[: stored.version]
        return records.build(self.engine, stored.id, self.games.game(stored), lobbies.decode(stored.lobby), raw,
                             self.reading.seat_names)


_HIDDEN = StoredEvent(-1, frozenset(), b"null")
"""Stands in for an event missing from a log (an imported game's change of seats): seen by no one."""


def _by_number(log: list[StoredEvent], count: int) -> list[StoredEvent]:
    if len(log) >= count and all(event.n == n for n, event in enumerate(log[:count])):
        return log[:count]
    numbered = {event.n: event for event in log}
    return [numbered.get(n, _HIDDEN) for n in range(count)]


def encode_record(record: records.GameRecord) -> bytes:
    return msgspec.json.encode(record)
