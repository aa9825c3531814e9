"""Seat tokens: one random secret per seat, stored only as a sha256 hash.

A caller proves its seat with a token (the HTTP edge reads it from ``Authorization:
Bearer <token>``). The presented token is hashed and compared in constant time
(``hmac.compare_digest``): with the one seat an action names (:func:`holds`), whose answer the
caller learns anyway, or with every seat's hash, all of them always compared (:func:`seat_of`),
so timing reveals neither which seat nor how much of a token matched. Tokens carry 256
random bits, so a fast hash is enough: there is nothing to brute-force.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence

from darkroad.api.app.service_errors import ServiceError

TOKEN_BYTES = 32


def new_token() -> str:
    """A fresh seat token (URL-safe text)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def hash_token(token: str) -> str:
    """The stored form of a token: its sha256 hex digest."""
    return hashlib.sha256(token.encode()).hexdigest()


def seat_of(token: str, token_hashes: Sequence[str]) -> int:
    """The seat ``token`` belongs to; ``invalid-token`` (401) when it matches no seat of the game."""
    return seat_of_hash(hash_token(token), token_hashes)


def seat_of_hash(presented: str, token_hashes: Sequence[str]) -> int:
    """:func:`seat_of` for a token already hashed (``presented``: its :func:`hash_token`)."""
    seat = whose(presented, token_hashes)
    if seat is None:
        raise invalid_token()
    return seat


def invalid_token() -> ServiceError:
    """The refusal of a token that is no seat's of the game (401)."""
    return ServiceError("invalid-token", "This token is not a seat token of this game.")


def whose(presented: str, token_hashes: Sequence[str]) -> int | None:
    """The seat whose stored hash is ``presented`` (a token's :func:`hash_token`), or ``None``:
    every seat's compared, whichever matches."""
    seat: int | None = None
    for index, stored in enumerate(token_hashes):
        if hmac.compare_digest(presented, stored):
            seat = index
    return seat


def holds(presented: str, token_hashes: Sequence[str], seat: int) -> bool:
    """Whether the token hashed as ``presented`` (:func:`hash_token`) is seat ``seat``'s: compared
    with that seat's hash alone. An action names its seat, so this is the one comparison a rightful
    action needs; whose token it is otherwise (:func:`whose`) only tells which refusal to give."""
    return 0 <= seat < len(token_hashes) and hmac.compare_digest(presented, token_hashes[seat])


def seat_or_none(token: str, token_hashes: Sequence[str]) -> int | None:
    """The token's seat, or ``None`` when it matches none."""
    return whose(hash_token(token), token_hashes)
