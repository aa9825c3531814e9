"""``/play`` in a Hungarian browser (Debian's Chromium with the ``hu-HU`` locale, driven by
Playwright, as ``test_api_play_browser.py``; the server, the browser and the Hungarian context are
conftest.py's):

* **No English on the table**: the setup page, and the table of a game against the greedy bot
  into its third round, at every kind of decision met, at desktop and phone widths: no English
  word in the text a player reads nor in an accessible name (buttons, landmarks, live regions,
  images, titles), and ``<html lang="hu">``. The game is test_api_play_browser_table.py's whole
  game by clicks, which keeps a Hungarian page of its seat open for its first three rounds
  (browserutil.HungarianSeat): the same game, seed, bot and clicks this module played on a page
  of its own, every page update of it twice.
* **The end and the replay**: a finished game's table (the final score, the whole log) and its
  replay viewer at the setup, mid-game and the end, with no English word, at both widths.
* **How to play** in Hungarian, from the help link: the rulebook quoted in the Hungarian
  edition's words.
* **The switch**: English chosen on the switch is the page's language (``lang="en"``, English
  words) and stays chosen on the next page; Magyar chosen again, Hungarian again.

An English word (browserutil.English) is a word of the English messages (of the core's, the
base game's and the web client's catalogs) that no Hungarian translation uses: the proper names the edition keeps
(docs/hu-glossary.md: buildings, companions, steeds, towns) are in the translations, so they
are not English words here; placeholders are no words.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from apiutil import ApiServer
from browserutil import READ, SETTLE, English, at_both_widths, english_on, finished_game, game_state, settled

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("play-browser-hungarian")]  # one worker: module fixtures


def test_the_setup_page_in_a_hungarian_browser_shows_no_english(hungarian_browser: Any, server: ApiServer,
                                                                english: English) -> None:
    """The setup page: no English word on it nor in its accessible names, at desktop and phone
    widths. (The table, at every kind of decision of three rounds: browserutil.HungarianSeat.)"""
    page = hungarian_browser.new_page()
    page.goto(f"{server.url}/play")
    page.wait_for_selector("#app[data-state=ready]")
    found = at_both_widths(page, english, "setup")
    assert not found, "\n".join(found)


def test_the_switch_chooses_english_and_remembers_it(hungarian_browser: Any, server: ApiServer,
                                                   english: English) -> None:
    """Chosen on the switch, English is the page's language and stays chosen for the next
    page of the same browser; Magyar chosen again, the page is Hungarian again."""
    page = hungarian_browser.new_page()
    page.goto(f"{server.url}/play")
    page.wait_for_selector("#app[data-state=ready]")
    assert page.evaluate(READ)["named"] == ["English", "Magyar"]
    assert page.get_attribute("html", "lang") == "hu" and "Nyelv" in page.inner_text("nav.help")
    with page.expect_navigation():
        page.select_option("#language", "en")
    page.wait_for_selector("#app[data-state=ready]")
    assert page.get_attribute("html", "lang") == "en" and "Create the game" in page.inner_text("#app")
    again = hungarian_browser.new_page()
    again.goto(f"{server.url}/play")
    again.wait_for_selector("#app[data-state=ready]")
    assert again.get_attribute("html", "lang") == "en" and "Language" in again.inner_text("nav.help")
    with again.expect_navigation():
        again.select_option("#language", "hu")
    again.wait_for_selector("#app[data-state=ready]")
    assert english_on(again, english, "setup, Magyar chosen again") == []


def test_how_to_play_in_hungarian_quotes_the_hungarian_rulebook(hungarian_browser: Any, server: ApiServer,
                                                                english: English) -> None:
    """How to play, opened from the page's help link, is in Hungarian: its plain words translated
    and the rulebook quoted in the Hungarian edition's own words (page 13's tie-breakers)."""
    page = hungarian_browser.new_page()
    page.goto(f"{server.url}/play")
    page.wait_for_selector("#app[data-state=ready]")
    with page.expect_navigation():
        page.click("nav.help a")
    assert page.url.endswith("/play/how-to-play?lang=hu")
    assert "a holtversenyt az alábbi tételek döntik el" in page.inner_text("#end")
    assert at_both_widths(page, english, "how to play") == []


def test_a_finished_game_and_its_replay_in_hungarian(hungarian_browser: Any, server: ApiServer,
                                                    english: English) -> None:
    """A finished game's table (the final score, the whole log of a game: every kind of event of
    it) and its replay viewer at the setup, mid-game and the end: no English word, at desktop and
    phone widths."""
    with httpx.Client(base_url=server.url, timeout=30) as http:
        game, tokens, latest = finished_game(http, 43)
        # The bot's seat is named by the (English) client that created the game: a name.
        names = tuple(seat["name"] for seat in game_state(http, game)["seats"] if seat["name"])
    page = hungarian_browser.new_page()
    page.goto(f"{server.url}/play/{game}#seat=0&token={tokens[0]}")
    settled(page, latest)
    page.wait_for_selector("#score", timeout=SETTLE)
    found = at_both_widths(page, english, "the end", names)
    page.click(".replay-start")
    settled(page, 0)
    found += at_both_widths(page, english, "replay, the setup", names)
    for at in (latest // 2, latest):
        page.eval_on_selector(".replay-slider", f"(s) => {{ s.value = '{at}'; s.dispatchEvent(new Event('input')); }}")
        settled(page, at)
        found += at_both_widths(page, english, f"replay, version {at}", names)
    assert not found, "\n".join(found)
