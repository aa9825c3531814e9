"""The time banks of a clock game as they were at each of its versions, for its history views.

A game's lobby keeps only its seats' banks now; the action list keeps, for every version, who
acted, what changed of the seats and when (each entry's ``time``). Replaying that list through
the same :meth:`Lobby.track <darkroad.api.app.lobby.Lobby.track>` the commits ran gives every
version's banks exactly as the version's answer showed them: a bank runs while its seat is
awaited, each decision adds the increment, a hand-over to a bot stops it, a ``clock_low``
notes the warning. An undo and a withdrawn answer leave the banks as they are (their commits
do not track time either).
"""

from __future__ import annotations

from collections.abc import Sequence

from darkroad.api.app.lobby import Lobby, seat_change
from darkroad.core.actionlog import Record, Undo, Withdrawn

SeatClocks = tuple[tuple[float | None, float | None, bool], ...]
"""Each seat's ``(since, bank, warned)`` at one version (the lobby's fields of its seats)."""


def clocks_by_version(start: Lobby, entries: Sequence[Record], awaited: Sequence[Sequence[int]]) -> list[SeatClocks]:
    """Every version's seat clocks of a clock game: ``start``, its seats as they were at version
    0 (``timelines.lobby_at``); ``entries``, the action list's records (entry ``i`` made version
    ``i + 1``), each with the time it was committed; ``awaited``, the seats each version waited
    for. An entry without a time (a game imported from a record) changes no bank."""
    lobby = start.copy()
    for seat in lobby.seats:
        seat.since, seat.bank, seat.warned = None, None, False
    if lobby.started:
        lobby.track(awaited[0], None, lobby.created)
    clocks = [_snapshot(lobby)]
    for version, entry in enumerate(entries, start=1):
        if entry.time is not None:
            _apply(lobby, entry, awaited[version], entry.time)
        clocks.append(_snapshot(lobby))
    return clocks


def _apply(lobby: Lobby, entry: Record, awaiting: Sequence[int], now: float) -> None:
    """What the commit of ``entry`` did to the seats' clocks (``seat_changes``, ``changes.play``)."""
    seat = entry.seat
    change = seat_change(entry)
    acted: int | None = seat
    if change is None:
        if isinstance(entry, Undo | Withdrawn):
            return
    elif change == "joined":
        lobby.seats[seat].kind = "human"
        lobby.started = not lobby.open_seats()
    elif change == "left":
        lobby.seats[seat].kind = "open"
    elif change == "replaced":  # no decision
        lobby.spend(seat, now)
        record = lobby.seats[seat]
        record.replaced, record.bot, record.since = True, lobby.timeout_bot, None
        acted = None
    elif change == "reclaimed":  # no decision
        lobby.seats[seat].replaced, lobby.seats[seat].bot = False, None
        acted = None
    elif change == "clock_low":
        lobby.seats[seat].warned = True
        acted = None
    else:  # a rejoin: another token, the same clock
        acted = None
    lobby.track(awaiting, acted, now)


def _snapshot(lobby: Lobby) -> SeatClocks:
    return tuple((seat.since, seat.bank, seat.warned) for seat in lobby.seats)


def set_clocks(lobby: Lobby, clocks: SeatClocks) -> None:
    """Give ``lobby``'s seats the clocks of one version (``clocks_by_version``)."""
    for seat, (since, bank, warned) in zip(lobby.seats, clocks, strict=False):
        seat.since, seat.bank, seat.warned = since, bank, warned
