"""Changes of seats (join, rejoin, leave, a timeout's hand-over to a bot, reclaim), each
committed as a version of its own with its events, like an action, so that a game still
replays from its action list."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from darkroad.api.app import lobby as lobbies
from darkroad.api.app.cache import CachedGame
from darkroad.api.app.changes import Change
from darkroad.api.app.lobby import Lobby
from darkroad.api.app.repository import GameRepository
from darkroad.api.app.service_errors import ServiceError
from darkroad.api.store.base import IdempotencyRecord, Outcome, StoredGame
from darkroad.core import Game


@dataclass(frozen=True, slots=True)
class SeatChange:
    """What a change of seats writes: the action list's record and the events."""

    kind: str
    seat: int
    events: list[tuple[str, int | None, dict[str, Any]]]
    token: str | None = None
    """A join's new token."""
    acted: bool = True
    """The seat's player acted (a turn timeout counts from now; a time bank gets the increment);
    not so for a rejoin, which only replaces the token, a hand-over to a bot or a reclaim (a
    seat awaited again counts from now all the same)."""


def seat_change(games: GameRepository, taken: CachedGame, change: SeatChange, lobby: Lobby,
                token_hashes: tuple[str, ...] | None) -> Change:
    """``change`` of seats made on the game of ``taken`` (which it mutates), leaving ``lobby``
    and ``token_hashes`` (``None``: unchanged): a version of its own with its events, the turn
    clocks tracked."""
    game = taken.game
    expected = game.version
    # The core's log numbers the events and the version (ActionLog.record).
    record, events = games.engine.log.record(game, lobbies.SEAT_CHANGE, change.kind, change.seat, change.events)
    if change.kind == "joined":  # the version a retry of the join names (LobbySeat.joined)
        lobby.seats[change.seat].joined = game.version
    now = games.clock()
    lobby.track(games.engine.awaiting(game), change.seat if change.acted else None, now)
    return Change(game, expected, record.encode(), events, lobby, token_hashes, at=now)


class KeyUsed(Exception):
    """A join's ``Idempotency-Key`` was recorded by another request meanwhile (nothing written)."""


Decide = Callable[[StoredGame, Game, Lobby | None, list[str]], SeatChange | None]
"""Decides a change of seats on the game as stored, its lobby and token hashes (copies, which
it changes), raising a :class:`ServiceError` when it refuses; ``None``: nothing to change."""


class SeatChanges:
    """Commits changes of seats, and keeps the index of waiting games in step."""

    def __init__(self, games: GameRepository) -> None:
        self.games = games

    async def change(
        self,
        game_id: str,
        decide: Decide,
        stored: StoredGame | None = None,
        record: Callable[[Game], IdempotencyRecord] | None = None,
    ) -> tuple[StoredGame, SeatChange | None]:
        """Commit the change of seats ``decide`` makes as a version of its own, with its
        events; on a stale version, decide again on the current one. ``stored``: the game as
        last read (else it is loaded). ``record``: the client's idempotency record for the
        changed game, committed with it (:class:`KeyUsed` when another request's already
        exists)."""
        games = self.games
        stored = stored or await games.load(game_id)
        for _ in range(games.settings.commit_attempts):
            lobby = lobbies.decode(stored.lobby)
            tokens = list(stored.token_hashes)
            change = decide(stored, games.game(stored), lobby, tokens)
            if change is None:
                return stored, None
            assert lobby is not None
            entry = games.take(stored)
            hashes = tuple(tokens)
            committed = seat_change(games, entry, change, lobby, None if hashes == stored.token_hashes else hashes)
            client_record = None if record is None else record(committed.game)
            outcome, stored = await games.commit(game_id, entry, committed, client_record)
            if outcome.outcome is Outcome.REPLAYED and client_record is not None and outcome.replay != client_record.result:
                raise KeyUsed
            if outcome.outcome is not Outcome.STALE:
                return stored, change
        raise ServiceError("stale-version", "The game kept changing; retry.", version=stored.version)

    def hand_to_bot(self, lobby: Lobby, seat: int) -> SeatChange:
        """Hand ``seat`` (overdue) to the game's timeout bot, in ``lobby``."""
        lobby.spend(seat, self.games.clock())  # a time bank stops (empty, when it ran out)
        record = lobby.seats[seat]
        record.replaced, record.bot, record.since = True, lobby.timeout_bot, None
        self.games.metrics.seats.inc("replaced")
        return SeatChange("replaced", seat, [("seat_replaced", seat, {"bot": lobby.timeout_bot})], acted=False)

    def clock_low(self, lobby: Lobby, seat: int) -> SeatChange:
        """Tell ``seat`` (and everyone) that its time bank fell under a tenth, in ``lobby``
        (``seat_clock_low``; with a webhook, a ``clock`` message)."""
        lobby.seats[seat].warned = True
        remaining = round(lobby.bank(seat, self.games.clock()), 3)
        return SeatChange("clock_low", seat, [("seat_clock_low", seat, {"remaining": remaining})], acted=False)

    async def index(self, game_id: str, lobby: Lobby, version: int) -> None:
        """Make the index of waiting games agree with ``lobby``, the game's at ``version``
        (idempotent).

        The index is written after the seat change's commit, so racing seat changes may write
        it out of order: a join that left the game waiting could list it after the join that
        started it unlisted it. A game leaves the waiting state only by starting, for good, so
        only a listing can be stale: after listing, the game is read again, and when it has
        moved on, the index follows its current state."""
        store = self.games.store
        for _ in range(self.games.settings.commit_attempts):
            if not lobby.listed:
                return
            if not lobby.waiting:
                await store.unlist_waiting(lobby.entry(game_id))
                return
            await store.list_waiting(lobby.entry(game_id))
            current = await store.load(game_id)
            if current is None:  # expired meanwhile
                await store.unlist_waiting(lobby.entry(game_id))
                return
            if current.version == version:
                return
            fresh = lobbies.decode(current.lobby)
            if fresh is None:
                return
            lobby, version = fresh, current.version
