"""The replay of a finished game in ``/play``, in a real browser (Debian's Chromium driven by
Playwright, as ``test_play_browser.py``): the table offers it, ``#at=N`` opens it at version N,
it steps by action, turn and round with its buttons and the keyboard, and its slider jumps; a
seat's link replays that seat's views (``history`` asked with its token), a spectator's the
public ones (no token)."""

from __future__ import annotations

import random
from typing import Any

import httpx
import pytest
import test_play_browser
from apiutil import ApiServer
from test_play_browser import SEED, Pages, act_randomly, create, settled

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("play-browser")]
# The browser, the server and the pages of test_play_browser, as fixtures of this module.
browser = test_play_browser.browser
server = test_play_browser.server
pages = test_play_browser.pages


def marks(http: httpx.Client, game: str, latest: int) -> list[tuple[int, int]]:
    """(round, active seat) of the spectator's view at every version."""
    found = []
    for version in range(latest + 1):
        view = http.get(f"/v1/games/{game}/history/{version}").json()["view"]
        found.append((view["round"], view["active_seat"]))
    return found


def first_after(marks: list[tuple[int, int]], at: int, key: Any) -> int:
    return next((v for v in range(at + 1, len(marks)) if key(marks[v]) != key(marks[at])), len(marks) - 1)


def finished_game(http: httpx.Client, seed: int) -> tuple[str, dict[int, str], int]:
    """A finished game of a player (seat 0, random moves) and a bot: its id, tokens and last version."""
    game, tokens = create(http, players=2, seed=SEED + seed,
                          seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}])
    final = act_randomly(http, game, tokens, random.Random(seed), lambda view: False)
    assert final["status"] == "finished"
    return game, tokens, int(final["version"])


def test_a_finished_game_replays_by_action_turn_round_slider_and_keys(pages: Pages, server: ApiServer) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as http:
        game, _, latest = finished_game(http, 7)
        versions = marks(http, game, latest)

    # The finished table offers the replay.
    table = pages.open(f"{server.url}/play/{game}")
    settled(table, latest)
    table.click(".replay-start")
    settled(table, 0)
    assert table.get_attribute("#app", "data-replay") == str(latest)

    # #at=N opens it at N; the arrows step an action.
    page = pages.open(f"{server.url}/play/{game}#at=5")
    settled(page, 5)
    assert page.inner_text(".replay-where") == f"Version 5 of {latest}"
    page.keyboard.press("ArrowRight")
    settled(page, 6)
    page.keyboard.press("ArrowLeft")
    settled(page, 5)
    assert page.evaluate("window.location.hash") == "#at=5"

    # A turn (the same round and active seat) and a round, forth and back, by buttons and keys.
    turn = first_after(versions, 5, lambda mark: mark)
    page.click(".replay-next-turn")
    settled(page, turn)
    rnd = first_after(versions, turn, lambda mark: mark[0])
    page.click(".replay-next-round")
    settled(page, rnd)
    page.keyboard.press("ArrowUp")  # back to the start of the turn before this round's first
    start = rnd - 1
    while start > 0 and versions[start - 1] == versions[rnd - 1]:
        start -= 1
    settled(page, start)
    page.keyboard.press("PageDown")
    settled(page, first_after(versions, start, lambda mark: mark[0]))

    # The slider jumps; Home and End go to the ends.
    page.eval_on_selector(".replay-slider", "(slider) => { slider.value = '20'; slider.dispatchEvent(new Event('input')); }")
    settled(page, 20)
    page.keyboard.press("End")
    settled(page, latest)
    page.keyboard.press("Home")
    settled(page, 0)
    assert "The setup" in page.inner_text("#decision")


def test_a_seats_link_replays_its_views_a_spectators_the_public_ones(pages: Pages, server: ApiServer) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as http:
        game, tokens, _ = finished_game(http, 8)
        mine = http.get(f"/v1/games/{game}/history/9", headers={"Authorization": f"Bearer {tokens[0]}"}).json()
        public = http.get(f"/v1/games/{game}/history/9").json()
    assert mine["view"]["players"][0]["coins"] is not None and public["view"]["players"][0]["coins"] is None

    asked: dict[str, list[str | None]] = {"seat": [], "spectator": []}

    def recording(who: str) -> Any:
        def prepare(page: Any) -> None:
            page.on("request", lambda request: asked[who].append(request.headers.get("authorization"))
                    if "/history/" in request.url else None)
        return prepare

    seat = pages.open(f"{server.url}/play/{game}#seat=0&token={tokens[0]}&at=9", prepare=recording("seat"))
    settled(seat, 9)
    assert "Replay, as you saw it" in seat.inner_text("#decision")
    spectator = pages.open(f"{server.url}/play/{game}#at=9", prepare=recording("spectator"))
    settled(spectator, 9)
    assert asked["seat"] and set(asked["seat"]) == {f"Bearer {tokens[0]}"}
    assert asked["spectator"] and set(asked["spectator"]) == {None}
