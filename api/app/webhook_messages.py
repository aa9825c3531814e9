"""Webhook messages: what a commit tells the queue, and the signed request a delivery sends.

Messages follow the Standard Webhooks specification: a ``POST`` of a JSON body
``{"type", "timestamp", "data"}`` with the headers ``webhook-id`` (the message's id, the same
on every attempt), ``webhook-timestamp`` (the attempt's Unix seconds) and
``webhook-signature`` (``v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">``), under a
secret ``whsec_<base64>`` the server makes for each subscription. The signature is the
``standardwebhooks`` package's own (:meth:`standardwebhooks.Webhook.sign`), so its
verifiers, in any language, accept it.

``data`` carries the game's id, the seat, the version, the pending decision (type and
prompt), the seat's name, the table's link (``/play/<game id>``, without a token) and a
``text`` to show as it is. A subscription made with ``"chat": true`` also gets that text as
the body's top-level ``text`` (what a Slack incoming webhook posts) and ``content`` (what a
Discord webhook posts), so a chat's webhook URL can be subscribed directly.
"""

from __future__ import annotations

import base64
import datetime
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec
from standardwebhooks import Webhook

from darkroad.api.app.lobby import Lobby
from darkroad.api.store.webhook_queue import Delivery, HookNotice
from darkroad.core import Engine, Event, Game
from darkroad.core.i18n import DEFAULT_LOCALE, _, current_locale, use_locale

SECRET_BYTES = 32
"""Random bytes of a signing secret (the specification asks for 24 to 64)."""
KINDS = ("turn", "finished", "clock")

_encode = msgspec.json.encode


def new_secret() -> str:
    """A fresh signing secret, ``whsec_`` and base64 of :data:`SECRET_BYTES` random bytes."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def notice(engine: Engine, game: Game, lobby: Lobby | None, now: float, events: Sequence[Event] = ()) -> HookNotice:
    """What a commit writing ``game`` (with ``events``) tells the queue of messages: the seats it
    awaits that a player decides for (a bot's seat, or one handed to a bot, is nobody's turn to
    be told of), the pending decision, and the seats told their time bank runs low."""
    clock = tuple((event.seat, float(event.data["remaining"])) for event in events
                  if event.type == "seat_clock_low" and event.seat is not None)
    if game.finished:
        return HookNotice((), b"null", now)
    if current_locale() == DEFAULT_LOCALE:
        decision = engine.decision(game)
    else:  # in the source language, whoever's request commits: a message must not depend on it
        with use_locale(DEFAULT_LOCALE):
            decision = engine.decision(game)
    if decision is None:
        return HookNotice((), b"null", now, clock)
    seats = tuple(s for s in decision["seats"] if lobby is None or lobby.bot_of(s) is None)
    return HookNotice(seats, _encode({"type": decision["type"], "prompt": decision["prompt"]}), now, clock)


def _when(seconds: float) -> str:
    moment = datetime.datetime.fromtimestamp(seconds, datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def table_link(game_id: str, public_url: str | None) -> str:
    """The table's page of a game (``/play/<id>``; absolute with ``public_url``), without a token."""
    return f"{(public_url or '').rstrip('/')}/play/{game_id}"


def text_of(delivery: Delivery, facts: Mapping[str, Any], name: str | None, link: str) -> str:
    """A line a person reads in a chat (in the language of the current call): what happened, in
    which game, for whom, and the link."""
    game, seat = delivery.game_id, delivery.seat
    if delivery.kind == "turn":
        prompt = facts.get("prompt") or ""
        if name:
            return _("Your turn, %(name)s (seat %(seat)d), in game %(game)s: %(prompt)s. %(link)s",
                     name=name, seat=seat, game=game, prompt=prompt, link=link)
        return _("Your turn, seat %(seat)d, in game %(game)s: %(prompt)s. %(link)s",
                 seat=seat, game=game, prompt=prompt, link=link)
    if delivery.kind == "clock":
        return _("Seat %(seat)d has %(remaining)d seconds left on its clock in game %(game)s. %(link)s",
                 seat=seat, remaining=round(float(facts.get("remaining", 0))), game=game, link=link)
    return _("Game %(game)s is over. %(link)s", game=game, link=link)


def body(delivery: Delivery, name: str | None, public_url: str | None, chat: bool, locale: str = DEFAULT_LOCALE
         ) -> bytes:
    """The JSON body of ``delivery`` (the same on every attempt); its ``text`` in ``locale`` (the
    language the subscription was made in)."""
    facts = msgspec.json.decode(delivery.data) if delivery.data else None
    link = table_link(delivery.game_id, public_url)
    with use_locale(locale):
        text = text_of(delivery, facts if isinstance(facts, Mapping) else {}, name, link)
    data: dict[str, Any] = {
        "game_id": delivery.game_id,
        "seat": delivery.seat,
        "version": delivery.version,
        "name": name,
        "url": link,
        "text": text,
    }
    if delivery.kind == "turn":
        data["decision"] = facts
    elif delivery.kind == "clock" and isinstance(facts, Mapping):
        data.update(facts)
    message: dict[str, Any] = {"type": delivery.kind, "timestamp": _when(delivery.created), "data": data}
    if chat:
        message["text"] = message["content"] = text
    return _encode(message)


def headers(secret: str, message_id: str, payload: bytes, now: float) -> dict[str, str]:
    """The Standard Webhooks headers of one attempt at ``now`` (a new timestamp each attempt:
    receivers refuse timestamps older than a few minutes)."""
    moment = datetime.datetime.fromtimestamp(int(now), datetime.UTC)
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(int(now)),
        "webhook-signature": Webhook(secret).sign(message_id, moment, payload.decode()),
        "content-type": "application/json",
    }
