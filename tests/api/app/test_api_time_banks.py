"""Time-bank clocks (``NewGame.clock``): each seat's bank runs only while the game waits for it,
each decision adds the increment up to the initial time, views show every seat's bank, and
the workers hand a seat whose bank ran out to the game's bot with nobody reading the game
(telling it first, under a tenth: ``seat_clock_low`` and a ``clock`` webhook message)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import time
from collections.abc import Callable
from typing import Any

import pytest
from apiutil import assert_problem, create_game, serve
from litestar import Litestar
from receiver import receiver
from standardwebhooks import Webhook

from darkroad.api.app import lobby as lobbies
from darkroad.api.app.lobby import Clock, Lobby, LobbySeat
from darkroad.api.settings import Settings
from darkroad.api.store.base import GameStore

pytestmark = pytest.mark.xdist_group("store-cluster")
"""Under ``--dist loadgroup`` (CI) the module runs on the worker holding the Redis Cluster, the run's lane
of tests that mostly wait (tests/api/conftest.py's :data:`STORES`): its tests mostly wait too (banks
running out), and spread over every worker they made all four wait at once."""


def lobby(initial: float, increment: float) -> Lobby:
    return Lobby(seats=[LobbySeat("human"), LobbySeat("human")], created=0.0, clock=Clock(initial, increment))


def test_a_bank_runs_only_while_its_seat_is_awaited() -> None:
    clock = lobby(100, 5)
    clock.track([0], None, 1000.0)  # seat 0 awaited from t=1000
    assert clock.bank(0, 1030.0) == 70 and clock.bank(1, 1030.0) == 100  # seat 1 not awaited: untouched
    clock.track([1], 0, 1030.0)  # seat 0 decided after 30 s: 70 + 5; seat 1 awaited now
    assert clock.bank(0) == 75 and clock.seats[0].since is None
    assert clock.bank(0, 2000.0) == 75  # not running
    clock.track([1], 1, 1040.0)  # seat 1 decided after 10 s and is awaited again (a turn of several steps)
    assert clock.bank(1) == 95 and clock.seats[1].since == 1040.0
    clock.track([0], 1, 1041.0)
    assert clock.bank(1) == 99  # 95 - 1 + 5, capped at the initial time
    clock.track([1], 0, 1042.0)
    assert clock.bank(0) == 79
    clock.track([0], 1, 1042.5)
    assert clock.bank(1) == 100  # 99 - 0.5 + 5 -> capped at 100


def test_the_deadline_is_the_first_warning_or_the_end() -> None:
    clock = lobby(100, 0)
    clock.track([0], None, 1000.0)
    assert clock.deadline() == 1090.0  # under a tenth at 1090, empty at 1100
    clock.seats[0].warned = True
    assert clock.deadline() == 1100.0
    assert clock.overdue(0, 1100.0) and not clock.overdue(0, 1099.0) and not clock.overdue(1, 2000.0)


async def handed_over_and_played(store: GameStore, game_id: str, seat: int, version: int) -> bool:
    """Whether the game's log, read from its store (not through the app, which a reader would be),
    has ``seat`` handed over and the game has reached ``version``."""
    stored = await store.load(game_id)
    events = [json.loads(event.payload) for event in await store.events(game_id, -1, 500)]
    return stored is not None and stored.version >= version and any(
        event["type"] == "seat_replaced" and event.get("seat") == seat for event in events)


async def test_an_empty_bank_hands_the_seat_to_the_bot_with_nobody_reading(
    make_app: Callable[[Settings], Litestar], settings: Settings
) -> None:
    """A seat whose bank runs out is handed to the timeout bot by the workers (nobody reads the
    game meanwhile); under a tenth it is told first: ``seat_clock_low``, and a ``clock`` message."""
    settings = dataclasses.replace(settings, webhook_allow_private=True)
    app = make_app(settings)
    with receiver() as hook:
        async with serve(app) as client:
            game = await create_game(client, seed=5, clock={"initial": 2, "increment": 1})
            view = (await client.get(game.url)).json()
            seat = view["awaiting"][0]
            assert view["clock"] == {"initial": 2, "increment": 1} and view["timeout_bot"] == lobbies.DEFAULT_TIMEOUT_BOT
            assert view["seats"][seat]["clock"]["running"] and view["seats"][seat]["clock"]["remaining"] == 2
            assert view["seats"][1 - seat]["clock"] == {"remaining": 2, "running": False, "ends_at": None}
            made = await client.put(f"{game.url}/seats/{seat}/webhook", json={"url": hook.url},
                                    headers=game.auth(seat))
            secret = made.json()["secret"]
            started = time.monotonic()
            # Nobody reads the game: its store is watched beside the app until the workers have handed
            # the seat to the bot and the bot played on (a fixed sleep waited for a slow machine's time).
            while not await handed_over_and_played(app.state.service.store, game.id, seat, view["version"] + 3):
                assert time.monotonic() - started < 10, "the seat was not handed over and played on within 10 s"
                await asyncio.sleep(0.1)
            log = (await client.get(f"{game.url}/log", params={"after": -1, "limit": 500})).json()["events"]
            kinds = [(event["type"], event.get("seat")) for event in log]
            assert ("seat_clock_low", seat) in kinds and ("seat_replaced", seat) in kinds
            assert kinds.index(("seat_clock_low", seat)) < kinds.index(("seat_replaced", seat))
            after = (await client.get(game.url)).json()
            # Empty when handed over; since then each of the bot's decisions for it added 1 s, up to 2.
            assert after["seats"][seat]["replaced"] and 0 <= after["seats"][seat]["clock"]["remaining"] <= 2
            assert not after["seats"][seat]["clock"]["running"]
            assert after["version"] > view["version"] + 2  # the bot played on
            assert time.monotonic() - started < 10
            # The seat keeps its subscription while a bot plays it.
            kept = await client.get(f"{game.url}/seats/{seat}/webhook", headers=game.auth(seat))
            assert kept.status_code == 200
            reclaimed = await client.post(f"{game.url}/seats/{seat}/reclaim", headers=game.auth(seat))
            assert reclaimed.status_code == 200
            kept = await client.get(f"{game.url}/seats/{seat}/webhook", headers=game.auth(seat))
            assert kept.status_code == 200  # and after it is reclaimed
            await asyncio.to_thread(hook.wait_for, 1)
    message = Webhook(secret).verify(hook.received[0].body, hook.received[0].headers)
    assert message["type"] == "clock" and message["data"]["seat"] == seat
    assert 0 <= message["data"]["remaining"] < 0.2
    assert "left on its clock" in message["data"]["text"]


async def test_deciding_adds_the_increment(make_app: Callable[[Settings], Litestar]) -> None:
    async with serve(make_app(Settings())) as client:
        game = await create_game(client, seed=5, clock={"initial": 600, "increment": 30})
        rnd = random.Random(1)
        for _ in range(6):
            view = (await client.get(game.url)).json()
            seat = view["awaiting"][0]
            actions = (await client.get(f"{game.url}/actions", headers=game.auth(seat))).json()["actions"]
            answer = await client.post(f"{game.url}/actions", json=rnd.choice(actions), headers=game.auth(seat))
            assert answer.status_code == 200
            seats = answer.json()["seats"]
            assert 599 <= seats[seat]["clock"]["remaining"] <= 600  # spent well under the increment: capped
            for other in seats:
                clock: dict[str, Any] = other["clock"]
                assert clock["running"] == (other["seat"] in answer.json()["awaiting"])
                assert (clock["ends_at"] is None) == (not clock["running"])


@pytest.mark.stores("memory")
@pytest.mark.parametrize("clock", [{"initial": 0}, {"initial": 10, "increment": -1}, {"increment": 5},
                                   {"initial": 10, "other": 1}, {"initial": "10"}])
async def test_bad_clocks_are_refused(client: Any, clock: dict[str, Any]) -> None:
    answer = await client.post("/v1/games", json={"players": 2, "clock": clock})
    assert_problem(answer, 400, "bad-request")


async def test_a_retried_action_answers_the_first_answer_s_banks(make_app: Callable[[Settings], Litestar]) -> None:
    """An action retried with its ``Idempotency-Key`` after the game moved on gets the first
    answer byte for byte, its seats' banks included (the record keeps them)."""
    async with serve(make_app(Settings())) as client:
        game = await create_game(client, seed=5, clock={"initial": 600})
        rnd = random.Random(2)
        first = None
        for n in range(8):
            view = (await client.get(game.url)).json()
            seat = view["awaiting"][0]
            actions = (await client.get(f"{game.url}/actions", headers=game.auth(seat))).json()["actions"]
            action = rnd.choice(actions)
            headers = {**game.auth(seat), "Idempotency-Key": f"k{n}"}
            answer = await client.post(f"{game.url}/actions", json=action, headers=headers)
            assert answer.status_code == 200
            if n == 2:
                first = (action, headers, answer.content)
            await asyncio.sleep(0.05)  # the banks move on
        assert first is not None
        again = await client.post(f"{game.url}/actions", json=first[0], headers=first[1])
    assert again.status_code == 200 and again.headers.get("idempotent-replayed") == "true"
    assert again.content == first[2]


