"""Importing a game record: a new game replayed from it, with fresh seat tokens.

The record is replayed and checked whole (:func:`darkroad.api.app.records.replay`) before
anything is written; the new game is then created in one step of the store, with the
replayed state, the action list and the events up to the version asked for, so a refused
record stores nothing and an accepted one is a game like any other (its own history, its
own record once finished). Stopped before its end, it is a running game to play on.
"""

from __future__ import annotations

import secrets

from darkroad.api.app import lobby as lobbies
from darkroad.api.app import records
from darkroad.api.app.auth import hash_token, new_token
from darkroad.api.app.bots import Bots
from darkroad.api.app.cache import CachedGame
from darkroad.api.app.reading import Reading
from darkroad.api.app.repository import GameRepository
from darkroad.api.app.seats import GAME_ID_BYTES
from darkroad.api.app.values import CreatedGame
from darkroad.api.store.base import NewGame, StoredGame


class Imports:
    """Creates games from records."""

    def __init__(self, games: GameRepository, reading: Reading, bots: Bots) -> None:
        self.games = games
        self.engine = games.engine
        self.reading = reading
        self.bots = bots

    async def create(self, record: records.GameRecord, at: int | None = None) -> CreatedGame:
        """A new game replayed from ``record`` up to version ``at`` (its end if ``None``), with
        a fresh token for each player's seat; ``record-plugins``, ``unknown-version``,
        ``record-not-replayable`` or ``unknown-bot`` (nothing stored) when it cannot be."""
        replayed = records.replay(self.engine, record, at)
        game = replayed.game
        lobby = records.imported_lobby(self.engine, record, game, self.games.clock())
        tokens = [new_token() if seat.kind == "human" else None for seat in lobby.seats]
        token_hashes = tuple("" if token is None else hash_token(token) for token in tokens)
        game_id = secrets.token_urlsafe(GAME_ID_BYTES)
        tag = self.games.new_tag()
        state = self.engine.dumps(game)
        raw_lobby = lobbies.encode(lobby)
        await self.games.store.create(
            NewGame(
                id=game_id,
                version=game.version,
                state=state,
                finished=game.finished,
                token_hashes=token_hashes,
                events=self.games.stored_events(game, replayed.events),
                ttl=self.games.ttl(game, lobby),
                tag=tag,
                lobby=raw_lobby,
                actions=replayed.applied,
            )
        )
        self.games.cache.put(game_id, CachedGame(game, token_hashes, tag, lobby))
        self.games.metrics.games_created.inc()
        stored = StoredGame(game_id, game.version, state, game.finished, token_hashes, tag, lobby=raw_lobby)
        stored = await self.bots.settle(stored, None)
        return CreatedGame(
            id=game_id,
            version=stored.version,
            tokens=tokens,
            seats=lobbies.seat_views(lobby, [], self.reading.seat_names),
            status=lobbies.status(lobby, stored.finished),
        )
