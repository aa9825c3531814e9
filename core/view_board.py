"""The board's block of a view (:func:`~darkroad.core.view.view`): what is public of the board.

A view the API encodes at once gets it as msgspec structs (:class:`_BoardBlock`), whose JSON is
the dict's byte for byte: msgspec writes a struct's field names encoded once, where a dict's
keys are encoded one by one, and a struct is made in one call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from .context import MARKET_VALUES
from .rulebook.activate import DISTRICTS

if TYPE_CHECKING:
    from .engine import Engine
    from .state import Game
    from .view import EncodedPlayers


def market_wheel(goods: Sequence[str], offset: int) -> dict[str, int]:
    """The market value of each of ``goods`` (the good types in their order) with the wheel at
    ``offset``: the view's ``market.wheel``."""
    return {good: MARKET_VALUES[(i - offset) % 6] for i, good in enumerate(goods)}


_DARK_MARKET = ("north", "east", "south", "west")
_RUINS = ("top_left", "top_right", "bottom_right", "bottom_left")


class _Stack(msgspec.Struct):
    """A commission stack in a view to encode: its JSON is ``{"top": ..., "count": ...}``."""

    top: str | None
    count: int


class _Market(msgspec.Struct):
    """The board's ``market`` in a view to encode (the fields of :func:`board_block`'s dict, in order)."""

    wheel: Any
    dice: Any
    """The dice per good type: a :func:`dice_struct` of the engine's goods (or their dict)."""
    set_aside: int


def dice_struct(goods: Sequence[str]) -> Any:
    """A struct type whose fields are ``goods`` in order (renamed to their ids), made of the
    board's market list in one call: its JSON is ``dict(zip(goods, market))``'s, which costs
    six times as many instructions to build (1,200 against 7,000 a view,
    ``benchmarks/view_parts.py``'s positions). ``None`` when msgspec would not name a field so
    (an id with a quote, a backslash or a control character): the dict is made then."""
    try:
        return msgspec.defstruct("_Dice", [(f"g{i}", int) for i in range(len(goods))],
                                 rename={f"g{i}": good for i, good in enumerate(goods)})
    except ValueError:
        return None


class _BoardBlock(msgspec.Struct):
    """The view's ``board`` in a view to encode: the same JSON as :func:`board_block`'s dict (the
    fields in its order), which msgspec writes with the names encoded once, not key by key."""

    ringway: Any
    buildings: Any
    market: _Market
    commissions: dict[str, _Stack]
    inn: Any
    hero_deck: int
    courtyard: Any
    courtyard_banners: Any
    deed_deck: int
    companion_row: Any
    companion_deck: int
    event_decks: dict[str, int]
    upgrades: list[str]
    five_coins: bool
    dark_market: str
    ruins: str
    extra: dict[str, Any]


def board_block(engine: Engine, game: Game, encoded: EncodedPlayers | None) -> dict[str, Any] | _BoardBlock:
    """The view's ``board``: what is public of it (the decks by their sizes); for a view to
    encode (``encoded``), as a :class:`_BoardBlock` sharing the board's own lists, with the
    engine's blocks encoded already."""
    b = game.board
    goods = engine.content.good_ids
    events = b.events
    # Plain loops, no comprehensions, zip or dict(): the view is built on every request, and each
    # of those is a call of its own (a comprehension's frame costs more than its few items).
    extra = {}
    for k, v in b.extra.items():
        if not k.startswith("_"):
            extra[k] = v
    decks = {}
    for route, deck in events.items():
        decks[route] = len(deck)
    if encoded is not None:
        stacks = {}
        for t, s in b.commission_stacks.items():
            stacks[t] = _Stack(s[0] if s else None, len(s))
        dice = encoded.dice
        return _BoardBlock(
            encoded.ringway, b.buildings,
            _Market(encoded.wheels[b.wheel_offset % len(encoded.wheels)],
                    dict(zip(goods, b.market, strict=True)) if dice is None else dice(*b.market), b.set_aside),
            stacks, b.inn, len(b.hero_deck), b.courtyard, encoded.courtyard_banners, len(b.deed_deck),
            b.companion_row, len(b.companion_deck), decks,
            sorted(b.upgrades), b.five_coins, _DARK_MARKET[b.dark_market], _RUINS[b.ruins], extra,
        )  # fmt: skip
    commissions = {}
    for t, s in b.commission_stacks.items():
        commissions[t] = {"top": s[0] if s else None, "count": len(s)}
    return {
        "ringway": list(DISTRICTS),
        "buildings": list(b.buildings),
        "market": {
            "wheel": market_wheel(goods, b.wheel_offset),
            "dice": dict(zip(goods, b.market, strict=True)),
            "set_aside": b.set_aside,
        },
        "commissions": commissions,
        "inn": list(b.inn),
        "hero_deck": len(b.hero_deck),
        "courtyard": list(b.courtyard),
        "courtyard_banners": list(map(list, engine.content.courtyard_banners)),
        "deed_deck": len(b.deed_deck),
        "companion_row": list(b.companion_row),
        "companion_deck": len(b.companion_deck),
        "event_decks": decks,
        "upgrades": sorted(b.upgrades),
        "five_coins": b.five_coins,
        "dark_market": _DARK_MARKET[b.dark_market],
        "ruins": _RUINS[b.ruins],
        "extra": extra,
    }
