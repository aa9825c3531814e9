"""Seat tokens: one random secret per seat, stored only as a sha256 hash.

A caller proves its seat with ``Authorization: Bearer <token>``. The presented token is
hashed and compared with every seat's hash in constant time (``hmac.compare_digest``, and
all seats are always compared), so timing reveals neither which seat nor how much of a
token matched. Tokens carry 256 random bits, so a fast hash is enough: there is nothing
to brute-force.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence

from darkroad.api.http.problems import Problem

TOKEN_BYTES = 32
_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="darkroad"'}


def new_token() -> str:
    """A fresh seat token (URL-safe text)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def hash_token(token: str) -> str:
    """The stored form of a token: its sha256 hex digest."""
    return hashlib.sha256(token.encode()).hexdigest()


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header; ``None`` when there is no header.

    Raises ``invalid-token`` (401) for any other scheme or an empty token.
    """
    if authorization is None:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise Problem("invalid-token", "Use `Authorization: Bearer <seat token>`.", headers=_CHALLENGE)
    return token


def require_token(authorization: str | None) -> str:
    """The bearer token of ``authorization``; ``missing-token`` (401) when there is none."""
    token = bearer_token(authorization)
    if token is None:
        raise Problem(
            "missing-token", "Acting needs `Authorization: Bearer <seat token>`.", headers=_CHALLENGE
        )
    return token


def seat_of(token: str, token_hashes: Sequence[str]) -> int:
    """The seat ``token`` belongs to; ``invalid-token`` (401) when it matches no seat of the game."""
    presented = hash_token(token)
    seat: int | None = None
    for index, stored in enumerate(token_hashes):
        if hmac.compare_digest(presented, stored):
            seat = index
    if seat is None:
        raise Problem("invalid-token", "This token is not a seat token of this game.", headers=_CHALLENGE)
    return seat
