"""Seats' webhook subscriptions: a seat's player asks to be told, by a ``POST`` to a URL of
theirs, when the game waits for them (``darkroad.api.app.webhook_messages``).

A subscription belongs to the seat, not to who plays it: a seat handed to a bot after a
timeout keeps it (its messages wait until the player reclaims the seat and is awaited
again), and so does the seat reclaimed. It is made, read and ended with the seat's own token,
as every seat route is (``401`` without or with a wrong token, ``403 wrong-seat`` with another
seat's), and lives as long as its game. Its secret is shown once, in the answer that makes
it; a ``PUT`` again replaces the subscription, with a new secret.
"""

from __future__ import annotations

import datetime
import secrets
from dataclasses import dataclass

import msgspec

from darkroad.api.app.auth import seat_of
from darkroad.api.app.repository import GameRepository
from darkroad.api.app.service_errors import ServiceError, unknown_game
from darkroad.api.app.webhook_messages import new_secret
from darkroad.api.app.webhook_urls import check_url
from darkroad.api.store.base import StoredGame
from darkroad.core.i18n import DEFAULT_LOCALE, current_locale


class Subscription(msgspec.Struct, frozen=True):
    """A seat's subscription as the store keeps it."""

    url: str
    secret: str
    created: float
    chat: bool = False
    locale: str = DEFAULT_LOCALE
    """The language the subscription was made in (``Accept-Language``): the messages' ``text``'s."""


class DeliveryState(msgspec.Struct, frozen=True, omit_defaults=True):
    """How the deliveries to a subscription went lately."""

    last_attempt: float | None = None
    last_status: int | None = None
    """The receiver's HTTP status (``None``: no answer)."""
    last_error: str | None = None
    failures: int = 0
    """Failed attempts since the last success."""
    delivered: int = 0


@dataclass(frozen=True, slots=True)
class Shown:
    """A subscription as the API shows it (``secret`` only in the answer that made it)."""

    seat: int
    subscription: Subscription
    state: DeliveryState
    created_now: bool = False

    def body(self, with_secret: bool) -> dict[str, object]:
        """The ``WebhookSubscription`` JSON object."""
        when = _when
        state = self.state
        shown: dict[str, object] = {
            "seat": self.seat,
            "url": self.subscription.url,
            "chat": self.subscription.chat,
            "created": when(self.subscription.created),
            "delivery": {
                "last_attempt": None if state.last_attempt is None else when(state.last_attempt),
                "last_status": state.last_status,
                "last_error": state.last_error,
                "failures": state.failures,
                "delivered": state.delivered,
            },
        }
        if with_secret:
            shown["secret"] = self.subscription.secret
        return shown


def _when(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(round(seconds, 3), datetime.UTC).isoformat().replace("+00:00", "Z")


def decode_state(raw: bytes | None) -> DeliveryState:
    return DeliveryState() if not raw else msgspec.json.decode(raw, type=DeliveryState)


class Webhooks:
    """Subscribe a seat, show its subscription, end it."""

    def __init__(self, games: GameRepository) -> None:
        self.games = games

    async def _own(self, game_id: str, seat: int, token: str) -> StoredGame:
        stored = await self.games.load(game_id)
        if not 0 <= seat < len(stored.token_hashes):
            raise ServiceError("unknown-seat", "The game has seats 0 to %(last)d.", last=len(stored.token_hashes) - 1)
        mine = seat_of(token, stored.token_hashes)
        if mine != seat:
            raise ServiceError("wrong-seat", "Your token is seat %(mine)d's: you cannot manage seat %(seat)d's webhook.",
                               mine=mine, seat=seat)
        return stored

    async def subscribe(self, game_id: str, seat: int, token: str, url: str, chat: bool = False) -> Shown:
        """Subscribe ``seat`` (the caller's) to messages at ``url`` (``bad-webhook-url`` when the
        URL is not one the service sends to): the subscription, with its new secret."""
        stored = await self._own(game_id, seat, token)
        url = await check_url(url, self.games.settings.webhook_allow_private)
        subscription = Subscription(url, new_secret(), self.games.clock(), chat, current_locale())
        game = self.games.game(stored)
        awaited = [] if stored.finished else self.games.engine.awaiting(game)
        created = await self.games.store.put_webhook(
            game_id, seat, msgspec.json.encode(subscription), secrets.token_hex(8), ",".join(map(str, awaited))
        )
        if created is None:
            raise unknown_game(game_id)
        return Shown(seat, subscription, DeliveryState(), created)

    async def show(self, game_id: str, seat: int, token: str) -> Shown:
        """``seat``'s subscription and how its deliveries went (``no-webhook`` when it has none)."""
        await self._own(game_id, seat, token)
        found = await self.games.store.webhook(game_id, seat)
        if found is None:
            raise no_webhook(seat)
        record, _, state = found
        return Shown(seat, msgspec.json.decode(record, type=Subscription), decode_state(state))

    async def end(self, game_id: str, seat: int, token: str) -> None:
        """End ``seat``'s subscription (``no-webhook`` when it has none)."""
        await self._own(game_id, seat, token)
        if not await self.games.store.delete_webhook(game_id, seat):
            raise no_webhook(seat)


def no_webhook(seat: int) -> ServiceError:
    return ServiceError("no-webhook", "Seat %(seat)d has no webhook subscription.", seat=seat)
