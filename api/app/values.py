"""The domain values the services take and give: who calls, what they expect, what they get.

The HTTP edge builds the inputs from a request (a seat token from ``Authorization``, the
versions of ``If-Match``, an ``Idempotency-Key``, a parsed action) and shapes the outputs
into responses; nothing here knows of HTTP.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

from darkroad.api.store.base import StoredEvent, StoredGame


@dataclass(slots=True)  # not frozen: see darkroad.api.store.base
class Expected:
    """The versions a request is made for (``If-Match``): it acts only on one of them."""

    versions: frozenset[int]

    def admits(self, version: int) -> bool:
        return version in self.versions


def admits(expected: Expected | None, version: int) -> bool:
    """Whether a request expecting ``expected`` (``None``: any version) may act on ``version``."""
    return expected is None or expected.admits(version)


class SeatSpec(NamedTuple):
    """One seat of a new game, as the creator asks for it."""

    kind: str
    """``human``, ``open`` or ``bot``."""
    name: str | None = None
    bot: str | None = None
    think_time: float | None = None
    """A bot seat's seconds per decision (a bot that takes ``think_time``); ``None``: its default."""


@dataclass(frozen=True, slots=True)
class Seating:
    """Who sits where in a new game (``NewGame.seats`` and the fields that go with it)."""

    seats: list[SeatSpec] | None = None
    """Every seat a player takes (an automated seat kind's excepted); ``None``: every seat
    ``human``, without names."""
    listed: bool | None = None
    turn_timeout: int | None = None
    timeout_bot: str | None = None
    clock: tuple[float, float] | None = None
    """The seats' time banks: seconds ``initial`` and ``increment`` per decision."""


@dataclass(frozen=True, slots=True)
class CreatedGame:
    """A new game: its id, version and one token per seat (shown once, never stored)."""

    id: str
    version: int
    tokens: list[str | None]
    seats: list[dict[str, Any]] = field(default_factory=list)
    """Each seat's ``SeatView``."""
    status: str = "active"


@dataclass(frozen=True, slots=True)
class JoinedSeat:
    """A seat joined: its token (shown once, never stored) and the game's version after it."""

    seat: int
    token: str
    version: int


@dataclass(frozen=True, slots=True)
class WaitingPage:
    """A page of the listing of waiting games."""

    games: list[dict[str, Any]]
    next: str | None


@dataclass(frozen=True, slots=True)
class Caller:
    """Who is asking about which game: the loaded game and the caller's seat (``None`` = spectator)."""

    stored: StoredGame
    seat: int | None


@dataclass(slots=True)  # not frozen: see darkroad.api.store.base
class ActResult:
    """The answer to an action: the caller's view (JSON) at ``version``."""

    version: int
    view: bytes
    replayed: bool
    """True when this is the recorded answer to an earlier request with the same ``Idempotency-Key``."""


@dataclass(frozen=True, slots=True)
class LogPage:
    """A page of the caller's visible events."""

    events: list[StoredEvent]
    next: int
    """Pass as ``after`` to get the next page."""
    more: bool
    """True when the page was full: more events may follow."""
    finished: bool = False
    """The game is over: no event will follow (once ``more`` is false)."""
