"""The replay of a finished game in ``/play``, and Undo, in a real browser (Debian's Chromium driven by
Playwright, as ``test_api_play_browser.py``): the table offers the replay, ``#at=N`` opens it at version N,
it steps by action, turn and round with its buttons and the keyboard, and its slider jumps; a
seat's link replays that seat's views (``history`` asked with its token), a spectator's the
public ones (no token).

Undo: the table offers Undo while its view says ``undo_available``; the button and Ctrl+Z take back
the seat's last action (``POST .../undo``) and the table shows the game as it was, with the
``undone`` event in the log. (It had a module of its own, and so a server, a Chromium and a
Playwright driver of its own: about 3 s of CPU, Chromium's measured from /proc.)"""

from __future__ import annotations

import random
from typing import Any

import httpx
import pytest
from apiutil import ApiServer
from browserutil import SEED, SETTLE, Pages, act_randomly, create, finished_game, game_state, settled

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("play-browser-replay")]  # one worker: module fixtures


def history(http: httpx.Client, game: str, latest: int) -> list[dict[str, Any]]:
    """The spectator's history entry of every version."""
    return [http.get(f"/v1/games/{game}/history/{version}").json() for version in range(latest + 1)]


def marks(entries: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """(round, active seat) of each entry's view."""
    return [(entry["view"]["round"], entry["view"]["active_seat"]) for entry in entries]


def last_event(entries: list[dict[str, Any]], at: int) -> int:
    """The last event a spectator saw up to version ``at``."""
    return max(event["n"] for entry in entries[: at + 1] for event in entry["events"])


WHOSE = {0: "Ann's turn", 1: "Random's turn (a bot)"}
"""Whose turn it is, in the replay's words (a spectator's page of ``finished_game``)."""


def moment(marks: list[tuple[int, int]], at: int) -> str:
    """What the replay says of version ``at``: the round, whose turn, and the step of the turn."""
    start = at
    while start > 0 and marks[start - 1] == marks[at]:
        start -= 1
    rnd, seat = marks[at]
    if rnd == 0:
        return f"The setup, step {at - start + 1}"
    return f"Round {rnd} of 13, {WHOSE[seat]}, step {at - start + 1}"


def first_after(marks: list[tuple[int, int]], at: int, key: Any) -> int:
    return next((v for v in range(at + 1, len(marks)) if key(marks[v]) != key(marks[at])), len(marks) - 1)


def recording(asked: list[str | None]) -> Any:
    """A page's preparation that records the Authorization header of each ``history`` request."""
    def prepare(page: Any) -> None:
        page.on("request", lambda request: asked.append(request.headers.get("authorization"))
                if "/history/" in request.url else None)
    return prepare


def test_a_finished_game_replays_by_action_turn_round_slider_and_keys(pages: Pages, server: ApiServer) -> None:
    """The replay's steps on a spectator's page (its history asked without a token); then a
    seat's link replays that seat's views (asked with its token). (The seat's link was a test of
    its own, on a finished game of its own.)"""
    with httpx.Client(base_url=server.url, timeout=30) as http:
        game, tokens, latest = finished_game(http, 7)
        entries = history(http, game, latest)
        versions = marks(entries)
        every_event = [event["n"] for event in http.get(f"/v1/games/{game}/log").json()["events"]]
        mine = http.get(f"/v1/games/{game}/history/9", headers={"Authorization": f"Bearer {tokens[0]}"}).json()
    assert mine["view"]["players"][0]["coins"] is not None and entries[9]["view"]["players"][0]["coins"] is None
    asked: dict[str, list[str | None]] = {"seat": [], "spectator": []}

    # The finished table offers the replay.
    table = pages.open(f"{server.url}/play/{game}")
    settled(table, latest)
    table.click(".replay-start")
    settled(table, 0)
    assert table.get_attribute("#app", "data-replay") == str(latest)

    # #at=N opens it at N, said in rounds and turns; the arrows step an action.
    page = pages.open(f"{server.url}/play/{game}#at=5", prepare=recording(asked["spectator"]))
    settled(page, 5)
    assert page.inner_text(".replay-where") == moment(versions, 5)
    # The log follows the moment replayed: the events up to it, none after.
    page.wait_for_selector(f'#events li[data-n="{every_event[-1]}"]', state="attached", timeout=SETTLE)
    shown = page.eval_on_selector_all("#events li:not([hidden])", "items => items.map(li => Number(li.dataset.n))")
    assert shown and max(shown) == last_event(entries, 5) and sorted(shown) == [n for n in every_event if n <= max(shown)]
    page.keyboard.press("ArrowRight")
    settled(page, 6)
    assert page.inner_text(".replay-where") == moment(versions, 6)
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
    # Leaving the replay shows the whole log again.
    page.click(".replay-leave")
    settled(page, latest)
    assert page.locator("#events li[hidden]").count() == 0
    assert page.locator("#events li").count() == len(every_event)

    # A seat's link replays the seat's own views; the spectator's page asked with no token.
    seat = pages.open(f"{server.url}/play/{game}#seat=0&token={tokens[0]}&at=9", prepare=recording(asked["seat"]))
    settled(seat, 9)
    assert "Replay, as you saw it" in seat.inner_text("#decision")
    assert asked["seat"] and set(asked["seat"]) == {f"Bearer {tokens[0]}"}
    assert asked["spectator"] and set(asked["spectator"]) == {None}


# -- undo ------------------------------------------------------------------------------------

ROTATE = "#actions button.action:has-text('rotate the market wheel')"


def same_but_version(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return {**a, "version": 0} == {**b, "version": 0}


def test_undo_by_button_and_by_ctrl_z(pages: Pages, server: Any) -> None:
    """At the Great Bazaar (rulebook p. 8: "first you may perform the following two actions in
    either order. - Rotate the market wheel 1 space clockwise. - Change 1 market die ..."), a
    rotation is taken back with Ctrl+Z, then again with the button; a spectator's page follows."""
    http = httpx.Client(base_url=server.url, timeout=30)
    game, tokens = create(http, players=2, seed=SEED + 40)
    view = act_randomly(http, game, tokens, random.Random(SEED + 40),
                        until=lambda v: (v["decision"] or {}).get("type") == "great_bazaar")
    seat = view["awaiting"][0]
    before = game_state(http, game, tokens[seat])
    assert (before["decision"] or {}).get("type") == "great_bazaar", before["decision"]  # not a finished game
    page = pages.open(f"{server.url}/play/{game}#seat={seat}&token={tokens[seat]}")
    spectator = pages.open(f"{server.url}/play/{game}")
    version = settled(page, before["version"])
    settled(spectator, version)
    # The Undo button is there only while the view says so.
    assert page.locator("button.undo").count() == (1 if before["undo_available"] else 0)

    page.click(ROTATE)
    settled(page, version + 1)
    assert page.is_visible("button.undo") and page.get_attribute("button.undo", "aria-keyshortcuts") == "Control+Z"
    assert spectator.locator("button.undo").count() == 0
    page.keyboard.press("Control+z")
    settled(page, version + 2)
    assert same_but_version(game_state(http, game, tokens[seat]), before)
    page.wait_for_selector("#events li:has-text('took back their last action')", timeout=5_000)
    settled(spectator, version + 2)
    assert "took back" in spectator.inner_text("#events")

    page.click(ROTATE)
    settled(page, version + 3)
    page.click("button.undo")
    settled(page, version + 4)
    assert same_but_version(game_state(http, game, tokens[seat]), before)
    assert page.inner_text("#decision .message") == ""