async def test_history_shows_the_banks_as_they_were(make_app: Callable[[Settings], Litestar]) -> None:
    """``GET .../history/{version}`` shows every seat's bank as that version's answer showed it
    (replayed from the action list's times), not as it is now."""
    async with serve(make_app(Settings())) as client:
        game = await create_game(client, seed=5, clock={"initial": 600})
        rnd = random.Random(4)
        answered: dict[int, list[dict[str, Any]]] = {}
        for _ in range(10):
            view = (await client.get(game.url)).json()
            seat = view["awaiting"][0]
            await asyncio.sleep(0.3)  # the bank runs: every version's banks differ
            actions = (await client.get(f"{game.url}/actions", headers=game.auth(seat))).json()["actions"]
            answer = (await client.post(f"{game.url}/actions", json=rnd.choice(actions), headers=game.auth(seat))).json()
            answered[answer["version"]] = [other["clock"] for other in answer["seats"]]
        now = (await client.get(game.url)).json()
        for version, clocks in answered.items():
            shown = (await client.get(f"{game.url}/history/{version}")).json()["view"]["seats"]
            for was, then in zip(clocks, (seat["clock"] for seat in shown), strict=True):
                # The entry's time is stamped to the millisecond.
                assert then["running"] == was["running"] and abs(then["remaining"] - was["remaining"]) < 0.002
                assert (then["ends_at"] is None) == (was["ends_at"] is None)
        first = (await client.get(f"{game.url}/history/0")).json()["view"]["seats"]
    assert [seat["clock"]["remaining"] for seat in first] == [600, 600]
    assert sorted(seat["clock"]["remaining"] for seat in now["seats"])[0] < 599.5  # now is not then


