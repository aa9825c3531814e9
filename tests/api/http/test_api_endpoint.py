"""``POST .../actions`` answers the same through its lean endpoint and through Litestar's handler.

The endpoint (``darkroad.api.http.actions.action_endpoint``) serves the route in production; the
handler is the reference it must agree with, byte for byte: the same game played by the
same requests on two apps, one with ``Settings(action_endpoint=False)``, gets the same
status, headers and body for every request, legal or not.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from apiutil import NewGame, create_game, serve
from litestar import Litestar, Response

from darkroad.api.http import games
from darkroad.api.http.actions import Submitted
from darkroad.api.settings import Settings

COMPARED_HEADERS = (
    "content-type",
    "content-length",
    "etag",
    "vary",
    "idempotent-replayed",
    "preference-applied",
    "www-authenticate",
    "retry-after",
)


def _answer(response: httpx.Response, game: NewGame) -> tuple[int, dict[str, str], Any]:
    headers = {name: response.headers[name] for name in COMPARED_HEADERS if name in response.headers}
    body = response.content.decode().replace(game.id, "<game>")
    return response.status_code, headers, json.loads(body) if body else None


class Twins:
    """One seeded game on each app; every request goes to both and their answers are compared."""

    def __init__(self, clients: list[httpx.AsyncClient], games: list[NewGame]) -> None:
        self.clients, self.games = clients, games
        self.answers: list[tuple[int, dict[str, str], Any]] = []

    async def post(
        self, seat: int | None, body: Any, *, raw: bytes | None = None, path: str = "/actions", **headers: str
    ) -> tuple[int, dict[str, str], Any]:
        answers = []
        for client, game in zip(self.clients, self.games, strict=True):
            request_headers = {**(game.auth(seat) if seat is not None else {}), **headers}
            url = path if path.startswith("/v1/") else game.url + path
            content = raw if raw is not None else json.dumps(body).encode()
            request_headers.setdefault("Content-Type", "application/json")
            answers.append(_answer(await client.post(url, content=content, headers=request_headers), game))
        assert answers[0] == answers[1], f"endpoint and handler disagree on {body!r} {headers}"
        self.answers.append(answers[0])
        return answers[0]

    async def legal(self, seat: int) -> list[dict[str, Any]]:
        lists = []
        for client, game in zip(self.clients, self.games, strict=True):
            response = await client.get(f"{game.url}/actions", headers=game.auth(seat))
            lists.append(response.json()["actions"])
        assert lists[0] == lists[1]
        return list(lists[0])

    async def awaited(self) -> list[int]:
        view = (await self.clients[0].get(self.games[0].url)).json()
        return list(view["awaiting"])


async def test_endpoint_and_handler_answer_alike(
    make_app: Callable[[Settings], Litestar], settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    handler_answers = 0
    answer = games._handler_answer

    def counted(submitted: Submitted) -> Response[Any]:
        nonlocal handler_answers
        handler_answers += 1
        return answer(submitted)

    monkeypatch.setattr(games, "_handler_answer", counted)  # the handler's successful answers
    apps = [make_app(settings), make_app(dataclasses.replace(settings, action_endpoint=False))]
    async with serve(apps[0]) as fast, serve(apps[1]) as reference:
        twins = Twins([fast, reference], [await create_game(fast, seed=7), await create_game(reference, seed=7)])
        rnd = random.Random(7)
        seat = (await twins.awaited())[0]
        other = 1 - seat
        action = (await twins.legal(seat))[0]

        # errors: each one changes nothing
        problems = [
            await twins.post(None, action),  # no token
            await twins.post(other, action),  # another seat's token
            await twins.post(seat, {**action, "option": "nonsense"}),
            await twins.post(seat, {"type": "plan"}),
            await twins.post(seat, None, raw=b"{not json"),
            await twins.post(seat, action, raw=b" " * (settings.request_max_body_size + 1)),
            await twins.post(seat, action, path="/v1/games/short/actions"),
            await twins.post(seat, action, path="/v1/games/" + "A" * 22 + "/actions"),
            await twins.post(seat, action, **{"Idempotency-Key": ""}),
            await twins.post(seat, action, **{"If-Match": '"999"'}),
        ]
        assert [body["type"] for _, _, body in problems] == [
            "missing-token",
            "wrong-seat",
            "illegal-action",
            "bad-action",
            "bad-request",
            "body-too-large",
            "bad-request",
            "unknown-game",
            "bad-request",
            "stale-version",
        ]

        # an idempotent action, its retry, and the key reused for something else
        assert (await twins.post(seat, action, **{"Idempotency-Key": "k1", "If-Match": f'"{twins.games[0].version}"'}))[0] == 200
        replayed = await twins.post(seat, action, **{"Idempotency-Key": "k1"})
        assert replayed[0] == 200 and replayed[1]["idempotent-replayed"] == "true"
        reused = await twins.post(seat, {**action, "option": "other"}, **{"Idempotency-Key": "k1"})
        assert reused[2]["type"] == "idempotency-key-reused"
        # the retry of an action asked without its view, and the same retry wanting it
        seat = (await twins.awaited())[0]
        action = (await twins.legal(seat))[0]
        minimal = await twins.post(seat, action, **{"Idempotency-Key": "k2", "Prefer": "return=minimal"})
        assert minimal[0] == 204 and minimal[1]["preference-applied"] == "return=minimal"
        again = await twins.post(seat, action, **{"Idempotency-Key": "k2", "Prefer": "handling=lenient, return=minimal"})
        assert again[0] == 204 and again[1]["idempotent-replayed"] == "true" and again[2] is None
        full = await twins.post(seat, action, **{"Idempotency-Key": "k2"})
        assert full[0] == 200 and f'"{full[2]["version"]}"' == minimal[1]["etag"]

        # then a stretch of the game, every answer compared; every third action asks for no view
        # (RFC 7240's `Prefer: return=minimal`): 204, no body, the new version in its ETag
        for n in range(60):
            awaited = await twins.awaited()
            if not awaited:
                break
            seat = rnd.choice(awaited)
            actions = await twins.legal(seat)
            if n % 3 == 2:
                status, headers, view = await twins.post(seat, rnd.choice(actions), Prefer='return="minimal"')
                assert (status, view, headers["preference-applied"]) == (204, None, "return=minimal")
                assert "content-type" not in headers and "content-length" not in headers
                current = (await twins.clients[0].get(twins.games[0].url, headers=twins.games[0].auth(seat))).json()
                assert headers["etag"] == f'"{current["version"]}"'
            else:
                status, headers, view = await twins.post(seat, rnd.choice(actions), Prefer="respond-async")
                assert status == 200 and headers["etag"] == f'"{view["version"]}"' and "preference-applied" not in headers
    assert len(twins.answers) > 20
    # only the reference app's handler answered: the other app's endpoint answered for it
    assert handler_answers == sum(status in (200, 204) for status, _, _ in twins.answers)
