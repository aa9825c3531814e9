"""What the browser tests of ``/play`` share (test_api_play_browser*.py): the sizes, seeds and waits,
the pages (:class:`Pages`, each in a browser context of its own), the table's settled state,
games made and played through the API, and a Hungarian reader's page (:class:`English`,
:class:`HungarianSeat`). Their fixtures (the server, Chromium, the pages, the screenshots'
folder, a Hungarian browser context) are conftest.py's. No test module imports another.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
from apiutil import ApiServer, list_elsewhere
from babel.messages.pofile import read_po

WIDE = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SEED = 20260
AUTO_TAKE = "darkroad.play.autoTake"
"""The table's setting (localStorage) that takes a decision with a single answer by itself."""
SETTLE = 30_000
"""Longest wait (ms) for a page to settle after the game moved: a page that misses an event
it should see fails here (saying what it shows) rather than hanging. A bound, not a pause: the
tests wait for the page's state, and a CI machine at a load of 30 has taken over 15 s to bring
a page its event, the view and the actions."""

# The WCAG contrast of every visible text node against the background it is drawn on.
CONTRAST = """() => {
  const parse = (c) => { const m = c.match(/[\\d.]+/g) || ["0", "0", "0", "0"]; return [+m[0], +m[1], +m[2], m.length > 3 ? +m[3] : 1]; };
  const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const over = (top, under) => { const a = top[3]; return [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a)).concat(1); };
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) { const c = parse(getComputedStyle(e).backgroundColor); if (c[3] > 0) layers.push(c); if (c[3] >= 1) break; }
    let colour = parse(getComputedStyle(document.documentElement).backgroundColor);
    for (const layer of layers.reverse()) colour = over(layer, colour);
    return colour;
  };
  const failures = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || !node.textContent.trim() || el.closest(".visually-hidden, .skip, noscript")) continue;
    const rect = el.getBoundingClientRect();
    if (rect.width < 2 || rect.height < 2 || getComputedStyle(el).visibility === "hidden") continue;
    const style = getComputedStyle(el);
    const fg = over(parse(style.color), background(el));
    const [a, b] = [lum(fg), lum(background(el))].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    const large = parseFloat(style.fontSize) >= 24 || (parseFloat(style.fontSize) >= 18.66 && +style.fontWeight >= 700);
    if (ratio < (large ? 3 : 4.5)) failures.push(`${node.textContent.trim().slice(0, 40)}: ${ratio.toFixed(2)}`);
  }
  return failures;
}"""


class Pages:
    """Browser pages on one server, each in a context of its own (as separate players' browsers:
    a background tab of one window would not paint), with every other host cut off and every
    page error and foreign request recorded."""

    def __init__(self, browser: Any, server: ApiServer) -> None:
        self.browser = browser
        self.here = urlsplit(server.url).netloc
        self.contexts: list[Any] = []
        self.elsewhere: list[str] = []
        self.errors: list[str] = []

    def open(self, url: str, viewport: dict[str, int] = WIDE, *, cut: str | None = None,
             routes: Mapping[str | re.Pattern[str], Callable[[Any], None]] | None = None,
             prepare: Callable[[Any], None] | None = None, auto_take: bool = False) -> Any:
        """A page of ``url`` in a new context; requests to URLs matching the glob ``cut`` fail;
        each of ``routes`` (a Playwright URL pattern: its handler) and then ``prepare(page)``
        are set before the page is loaded (their routes take precedence). The table's setting
        that takes a decision with a single answer by itself is off unless ``auto_take`` (on by
        default for players: the tests of it say so; the others click every decision they wait
        for)."""
        context = self.browser.new_context(viewport=viewport)
        if not auto_take:
            auto_take_off(context)
        self.contexts.append(context)
        page = context.new_page()
        list_elsewhere(page, self.here, self.elsewhere)
        if cut:
            page.route(cut, lambda route: route.abort())
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        for pattern, handler in (routes or {}).items():
            page.route(pattern, handler)
        if prepare:
            prepare(page)
        page.goto(url)
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()
        assert self.elsewhere == [], f"requests to other hosts: {self.elsewhere}"
        assert self.errors == [], f"page errors: {self.errors}"


