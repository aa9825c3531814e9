"""The services' errors: a client's mistake or a refusal, named by a stable code.

A :class:`ServiceError` carries what happened in domain terms: its ``code`` (the problem type
the HTTP edge answers with, ``unknown-game``, ``stale-version``, ...), a human ``detail`` and
the facts a client needs to go on (the game's current ``version``, seconds to wait before
retrying, the invalid parts of a request). The services know nothing of status codes or
headers: ``darkroad.api.http.problems`` maps each code to its status and each fact to its
header or member, in one place. The rules' own errors (``darkroad.core.errors``) reach the
edge as they are, with their codes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class InvalidPart:
    """One invalid part of a request: what is wrong, the part's name and where it was
    (``body``, ``path``, ``query``, ``header``)."""

    message: str
    key: str | None = None
    source: str | None = None


class ServiceError(Exception):
    """A refusal of the services, with a stable ``code`` and the facts that go with it."""

    def __init__(
        self,
        code: str,
        detail: str,
        *,
        version: int | None = None,
        retry_after: int | None = None,
        invalid: Sequence[InvalidPart] = (),
        plugin: str | None = None,
    ) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.version = version
        """The game's current version (``stale-version``)."""
        self.retry_after = retry_after
        """Seconds to wait before trying again (a slot or a budget that frees up)."""
        self.invalid = tuple(invalid)
        """Each invalid part of the request (``bad-request``)."""
        self.plugin = plugin
        """The plugin to blame (``plugin-error``)."""

    def __repr__(self) -> str:
        return f"ServiceError({self.code!r}, {self.detail!r})"


class Refusal(ServiceError):
    """A refusal of the seats (the game waits for players, a bot plays the seat) found on a
    cached game, which may be behind the store: only the store's word is final."""


def unknown_game(game_id: str) -> ServiceError:
    return ServiceError("unknown-game", f"There is no game {game_id!r}.")


def stale(version: int, detail: str | None = None) -> ServiceError:
    """``stale-version``: the game is at ``version``, not the one the request expected."""
    return ServiceError(
        "stale-version",
        detail or f"If-Match does not name the game's current version {version}.",
        version=version,
    )


def bad_request(detail: str, *invalid: InvalidPart) -> ServiceError:
    return ServiceError("bad-request", detail, invalid=invalid)
