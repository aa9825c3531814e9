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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from darkroad.core import i18n


@dataclass(frozen=True, slots=True)
class InvalidPart:
    """One invalid part of a request: what is wrong (an English message with ``%(name)s``
    placeholders filled from ``params``), the part's name and where it was (``body``, ``path``,
    ``query``, ``header``)."""

    message: str
    key: str | None = None
    source: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)

    def translated(self) -> str:
        """What is wrong, in the language of the call."""
        return i18n.translated(self.message, **self.params)


class ServiceError(Exception):
    """A refusal of the services, with a stable ``code`` and the facts that go with it.

    ``detail`` is a whole English sentence with named placeholders filled from ``params``
    (never an f-string: the problem answering it translates it into the caller's language)."""

    def __init__(
        self,
        code: str,
        detail: str,
        *,
        version: int | None = None,
        retry_after: int | None = None,
        invalid: Sequence[InvalidPart] = (),
        plugin: str | None = None,
        **params: Any,
    ) -> None:
        self.message = detail
        self.params = params
        self.detail = i18n.fill(detail, params)
        """The detail in English."""
        super().__init__(self.detail)
        self.code = code
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
    return ServiceError("unknown-game", "There is no game '%(game)s'.", game=game_id)


def stale(version: int, detail: str | None = None) -> ServiceError:
    """``stale-version``: the game is at ``version``, not the one the request expected."""
    if detail is not None:
        return ServiceError("stale-version", detail, version=version)
    return ServiceError("stale-version", "If-Match does not name the game's current version %(current)d.",
                        version=version, current=version)


def bad_request(detail: str, *invalid: InvalidPart) -> ServiceError:
    return ServiceError("bad-request", detail, invalid=invalid)