def auto_take_off(context: Any) -> None:
    """Turn the table's :data:`AUTO_TAKE` setting off in every page of ``context`` before the page's
    scripts run: a decision with a single answer waits for a click there."""
    # (about:blank, every context's first document, keeps no storage: the write throws there.)
    context.add_init_script(f"try {{ window.localStorage.setItem({AUTO_TAKE!r}, 'off') }} catch {{}}")


def settled(page: Any, version: int | None = None, timeout: int = SETTLE) -> int:
    """Wait until the table has settled (at ``version`` if given); its version."""
    selector = "#app[data-state=ready][data-version]" if version is None else \
        f'#app[data-state=ready][data-version="{version}"]'
    try:
        page.wait_for_selector(selector, timeout=timeout)
    except Exception as error:  # Playwright's TimeoutError: say what the page shows instead
        raise AssertionError(f"the page did not settle at version {version}: {page_state(page)}") from error
    return int(page.get_attribute("#app", "data-version"))


def page_state(page: Any) -> dict[str, Any]:
    """What the table shows of its state: its data-state, version and link (the event stream),
    the decision's title and message, the last lines of its log (a failure's evidence)."""
    return dict(page.evaluate("""() => { const app = document.querySelector('#app');
      const text = (s) => document.querySelector(s)?.innerText ?? null;
      return { state: app?.dataset.state, version: app?.dataset.version, link: app?.dataset.link,
               title: text('#decision h2'), message: text('#decision .message'),
               buttons: document.querySelectorAll('#decision button.action').length,
               log: [...document.querySelectorAll('#events .log li')].slice(0, 3).map((li) => li.innerText) }; }"""))


def game_state(http: httpx.Client, game: str, token: str | None = None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = http.get(f"/v1/games/{game}", headers=headers)
    assert response.status_code == 200, response.text
    state: dict[str, Any] = response.json()
    return state


def create(http: httpx.Client, **body: Any) -> tuple[str, dict[int, str]]:
    created = http.post("/v1/games", json=body).json()
    return created["id"], {s["seat"]: s["token"] for s in created["seats"] if s["token"]}


def act_randomly(http: httpx.Client, game: str, tokens: dict[int, str], rng: random.Random,
                 until: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """Play random legal actions through the API until ``until(view)``; the last view. A seat
    without a token is a bot's: its moves are the bot worker's, waited for."""
    deadline = time.monotonic() + 120
    while True:
        view = game_state(http, game)
        if until(view) or view["status"] == "finished":
            return view
        mine = [seat for seat in view["awaiting"] if seat in tokens]
        if not mine:
            assert time.monotonic() < deadline, f"the bot never played: {view['awaiting']}"
            time.sleep(0.05)
            continue
        seat = mine[0]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        listed = http.get(f"/v1/games/{game}/actions", headers=auth).json()
        assert http.post(f"/v1/games/{game}/actions", json=rng.choice(listed["actions"]), headers=auth).status_code == 200


def finished_game(http: httpx.Client, seed: int) -> tuple[str, dict[int, str], int]:
    """A finished game of a player (seat 0, random moves) and a bot: its id, tokens and last version."""
    game, tokens = create(http, players=2, seed=SEED + seed,
                          seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}])
    final = act_randomly(http, game, tokens, random.Random(seed), lambda view: False)
    assert final["status"] == "finished"
    return game, tokens, int(final["version"])


# -- a Hungarian reader ------------------------------------------------------------------

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


class HungarianSeat:
    """A Hungarian reader's page of a seat in a game another page plays by clicks (the whole game
    of test_api_play_browser_table.py), for its first :data:`ROUNDS_PLAYED` rounds: at the first
    decision of each kind, :meth:`read` finds no English word on it at either width. Its table
    takes no answer by itself (the playing page does)."""

    def __init__(self, context: Any, http: httpx.Client, link: str, english: English, names: tuple[str, ...],
                 screenshots: Path) -> None:
        auto_take_off(context)
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
