"""The bodies of the webhook routes (``darkroad.api.http.webhook_routes``), in the document's components."""

from __future__ import annotations

import datetime
from typing import Annotated

import msgspec
from msgspec import Meta

from darkroad.api.app.webhook_urls import MAX_URL_LENGTH

Instant = Annotated[datetime.datetime, Meta(tz=True)]


class PutWebhook(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Where to send the seat's messages."""

    url: Annotated[str, Meta(min_length=1, max_length=MAX_URL_LENGTH, description=(
        "The receiver: an `http(s)` URL without credentials whose host is (and resolves to) a public "
        "address; anything else is `422 bad-webhook-url`."))]
    chat: Annotated[bool, Meta(description=(
        "Also put the message's `data.text` at the top of the body as `text` (what a Slack incoming "
        "webhook posts) and `content` (what a Discord webhook posts): subscribe a chat's webhook URL "
        "directly."))] = False


class WebhookDelivery(msgspec.Struct):
    """How the deliveries to the subscription went lately."""

    last_attempt: Annotated[Instant | None, Meta(description="When the last delivery was tried; null: never.")]
    last_status: Annotated[int | None, Meta(description="The receiver's HTTP status then; null: no answer "
                                                        "(see `last_error`) or never tried.")]
    last_error: Annotated[str | None, Meta(description="Why the last attempt failed, when it did; else null.")]
    failures: Annotated[int, Meta(description="Failed attempts since the last success.")]
    delivered: Annotated[int, Meta(description="Messages delivered (answered 2xx).")]


class WebhookSubscription(msgspec.Struct):
    """A seat's webhook subscription."""

    seat: int
    url: str
    chat: bool
    created: Instant
    delivery: WebhookDelivery
    secret: Annotated[str, Meta(description=(
        "The signing secret (`whsec_<base64>`, Standard Webhooks): only in the answers of `PUT`, never "
        "shown again; keep it to verify each message's `webhook-signature`."))] | msgspec.UnsetType = (
        msgspec.UNSET)
