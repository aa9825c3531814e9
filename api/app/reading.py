"""Reading a game: who the caller is, and what they may see of it (view, actions, score)."""

from __future__ import annotations

from typing import Any

import msgspec

from darkroad.api.app import lobby as lobbies
from darkroad.api.app.auth import seat_of
from darkroad.api.app.lobby import Lobby
from darkroad.api.app.repository import GameRepository
from darkroad.api.app.service_errors import ServiceError
from darkroad.api.app.values import Caller
from darkroad.core import Game
from darkroad.core.view import EncodedPlayers

_encode = msgspec.json.encode


class Reading:
    """The caller's view of a game, their legal actions and the final score."""

    def __init__(self, games: GameRepository) -> None:
        self.games = games
        self.engine = games.engine
        self.seat_names = lobbies.SeatNames(self.engine)
        """Display name of each installed seat kind (the automated seats' names in views) and bot
        (a bot seat's created without a name)."""
        self.encoded = EncodedPlayers(self.engine)
        """The players' blocks (from 3 players) and games' config blocks of the views answered
        lately, encoded: most are the same in the next view."""

    async def caller(self, game_id: str, token: str | None) -> Caller:
        """Load the game and identify the caller by ``token`` (``None``: a spectator;
        ``unknown-game``, ``invalid-token``)."""
        stored = await self.games.load(game_id)
        return Caller(stored, None if token is None else seat_of(token, stored.token_hashes))

    def view(self, caller: Caller) -> bytes:
        """The caller's view of the game, as JSON."""
        return self.view_of(self.games.game(caller.stored), caller.seat, lobbies.decode(caller.stored.lobby))

    def view_of(self, game: Game, seat: int | None, lobby: Lobby | None) -> bytes:
        """``seat``'s view of ``game`` with its ``lobby``, as JSON."""
        return _encode(lobbies.game_view(self.engine, game, seat, lobby, self.seat_names, self.encoded))

    @staticmethod
    def status(caller: Caller) -> str:
        """``waiting``, ``active`` or ``finished``."""
        return lobbies.status(lobbies.decode(caller.stored.lobby), caller.stored.finished)

    def legal_actions(self, caller: Caller) -> list[dict[str, Any]]:
        """Every legal action of the caller's seat, ready to be submitted unchanged (none while
        the game waits for players, or while a bot plays the seat)."""
        if caller.seat is None:
            return []
        lobby = lobbies.decode(caller.stored.lobby)
        if lobby is not None and (lobby.waiting or lobby.bot_of(caller.seat) is not None):
            return []
        game = self.games.game(caller.stored)
        actions = self.engine.legal_actions(game, caller.seat)
        listed = [self.engine.action_to_json(action) for action in actions]
        details = self.engine.details(game, caller.seat) if actions else {}
        if details:  # what an answer gives, in words (the decision's own answers: not a companion's)
            kind = actions[0].type
            for entry in listed:
                found = details.get(entry["option"]) if entry["type"] == kind else None
                if found:
                    entry["details"] = found
        return listed

    def score(self, caller: Caller) -> dict[str, Any]:
        """The final score breakdown and winners (``game-not-finished`` before the end)."""
        game = self.games.game(caller.stored)
        if not game.finished:
            raise ServiceError("game-not-finished", "The game is still being played.")
        view = self.engine.view(game, caller.seat)
        return {"version": game.version, "score": view["score"], "winners": view["winners"]}
