"""``/play``: the Undo button and Ctrl+Z, in a real browser (Debian's Chromium, by Playwright).

The table offers Undo while its view says ``undo_available``; the button and Ctrl+Z take back
the seat's last action (``POST .../undo``) and the table shows the game as it was, with the
``undone`` event in the log. Uses ``test_play_browser``'s server, browser and pages.
"""

from __future__ import annotations

import random
from typing import Any

import httpx
import pytest
from test_play_browser import SEED, Pages, act_randomly, browser, create, game_state, pages, server, settled

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("play-browser-undo")]  # one worker: module fixtures
__all__ = ["browser", "pages", "server"]  # the fixtures, shared with test_play_browser

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
    assert before["undo_available"] is False or before["decision"]["type"] == "great_bazaar"
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
