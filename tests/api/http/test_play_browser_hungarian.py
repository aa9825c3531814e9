"""``/play`` in a Hungarian browser (Debian's Chromium with the ``hu-HU`` locale, driven by
Playwright, as ``test_play_browser.py``, whose server and browser it uses):

* **No English on the table**: the setup page, and the table of a game against the greedy bot
  into its third round, at every kind of decision met, at desktop and phone widths: no English
  word in the text a player reads nor in an accessible name (buttons, landmarks, live regions,
  images, titles), and ``<html lang="hu">``. The game is test_play_browser_table.py's whole
  game by clicks, which keeps a Hungarian page of its seat open for its first three rounds
  (:class:`HungarianSeat`): the same game, seed, bot and clicks this module played on a page of
  its own, every page update of it twice.
* **The end and the replay**: a finished game's table (the final score, the whole log) and its
  replay viewer at the setup, mid-game and the end, with no English word, at both widths.
* **How to play** in Hungarian, from the help link: the rulebook quoted in the Hungarian
  edition's words.
* **The switch**: English chosen on the switch is the page's language (``lang="en"``, English
  words) and stays chosen on the next page; Magyar chosen again, Hungarian again.

An English word is a word of the English messages (of the core's, the base game's and the web
client's catalogs) that no Hungarian translation uses: the proper names the edition keeps
(docs/hu-glossary.md: buildings, companions, steeds, towns) are in the translations, so they
are not English words here; placeholders are no words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import test_play_browser
from apiutil import ApiServer, list_elsewhere
from babel.messages.pofile import read_po
from test_play_browser import PHONE, SETTLE, WIDE, game_state, settled
from test_play_browser_replay import finished_game

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("play-browser-hungarian")]  # one worker: module fixtures
# The browser and the server of test_play_browser, as fixtures of this module.
browser = test_play_browser.browser
server = test_play_browser.server

ROOT = Path(__file__).resolve().parents[3]
CATALOGS = ("core/locale/hu/LC_MESSAGES/darkroad.po", "plugins/locale/hu/LC_MESSAGES/darkroad_basegame.po",
            "web/locale/hu/LC_MESSAGES/darkroad_web.po")
WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd]")
TITLE = "Merchants of the Dark Road"
"""The game's title, printed in English on the Hungarian edition too."""
ROUNDS_PLAYED = 3
"""The rounds a Hungarian page reads of the whole game (every phase, the caravan included)."""

# Every text a player reads or hears: the rendered text, and every element's accessible name
# and description (aria-label, title, alt, placeholder), the language switch's options aside
# (each language is named in itself there).
READ = """() => {
  const texts = [document.body.innerText, document.title];
  for (const el of document.querySelectorAll('[aria-label], [title], [alt], [placeholder], [aria-description]')) {
    if (el.closest('#language')) continue;
    for (const name of ['aria-label', 'title', 'alt', 'placeholder', 'aria-description'])
      if (el.hasAttribute(name)) texts.push(el.getAttribute(name));
  }
  const switcher = document.querySelector('#language');
  const named = switcher ? [...switcher.options].map((o) => o.text) : [];
  return {texts, named, lang: document.documentElement.lang};
}"""


IDENT = re.compile(r"\w+(?:[-_]\w+)+")
"""An id (a plugin's, ``fan-pack-snow-owl``): no word of any language."""
WITH_DIGITS = re.compile(r"\w*\d\w*")
"""Letters and digits run together (a game's id in the page's title, ``ZxRA8Not…``): an id, not
words (its letters read as "not" once failed a run, 1 game id in some hundreds)."""


def words(text: str) -> set[str]:
    """The words of ``text``, lowercased; a letter alone is no word (a good's initial on a
    wagon's storage, "H" for *hangszer*)."""
    text = WITH_DIGITS.sub(" ", IDENT.sub(" ", PLACEHOLDER.sub(" ", text)))
    return {w.lower() for w in WORD.findall(text) if len(w) > 1}


class English:
    """What counts as English on a Hungarian page: the words of the catalogs' English messages
    that no Hungarian translation uses, once the names the edition keeps as printed (a message
    whose translation is itself: "The Oracle of Lumi", "Farglen"; and the game's title) are
    taken out of the text."""

    def __init__(self) -> None:
        source: set[str] = set()
        translations: list[str] = []
        kept = {TITLE}
        for path in CATALOGS:
            with (ROOT / path).open("rb") as f:
                catalog = read_po(f)
            for message in catalog:
                if not message.id:
                    continue
                ids = list(message.id) if isinstance(message.id, list | tuple) else [message.id]
                strings = list(message.string) if isinstance(message.string, list | tuple) else [message.string]
                for text in ids:
                    source |= words(text)
                if strings == ids:
                    kept.update(PLACEHOLDER.sub(" ", text).strip() for text in ids)
                else:
                    translations += strings
        # Case aside: a name kept as printed is a common noun in a sentence too ("egy staff").
        self.kept = re.compile("|".join(re.escape(name) for name in sorted(kept - {""}, key=len, reverse=True)),
                               re.IGNORECASE)
        hungarian = set().union(*(words(self.kept.sub(" ", text)) for text in translations))
        self.words = frozenset(source - hungarian)
        assert {"the", "your", "round", "choose", "gain", "coins", "and"} <= self.words, "the vocabulary is not English"

    def found(self, text: str) -> list[str]:
        """The English words of ``text``."""
        return sorted(words(self.kept.sub(" ", text)) & self.words)


