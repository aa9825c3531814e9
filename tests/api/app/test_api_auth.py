"""Seat tokens (api/app/auth.py): which seat a presented token is, and the refusal when none.

The API tests reach these through the action and seat routes (``wrong-seat``, ``invalid-token``);
here each function is held to its contract on a table of three seats, so that a change to how a
token is compared (as c204031's hash-once) cannot swap an answer without a test naming it."""

from __future__ import annotations

import pytest

from darkroad.api.app import auth
from darkroad.api.app.service_errors import ServiceError

TOKENS = [auth.new_token() for _ in range(3)]
HASHES = [auth.hash_token(token) for token in TOKENS]


def test_a_token_is_stored_as_its_sha256_and_tokens_differ() -> None:
    assert all(len(h) == 64 and set(h) <= set("0123456789abcdef") for h in HASHES)
    assert len(set(TOKENS)) == len(set(HASHES)) == 3
    assert auth.hash_token(TOKENS[0]) == HASHES[0]  # the same token, the same hash


@pytest.mark.parametrize("seat", range(3))
def test_each_seat_token_is_its_own_seat_and_no_other(seat: int) -> None:
    presented = auth.hash_token(TOKENS[seat])
    assert auth.whose(presented, HASHES) == seat
    assert auth.seat_of_hash(presented, HASHES) == seat == auth.seat_of(TOKENS[seat], HASHES)
    assert auth.seat_or_none(TOKENS[seat], HASHES) == seat
    assert [auth.holds(presented, HASHES, other) for other in range(3)] == [other == seat for other in range(3)]


def test_a_token_of_no_seat_is_refused_as_invalid() -> None:
    stranger = auth.new_token()
    presented = auth.hash_token(stranger)
    assert auth.whose(presented, HASHES) is None and auth.seat_or_none(stranger, HASHES) is None
    assert not any(auth.holds(presented, HASHES, seat) for seat in range(3))
    for refused in (lambda: auth.seat_of(stranger, HASHES), lambda: auth.seat_of_hash(presented, HASHES)):
        with pytest.raises(ServiceError) as error:
            refused()
        assert error.value.code == "invalid-token"


@pytest.mark.parametrize("seat", [-1, 3, 99])
def test_a_seat_outside_the_game_holds_no_token(seat: int) -> None:
    """An action may name any seat number: one outside the game is held by no token (no IndexError,
    and -1 is not the last seat)."""
    assert not any(auth.holds(auth.hash_token(token), HASHES, seat) for token in TOKENS)
