"""``/v1/games/{game_id}/seats/{seat}/webhook``: a seat's webhook subscription (play by
notification: ``darkroad.api.app.webhooks``)."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Controller, Request, Response, delete, get, put
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.status_codes import HTTP_200_OK, HTTP_201_CREATED, HTTP_204_NO_CONTENT

from darkroad.api.app.service import GameService
from darkroad.api.http.bodies import parse_model, read_body, require_json
from darkroad.api.http.guards import DEPENDENCIES
from darkroad.api.http.params import ACT, GAMES, SEAT_HOLDER, GameId, SeatNumber
from darkroad.api.http.problems import problem_responses
from darkroad.api.http.webhook_schemas import PutWebhook, WebhookSubscription

_encode = msgspec.json.encode


_PROBLEMS = (*SEAT_HOLDER, "store-unavailable", "replication-timeout")


def _json(body: dict[str, Any], status: int) -> Response[Any]:
    return Response(_encode(body), status_code=status, media_type="application/json")


class WebhooksController(Controller):
    """A seat's webhook: subscribe, show, end."""

    path = GAMES
    tags = ["games"]
    dependencies = DEPENDENCIES

    @put(
        "/{game_id:str}/seats/{seat:int}/webhook",
        operation_id="putSeatWebhook",
        summary="Subscribe a seat to turn notifications",
        status_code=HTTP_200_OK,
        security=ACT,
        responses={
            HTTP_201_CREATED: ResponseSpec(data_container=WebhookSubscription, generate_examples=False,
                                           description="The subscription, made (its secret shown only here)."),
            **problem_responses(*_PROBLEMS, "bad-webhook-url", "body-too-large", "unsupported-media-type"),
        },
    )
    async def put_webhook(
        self,
        request: Request[Any, Any, Any],
        game_id: GameId,
        seat: SeatNumber,
        service: NamedDependency[GameService],
        seat_token: NamedDependency[str],
    ) -> Response[WebhookSubscription]:
        """With the seat's token: send the seat's messages to `url` (Standard Webhooks): `turn` when the
        game comes to wait for the seat (once per turn, not per step), `finished` when it ends, `clock`
        when its time bank runs low. Answers `201` with a new subscription, `200` when it replaces the
        seat's (with a new secret either way: the secret is shown only here).

        See docs/clients.md, "Playing by notification", for the messages and their verification."""
        require_json(request.headers.get("content-type"))
        raw = await read_body(
            request.receive, request.headers.get("content-length"), service.settings.request_max_body_size
        )
        data = parse_model(raw, PutWebhook)
        shown = await service.webhooks.subscribe(game_id, seat, seat_token, data.url, data.chat)
        return _json(shown.body(with_secret=True), HTTP_201_CREATED if shown.created_now else HTTP_200_OK)

    @get(
        "/{game_id:str}/seats/{seat:int}/webhook",
        operation_id="getSeatWebhook",
        summary="Show a seat's webhook subscription",
        security=ACT,
        responses=problem_responses(*_PROBLEMS, "no-webhook"),
    )
    async def get_webhook(
        self, game_id: GameId, seat: SeatNumber, service: NamedDependency[GameService], seat_token: NamedDependency[str]
    ) -> Response[WebhookSubscription]:
        """With the seat's token: the subscription and how its deliveries went (the last attempt, its
        status, the failures since the last success); never its secret."""
        shown = await service.webhooks.show(game_id, seat, seat_token)
        return _json(shown.body(with_secret=False), HTTP_200_OK)

    @delete(
        "/{game_id:str}/seats/{seat:int}/webhook",
        operation_id="deleteSeatWebhook",
        summary="End a seat's webhook subscription",
        status_code=HTTP_204_NO_CONTENT,
        security=ACT,
        responses=problem_responses(*_PROBLEMS, "no-webhook"),
    )
    async def delete_webhook(
        self, game_id: GameId, seat: SeatNumber, service: NamedDependency[GameService], seat_token: NamedDependency[str]
    ) -> None:
        """With the seat's token: no more messages for the seat (those being delivered may still arrive)."""
        await service.webhooks.end(game_id, seat, seat_token)
