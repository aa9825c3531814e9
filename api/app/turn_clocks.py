"""Turn clocks: a seat that does not decide within its game's ``turn_timeout``, or whose time bank
(``clock``) runs out, is handed to the game's timeout bot; a seat whose bank falls under a tenth
is told so (``seat_clock_low``, and a ``clock`` webhook message).

Every version with awaited human seats under a ``turn_timeout`` sets the game's deadline in a
sorted set, in the commit's atomic step (``GameStore.commit``). :class:`TurnClocks` looks for
deadlines passed (every ``CLOCK_INTERVAL`` in a bot worker) and hands each overdue seat to the
game's timeout bot: a change of seats, committed like any other
(:meth:`SeatChanges.change <darkroad.api.app.seat_changes.SeatChanges.change>`), whose commit
then enqueues the bot's job. Nobody needs to read the game.
"""

from __future__ import annotations

import logging

from darkroad.api.app.lobby import Lobby
from darkroad.api.app.seat_changes import SeatChange, SeatChanges
from darkroad.api.app.service_errors import ServiceError
from darkroad.api.store.base import GameStore, StoredGame
from darkroad.core import Game

logger = logging.getLogger("darkroad.api.bots")


class TurnClocks:
    """Hands the overdue seats of the games in ``store`` to their timeout bots."""

    def __init__(self, store: GameStore, seat_changes: SeatChanges) -> None:
        self.store = store
        self.seat_changes = seat_changes
        self.games = seat_changes.games

    async def tick(self) -> list[str]:
        """Hand every seat past its deadline to its game's timeout bot; the games changed."""
        now = self.games.clock()
        handed = []
        for shard in self.store.job_shards():
            for game_id, deadline in await self.store.due_clocks(shard, now, 100):
                if await self.hand_over(shard, game_id, deadline):
                    handed.append(game_id)
        return handed

    async def hand_over(self, shard: str, game_id: str, deadline: float) -> bool:
        """Hand the overdue seats of ``game_id`` to its timeout bot (a seat change each)."""
        stored = await self.store.load(game_id)
        if stored is None or stored.finished:
            await self.store.stop_clock(shard, game_id, deadline)
            return False

        def replace(current: StoredGame, game: Game, lobby: Lobby | None, tokens: list[str]) -> SeatChange | None:
            if lobby is None or current.finished:
                return None
            now = self.games.clock()
            awaiting = self.games.engine.awaiting(game)
            # A time bank under a tenth is told first, even one found empty already (the clocks
            # are looked at every second or so): then the hand-over, on the next change.
            low = [seat for seat in awaiting if lobby.low(seat, now)]
            if low:
                return self.seat_changes.clock_low(lobby, low[0])
            overdue = [seat for seat in awaiting if lobby.overdue(seat, now)]
            return self.seat_changes.hand_to_bot(lobby, overdue[0]) if overdue else None

        changed = False
        try:
            while True:
                stored, change = await self.seat_changes.change(game_id, replace, stored)
                if change is None:
                    break
                changed = True
        except ServiceError as exc:  # kept changing (players acting): the next tick tries again
            logger.info("game %s: hand-over postponed (%s)", game_id, exc)
        return changed