@pytest.fixture(scope="module")
def english() -> English:
    return English()


@pytest.fixture
def hungarian_browser(browser: Any, server: ApiServer) -> Iterator[Any]:
    """A browser context of a Hungarian reader (``hu-HU``: navigator.languages and
    Accept-Language), every other host cut off, page errors recorded."""
    context = browser.new_context(viewport=WIDE, locale="hu-HU")
    here = urlsplit(server.url).netloc
    elsewhere: list[str] = []
    errors: list[str] = []
    list_elsewhere(context, here, elsewhere)
    context.on("page", lambda page: page.on("pageerror", lambda error: errors.append(str(error))))
    yield context
    context.close()
    assert elsewhere == [] and errors == [], (elsewhere, errors)


def english_on(page: Any, english: English, where: str, names: tuple[str, ...] = ()) -> list[str]:
    """The English words the page shows or names (``where``: what the page is, for the message;
    ``names``: the seats' names, which their creator chose)."""
    read = page.evaluate(READ)
    assert read["lang"] == "hu", f"{where}: <html lang={read['lang']!r}>"
    found: list[str] = []
    for text in read["texts"]:
        for name in names:
            text = text.replace(name, " ")
        shown = english.found(text)
        if shown:
            lines = [line for line in text.splitlines() if english.found(line)]
            found.append(f"{where}: {shown} in {lines[:3]!r}")
    return found


def at_both_widths(page: Any, english: English, where: str, names: tuple[str, ...] = ()) -> list[str]:
    found = english_on(page, english, f"{where} (desktop)", names)
    page.set_viewport_size(PHONE)
    found += english_on(page, english, f"{where} (phone)", names)
    page.set_viewport_size(WIDE)
    return found


def test_the_setup_page_in_a_hungarian_browser_shows_no_english(hungarian_browser: Any, server: ApiServer,
                                                                english: English) -> None:
    """The setup page: no English word on it nor in its accessible names, at desktop and phone
    widths. (The table, at every kind of decision of three rounds: :class:`HungarianSeat`.)"""
    page = hungarian_browser.new_page()
    page.goto(f"{server.url}/play")
    page.wait_for_selector("#app[data-state=ready]")
    found = at_both_widths(page, english, "setup")
    assert not found, "\n".join(found)


class HungarianSeat:
    """A Hungarian reader's page of a seat in a game another page plays by clicks (the whole game
    of test_play_browser_table.py), for its first :data:`ROUNDS_PLAYED` rounds: at the first
    decision of each kind, :meth:`read` finds no English word on it at either width. Its table
    takes no answer by itself (the playing page does)."""

    def __init__(self, context: Any, http: httpx.Client, link: str, english: English, names: tuple[str, ...],
                 screenshots: Path) -> None:
        test_play_browser.auto_take_off(context)
        self.page: Any = context.new_page()
        self.page.goto(link)  # the seat's link: /play/GAME#seat=N&token=T
        self.http, self.game, self.token = http, link.split("/play/")[1].split("#")[0], link.split("token=")[1]
        self.english, self.names, self.screenshots = english, names, screenshots
        self.kinds: list[str] = []
        self.found: list[str] = []
        self.shot = False

    def read(self, view: dict[str, Any]) -> None:
        """The seat's decision at ``view`` (the playing page shows its buttons): the page's words,
        at both widths, at the first decision of each kind; round 2's first decision is the
        README's Hungarian screenshot (``play-hu.png``: scripts/screenshots)."""
        kind = view["decision"]["type"]
        first = kind not in self.kinds
        if not (first or (view["round"] == 2 and not self.shot)):
            return
        self.catch_up(view["version"])
        if view["round"] == 2 and not self.shot:
            self.page.screenshot(path=str(self.screenshots / "play-hu.png"))
            self.shot = True
        if first:
            self.kinds.append(kind)
            self.found += at_both_widths(self.page, self.english, f"round {view['round']}, {kind}", self.names)

    def catch_up(self, version: int) -> None:
        """Wait until the page shows ``version`` with its buttons. A seat's action that makes no
        event it sees (going buying at the Great Bazaar) tells none of its pages: this one, a
        second tab of the seat, is reloaded then, as a player reloads a tab another one acted in."""
        events = self.http.get(f"/v1/games/{self.game}/log", headers={"Authorization": f"Bearer {self.token}"})
        last = events.json()["events"][-1]["n"]
        self.page.wait_for_selector(f'#events li[data-n="{last}"]', state="attached", timeout=SETTLE)
        if settled(self.page) != version:  # every event in, and settled: no event is coming
            self.page.reload()
        self.page.wait_for_selector(f'#app[data-state=ready][data-version="{version}"] #decision button.action',
                                    timeout=SETTLE)

    def close(self) -> None:
        """Done reading (the game is past its third round): every kind read found no English, and
        round 2's screenshot (``play-hu.png``, docs/images' for the README) was written."""
        self.page.close()
        assert self.shot and (self.screenshots / "play-hu.png").is_file(), "no play-hu.png: round 2 was never read"
        assert len(self.kinds) > 8, self.kinds
        assert not self.found, "\n".join(self.found)


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
