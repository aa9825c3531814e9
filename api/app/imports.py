"""Importing a game record: a new game replayed from it, with fresh seat tokens.

The record is replayed and checked whole (:func:`darkroad.api.app.records.replay`) before
anything is written; the new game is then created in one step of the store, with the
replayed state, the action list and the events up to the version asked for, so a refused
record stores nothing and an accepted one is a game like any other (its own history, its
own record once finished). Stopped before its end, it is a running game to play on.
"""

from __future__ import annotations

from darkroad.api.app import lobby as lobbies
from darkroad.api.app import records
from darkroad.api.app.auth import new_token
from darkroad.api.app.reading import Reading
from darkroad.api.app.repository import GameRepository
from darkroad.api.app.values import CreatedGame


class Imports:
    """Creates games from records."""

    def __init__(self, games: GameRepository, reading: Reading) -> None:
        self.games = games
        self.engine = games.engine
        self.reading = reading

    async def create(self, record: records.GameRecord, at: int | None = None) -> CreatedGame:
        """A new game replayed from ``record`` up to version ``at`` (its end if ``None``), with
        a fresh token for each player's seat; ``record-plugins``, ``unknown-version``,
        ``record-not-replayable`` or ``unknown-bot`` (nothing stored) when it cannot be."""
        replayed = records.replay(self.engine, record, at)
        game = replayed.game
        lobby = records.imported_lobby(self.engine, record, game, self.games.clock())
        tokens = [new_token() if seat.kind == "human" else None for seat in lobby.seats]
        # A bot awaited in the imported game gets its job with the game (a bot worker plays it).
        stored = await self.games.create(game, replayed.events, tokens, lobby, replayed.applied)
        return CreatedGame(
            id=stored.id,
            version=stored.version,
            tokens=tokens,
            seats=lobbies.seat_views(lobby, [], self.reading.seat_names),
            status=lobbies.status(lobby, stored.finished),
        )
