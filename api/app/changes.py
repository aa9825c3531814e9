"""What one commit writes: a game changed from one version to the next.

Every way a game changes (a seat's action, an undo, an answer withdrawn after a plugin failed,
a bot's move, a change of seats, a turn clock's hand-over to a bot) makes a :class:`Change`,
and :meth:`GameRepository.commit <darkroad.api.app.repository.GameRepository.commit>` is the
one function that turns a change into the store's :class:`~darkroad.api.store.base.Commit`.
So whatever a commit carries besides the change (the action list's entry with its time, the
stored events and their audiences, the bot job and turn deadline the new version leaves, its
expiry, the idempotency record) is decided in one place for every kind of change.

A change is made from a game *taken* from the repository (``GameRepository.take``: out of the
cache while it changes), so that no other request sees a version that is not committed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from darkroad.api.app.cache import CachedGame
from darkroad.api.app.lobby import Lobby
from darkroad.core import Action, Engine, Event, Game
from darkroad.core.actionlog import answer_entry


@dataclass(slots=True)  # not frozen: see darkroad.api.store.base
class Change:
    """A game changed from version ``expected``: the new game, the action list's entry that
    replays the change, its events, and the seats' records when they changed."""

    game: Game
    """The game after the change (its version is the one the commit writes)."""
    expected: int
    """The version the change was made on: the commit's compare-and-set expects it."""
    entry: bytes
    """The action list's entry (JSON; the commit stamps it with its time)."""
    events: Sequence[Event]
    lobby: Lobby | None = None
    """The lobby after the change, when it changed (a turn clock, a seat); else ``None``."""
    token_hashes: tuple[str, ...] | None = None
    """The seats' token hashes after the change, when they changed; else ``None``."""
    at: float | None = None
    """When the change tracked the seats' clocks (Unix seconds): the commit stamps the entry
    with it, so that a clock game's history replays its banks exactly (``clock_history``);
    ``None``: when it is committed."""


def play(engine: Engine, taken: CachedGame, action: Action, now: float) -> Change:
    """Apply ``action`` to the game of ``taken`` (which it mutates) as a seat's answer: the
    change, with the acting seat's turn clock started again at ``now`` when the game has a turn
    timeout. Used alike for a player's action and a bot's move.

    Raises what :meth:`Engine.apply` raises: ``IllegalAction`` leaves the game untouched, a
    ``PluginError`` spoils it (the caller drops it)."""
    game = taken.game
    expected = game.version
    events = engine.apply(game, action)
    lobby = taken.lobby
    if lobby is not None and lobby.timed:
        lobby = lobby.copy()
        lobby.track(engine.awaiting(game), action.seat, now)
    else:
        lobby = None  # unchanged
    return Change(game, expected, answer_entry(action), events, lobby, at=now if lobby is not None else None)