async def test_a_seat_reclaimed_after_its_bank_ran_out_has_what_its_bot_earned(
    make_app: Callable[[Settings], Litestar], settings: Settings
) -> None:
    """Each decision of a seat adds the increment, its bot's too while the bot plays it; a
    hand-over and a reclaim are no decision. So a seat whose bank ran out comes back with what
    its bot's decisions earned (capped at the initial time), and the history shows each version's
    banks through the hand-over and the reclaim as their answers did."""
    async with serve(make_app(settings)) as client:
        game = await create_game(client, seed=5, clock={"initial": 3, "increment": 1})
        seat = (await client.get(game.url)).json()["awaiting"][0]
        for _ in range(300):  # the bank runs out (3 s), the bot plays on and earns increments
            view = (await client.get(game.url)).json()
            if view["seats"][seat]["replaced"] and view["seats"][seat]["clock"]["remaining"] >= 2:
                break
            await asyncio.sleep(0.05)
        assert view["seats"][seat]["replaced"] and not view["seats"][seat]["clock"]["running"]
        reclaimed = await client.post(f"{game.url}/seats/{seat}/reclaim", headers=game.auth(seat))
        assert reclaimed.status_code == 200, reclaimed.text
        after = reclaimed.json()
        kept = after["seats"][seat]["clock"]
        # The bank it had at the reclaim, not one increment more (and not a fresh one).
        assert kept["remaining"] == (await client.get(f"{game.url}/history/{after['version'] - 1}")).json()[
            "view"]["seats"][seat]["clock"]["remaining"]
        assert 2 <= kept["remaining"] <= 3
        assert kept["running"] == (seat in after["awaiting"])
        then = (await client.get(f"{game.url}/history/{after['version']}")).json()["view"]["seats"]
        for was, shown in zip(after["seats"], then, strict=True):
            assert shown["clock"]["running"] == was["clock"]["running"]
            assert abs(shown["clock"]["remaining"] - was["clock"]["remaining"]) < 0.002


async def test_a_seat_whose_bank_ran_out_with_no_increment_is_not_reclaimed(
    make_app: Callable[[Settings], Litestar], settings: Settings
) -> None:
    """With no increment an empty bank stays empty (issue 41: a bank runs only while its seat is
    awaited, each decision adds the increment, an empty one hands the seat to the bot): reclaimed,
    the seat would be handed straight back as soon as the game waits for it. The reclaim is a
    clear ``409 bank-empty`` and changes nothing; the bot plays the seat on."""
    async with serve(make_app(settings)) as client:
        game = await create_game(client, seed=5, clock={"initial": 1})
        seat = (await client.get(game.url)).json()["awaiting"][0]
        for _ in range(300):  # the bank runs out (1 s), the workers hand the seat to the bot
            view = (await client.get(game.url)).json()
            if view["seats"][seat]["replaced"]:
                break
            await asyncio.sleep(0.05)
        assert view["seats"][seat]["replaced"] and view["seats"][seat]["clock"]["remaining"] == 0
        refused = await client.post(f"{game.url}/seats/{seat}/reclaim", headers=game.auth(seat))
        assert_problem(refused, 409, "bank-empty")
        assert f"`{lobbies.DEFAULT_TIMEOUT_BOT}`" in refused.json()["detail"]
        after = (await client.get(game.url)).json()
        assert after["seats"][seat]["replaced"] and after["seats"][seat]["bot"] == lobbies.DEFAULT_TIMEOUT_BOT
        events = (await client.get(f"{game.url}/log", params={"after": -1, "limit": 500})).json()["events"]
        assert not any(event["type"] == "seat_reclaimed" for event in events)
