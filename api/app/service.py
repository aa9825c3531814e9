"""The application services of one process, wired together over one repository of games.

Each piece does one job (the layout of this package):

* :class:`~darkroad.api.app.repository.GameRepository`: load, take and commit games, with the
  process's cache of decoded games;
* :class:`~darkroad.api.app.reading.Reading`: who the caller is, and their view, legal actions
  and score;
* :class:`~darkroad.api.app.acting.Acting`: actions, committed once (idempotency,
  compare-and-set retries);
* :class:`~darkroad.api.app.seating.Seats`: creating games with their seats, the listing of
  waiting games, join, rejoin, leave, timeout, reclaim;
* :class:`~darkroad.api.app.following.Following`: the event log, the long poll and streams;
* :class:`~darkroad.api.app.timelines.History`: the views at past versions, and records;
* :class:`~darkroad.api.app.imports.Imports`: new games replayed from records;
* :class:`~darkroad.api.app.webhooks.Webhooks`: seats' webhook subscriptions.

Every change of a game (an action, an undo, a change of seats, a bot's move) is committed by
one function, :meth:`GameRepository.commit`, from a :class:`~darkroad.api.app.changes.Change`.
The bots play apart, in bot workers (:mod:`darkroad.api.app.bot_worker`, thinking in
:mod:`~darkroad.api.app.bot_pool`; the turn clocks in :mod:`~darkroad.api.app.turn_clocks`):
the commits here only enqueue their jobs.

The HTTP edge (``darkroad.api.http``) calls them with domain values and maps their
:class:`~darkroad.api.app.service_errors.ServiceError` to problem details.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from darkroad.api.app.acting import Acting
from darkroad.api.app.following import Following
from darkroad.api.app.imports import Imports
from darkroad.api.app.reading import Reading
from darkroad.api.app.repository import GameRepository
from darkroad.api.app.seat_changes import SeatChanges
from darkroad.api.app.seating import Seats
from darkroad.api.app.timelines import History
from darkroad.api.app.webhooks import Webhooks
from darkroad.api.metrics import Metrics
from darkroad.api.settings import Settings
from darkroad.api.store.base import GameStore
from darkroad.core import Engine


class GameService:
    """The services of games kept in ``store``, played by ``engine``."""

    def __init__(
        self,
        engine: Engine,
        store: GameStore,
        settings: Settings,
        metrics: Metrics,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.engine = engine
        self.store = store
        self.settings = settings
        self.metrics = metrics
        self.games = GameRepository(engine, store, settings, metrics, clock)
        self.reading = Reading(self.games)
        self.seat_changes = SeatChanges(self.games)
        self.history = History(self.games, self.reading)
        self.acting = Acting(self.games, self.reading, self.history)
        self.seats = Seats(self.games, self.reading, self.seat_changes)
        self.following = Following(self.games)
        self.imports = Imports(self.games, self.reading)
        self.webhooks = Webhooks(self.games)

    def close(self) -> None:
        """Nothing to stop (kept for the app's lifespan: the bots play in bot workers)."""
