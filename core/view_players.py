"""A player's block of a view the API encodes at once (:func:`~darkroad.core.view.view` with
``encoded``), as a msgspec struct whose JSON is the block's dict byte for byte
(``tests/test_view_encoded.py``): made in one call, its field names written encoded once, and
the player's own lists, dice and companion cards written as they are (an attrs ``PoolDie`` or
``CompanionCard`` encodes as the dict the other views build of it). Nothing of it is kept from
one view to the next: made afresh, a block costs less than the key a kept one would need
(the player's state encoded; docs/performance.md, "What the core remembers")."""

from __future__ import annotations

from typing import Any

import msgspec

from .state import Player


class PlayerBlock(msgspec.Struct):
    """A player's block of a view, the one list of its keys (:func:`~darkroad.core.view._player`
    makes the dict of a view to keep from it)."""

    seat: int
    kind: str
    prestige: int
    position: int
    locked: Any
    reserve: Any
    spent: int
    removed: int
    special_reserve: Any
    action_pool: Any
    lanterns: int
    quartz: int
    horseshoes: int
    goods: list[str]
    storage: Any
    heroes: Any
    commissions: Any
    steeds: Any
    upgrades: Any
    companions: Any
    delivered_commissions: int
    delivered_heroes: int
    deed_count: int
    coins: int | None
    deeds: Any
    name: Any = msgspec.UNSET
    """Absent (``UNSET``) from a view built without names."""


def player_block(p: Player, goods: list[str], storage: Any, shown: bool, name: Any) -> PlayerBlock:
    """``p``'s block: ``goods`` sorted, ``storage`` its block (JSON already, or ``None``),
    ``shown`` with its coins and deeds, ``name`` its ``name`` (``msgspec.UNSET``: none)."""
    return PlayerBlock(p.seat, p.kind, p.prestige, p.position, p.locked, p.reserve, p.spent, p.removed, p.special,
                       p.pool, p.lanterns, p.quartz, p.horseshoes, goods, storage, p.heroes, p.commissions, p.steeds,
                       p.upgrades, p.companions, len(p.delivered_commissions), len(p.delivered_heroes), len(p.deeds),
                       p.coins if shown else None, p.deeds if shown else None, name)
