"""What each answer gives, in the action list (issue 42): ``details`` beside the ``label`` of the
listed actions, in words; an action sent back with its label and details is the same action (both
ignored), and a ``details`` that is not a string of at most ``MAX_DETAILS_LENGTH`` characters is
refused like any malformed action (a 4xx problem, nothing changed)."""

from __future__ import annotations

import random
from typing import Any

import httpx
import pytest
from apiutil import assert_problem, awaited_seat, create_game, legal

from darkroad.core.actions import MAX_DETAILS_LENGTH
from darkroad.core.wording import problems

pytestmark = pytest.mark.stores("memory")


async def play_until(client: httpx.AsyncClient, game: Any, wanted: str, seed: int) -> tuple[int, list[dict[str, Any]]]:
    """Play seeded random actions until a seat's decision is of type ``wanted``: that seat and its
    actions."""
    rng = random.Random(seed)
    for _ in range(3000):
        seat = await awaited_seat(client, game)
        actions = await legal(client, game, seat)
        if actions and actions[0]["type"] == wanted:
            return seat, actions
        response = await client.post(f"{game.url}/actions", json=rng.choice(actions), headers=game.auth(seat))
        assert response.status_code == 200, response.text
    raise AssertionError(f"no {wanted} decision came")


@pytest.mark.parametrize(("kind", "says"), [
    # Rulebook p. 6: "refer to the crafting chart to determine which basic good matches the value
    # of the newly locked night die".
    ("plan", "Slot #"),
    # P. 8: "The costs of the available goods are indicated by their current values."
    ("great_bazaar", "$"),
    # P. 12: "compare the die's face value with the event card".
    ("travel_die", "1: "),
])
async def test_listed_actions_say_what_they_give(client: httpx.AsyncClient, kind: str, says: str) -> None:
    game = await create_game(client, players=2, seed=5)
    seat, actions = await play_until(client, game, kind, seed=5)
    detailed = [a for a in actions if a["type"] == kind and "details" in a]
    assert detailed, actions
    for action in detailed:
        assert says in action["details"] and len(action["details"]) <= MAX_DETAILS_LENGTH
        assert problems(action["details"]) == [] and problems(action["label"]) == []
    # The action as listed, details and all, is accepted unchanged.
    chosen = detailed[0]
    response = await client.post(f"{game.url}/actions", json=chosen, headers=game.auth(seat))
    assert response.status_code == 200, response.text


async def test_a_plan_details_name_the_good_slot_1_crafts(client: httpx.AsyncClient) -> None:
    game = await create_game(client, players=2, seed=6)
    seat, actions = await play_until(client, game, "plan", seed=6)
    chart = (await client.get("/v1/catalog")).json()["content"]["crafting_chart"]
    goods = {g["id"]: g["name"].lower() for g in (await client.get("/v1/catalog")).json()["content"]["goods"]}
    for action in actions:
        if action["option"].startswith("bump:1:"):
            die = action["option"].split(":")[2]
            assert f"a {die} crafts" in action["details"] and goods[chart[die]] in action["details"]


@pytest.mark.parametrize("details", [None, 3, ["x"], "x" * (MAX_DETAILS_LENGTH + 1)],
                         ids=["null", "number", "list", "too long"])
async def test_bad_details_are_refused_and_change_nothing(client: httpx.AsyncClient, details: Any) -> None:
    game = await create_game(client, players=2, seed=7)
    seat = await awaited_seat(client, game)
    action = (await legal(client, game, seat))[0]
    before = (await client.get(game.url)).json()["version"]
    assert_problem(await client.post(f"{game.url}/actions", json={**action, "details": details},
                                     headers=game.auth(seat)), 422, "bad-action")
    assert (await client.get(game.url)).json()["version"] == before
