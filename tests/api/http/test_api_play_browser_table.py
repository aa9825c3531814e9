"""``/play``'s table for a newcomer, in a real browser (Debian's Chromium driven by Playwright,
as ``test_api_play_browser.py``; the server, the browser and the pages are conftest.py's):

* **Names, however early**: event lines that arrive before the first view (which names the
  seats) are worded again with the seats' names.
* **A 429 is not the last word**: a view refused for too many requests is read again.
* **The only answer, taken**: a decision with a single answer is taken by the page itself
  while the table's setting says so (on by default, remembered), said in the log; the decision
  an undo brings back is left to the player; with the setting off, the player clicks it.
* **The event log by keyboard**: a tab stop, scrolled with the arrow keys.
* **Fonts**: every character the pages show is in a font of a stock Debian with Chromium
  (fonts-dejavu-core, fonts-liberation).
* **axe-core** (the npm package, injected by Playwright) finds no critical or serious
  violation on the setup page, how to play, the lobby, the waiting room and the replay viewer;
  in the whole game below, at a mid-game decision with many options (wide), a mid-game decision
  on a phone, and at the end, wide and on a phone.
* **A whole game against a bot**, the browser's whole game by clicks, played by what the table
  shows, the first half on a wide screen and the second on a phone: plain words at every kind of
  decision, the projected score on both wagons, the decision first on a phone; midway, readable
  contrast and no sideways scrolling at both widths, the storage grids drawn (the screenshots
  of docs/images: scripts/screenshots); the final score table as the API counts it.
"""

from __future__ import annotations

import functools
import json
import os
import random
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from apiutil import ApiServer
from browserutil import (
    AUTO_TAKE,
    CONTRAST,
    PHONE,
    ROUNDS_PLAYED,
    SEED,
    SETTLE,
    WIDE,
    English,
    HungarianSeat,
    Pages,
    act_randomly,
    create,
    finished_game,
    game_state,
    settled,
)

from darkroad.core import ROUNDS

pytestmark = pytest.mark.slow
TABLE = pytest.mark.xdist_group("play-browser-table")
"""The xdist group of the tests here but the whole game in plain words (PLAIN, the longest), a
group of its own beside it on another worker: each runs on one worker, sharing the module's
browser and server."""
PLAIN = pytest.mark.xdist_group("play-browser-plain-words")

ROOT = Path(__file__).resolve().parents[3]
AXE = ROOT / ".cache" / "web" / "node_modules" / "axe-core" / "axe.min.js"
FONT_PACKAGES = ("fonts-dejavu-core", "fonts-liberation")
"""The fonts a stock Debian with Chromium has: fontconfig's DejaVu, Chromium's Liberation."""


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def ann_and_bob(http: httpx.Client, seed: int, version: int) -> tuple[str, dict[int, str]]:
    """A game of Ann and Bob (seed ``seed``) played at random to ``version``: its id and tokens."""
    game, tokens = create(http, players=2, seed=seed,
                          seats=[{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}])
    act_randomly(http, game, tokens, random.Random(SEED), until=lambda v: v["version"] >= version)
    return game, tokens


def view_url(game: str) -> re.Pattern[str]:
    """The URL pattern of ``game``'s view (``GET /v1/games/{id}``): a key of ``Pages.open``'s ``routes``."""
    return re.compile(rf"/v1/games/{game}$")


def refuse_first(refused: list[str], status: int, kind: str, title: str) -> Callable[[Any], None]:
    """A Playwright route handler answering the first request it sees with problem ``status``
    (``Retry-After: 1``), noted in ``refused``, and letting every later one through."""

    def handle(route: Any) -> None:
        if refused:
            route.continue_()
            return
        refused.append(route.request.url)
        route.fulfill(status=status, headers={"Retry-After": "1"}, content_type="application/problem+json",
                      body=json.dumps({"type": kind, "title": title, "status": status}))

    return handle


# -- names, however early -------------------------------------------------------------------


@TABLE
def test_event_lines_name_the_seats_however_early_they_arrive(pages: Pages, server: ApiServer) -> None:
    """The first view is answered 503 (then read again a second later): the stream's events
    come first and are written before anyone is named; once the view names the seats, every
    line says Ann and Bob, none Player 1 or Player 2."""
    http = httpx.Client(base_url=server.url, timeout=30)
    game, _ = ann_and_bob(http, SEED + 50, 15)
    refused: list[str] = []
    page = pages.open(f"{server.url}/play/{game}",
                      routes={view_url(game): refuse_first(refused, 503, "unavailable", "Busy")})
    settled(page)
    assert refused, "the first view was not delayed"
    log = page.inner_text("#events .log")
    assert "Player 1" not in log and "Player 2" not in log, log
    assert "Ann" in log and "Bob" in log


@TABLE
def test_a_view_refused_for_too_many_requests_is_read_again(pages: Pages, server: ApiServer) -> None:
    """A 429 on the view is not the last word: the table reads it again after a pause. With no
    event to come (the stream answers 204 here, as for a game that is over; in a game, none
    comes while the game waits for this seat), a table that gave up on a 429 would show
    "Loading…" for good."""
    http = httpx.Client(base_url=server.url, timeout=30)
    game, tokens = ann_and_bob(http, SEED + 52, 5)
    view = game_state(http, game)
    seat = view["awaiting"][0]
    refused: list[str] = []
    routes = {
        view_url(game): refuse_first(refused, 429, "rate-limited", "Too many requests"),
        re.compile(rf"/v1/games/{game}/stream$"): lambda route: route.fulfill(status=204),
    }
    page = pages.open(f"{server.url}/play/{game}#seat={seat}&token={tokens[seat]}", routes=routes)
    settled(page, view["version"])
    assert refused, "the view was not refused"
    assert page.locator("#decision button.action").count() >= 1


# -- the only answer, taken ----------------------------------------------------------------


def single_answer_with_undo(http: httpx.Client, seed: int) -> tuple[list[tuple[int, dict[str, Any]]], int]:
    """Play a 2-player game (seeded random actions through the API) until a seat's decision has
    a single answer that it may take back once taken: the actions before it (seat, action)
    and that seat. Played on a scratch game; the caller replays them on a game of its own."""
    game, tokens = create(http, players=2, seed=seed)
    rng = random.Random(seed)
    played: list[tuple[int, dict[str, Any]]] = []
    while True:
        view = game_state(http, game)
        assert view["status"] == "active", "no single answer that may be taken back in a whole game"
        seat = view["awaiting"][0]
        actions = http.get(f"/v1/games/{game}/actions", headers=auth(tokens[seat])).json()["actions"]
        action = rng.choice(actions)
        assert http.post(f"/v1/games/{game}/actions", json=action, headers=auth(tokens[seat])).status_code == 200
        if len(actions) == 1 and game_state(http, game, tokens[seat])["undo_available"]:
            return played, seat
        played.append((seat, action))


@TABLE
def test_a_single_answer_is_taken_by_the_page_and_left_after_an_undo(pages: Pages, server: ApiServer) -> None:
    http = httpx.Client(base_url=server.url, timeout=30)
    before, seat = single_answer_with_undo(http, SEED + 51)
    game, tokens = create(http, players=2, seed=SEED + 51)
    for who, action in before:
        assert http.post(f"/v1/games/{game}/actions", json=action, headers=auth(tokens[who])).status_code == 200
    at = game_state(http, game)["version"]
    (only,) = http.get(f"/v1/games/{game}/actions", headers=auth(tokens[seat])).json()["actions"]

    # The setting is on by default: the page takes the only answer and says so in the log.
    page = pages.open(f"{server.url}/play/{game}#seat={seat}&token={tokens[seat]}", auto_take=True)
    settled(page, at + 1)
    assert page.is_checked("#auto-take")
    assert f"The only answer, taken for you: {only['label']}" in page.inner_text("#events .log li.note")
    assert page.locator("button.undo").count() == 1

    # An undo brings the decision back: the player's to take (the page leaves it).
    page.click("button.undo")
    settled(page, at + 2)
    assert page.locator("#decision button.action").count() == 1
    assert game_state(http, game)["version"] == at + 2
    page.locator("#decision button.action").click()
    settled(page, at + 3)

    # The setting turned off is remembered: a page opened later in this browser leaves a
    # single answer to the player.
    page.click("button.undo")
    settled(page, at + 4)
    page.uncheck("#auto-take")
    page.reload()
    settled(page, at + 4)
    assert not page.is_checked("#auto-take")
    assert page.evaluate(f"window.localStorage.getItem({AUTO_TAKE!r})") == "off"
    assert page.locator("#decision button.action").count() == 1
    page.check("#auto-take")  # on again: the page takes it at once
    settled(page, at + 5)
    assert game_state(http, game)["version"] == at + 5


# -- the event log by keyboard, and the fonts ---------------------------------------------


def mid_game(http: httpx.Client, seed: int) -> tuple[str, dict[int, str], dict[str, Any]]:
    """A 2-player game played through the API to mid-game (round 7)."""
    game, tokens = create(http, players=2, seed=seed,
                          seats=[{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}])
    view = act_randomly(http, game, tokens, random.Random(seed), until=lambda v: v["round"] >= 7)
    return game, tokens, view


@TABLE
def test_the_event_log_is_reached_and_scrolled_by_keyboard(pages: Pages, server: ApiServer) -> None:
    http = httpx.Client(base_url=server.url, timeout=30)
    game, tokens, view = mid_game(http, SEED + 52)
    page = pages.open(f"{server.url}/play/{game}#seat=0&token={tokens[0]}")
    settled(page, view["version"])
    log = "#events .log"
    assert page.evaluate(f"(() => {{ const l = document.querySelector('{log}'); return l.scrollHeight > l.clientHeight; }})()")
    for _ in range(400):  # Tab through the page's stops until the log has the focus
        page.keyboard.press("Tab")
        if page.evaluate(f"document.activeElement === document.querySelector('{log}')"):
            break
    else:
        pytest.fail("the event log is not a tab stop")
    page.keyboard.press("PageDown")
    page.keyboard.press("ArrowDown")
    # Chromium scrolls smoothly: the list moves within a moment.
    page.wait_for_selector(f"{log}:focus", timeout=SETTLE)
    for _ in range(50):
        if page.evaluate(f"document.querySelector('{log}').scrollTop") > 0:
            break
        page.wait_for_timeout(50)
    assert page.evaluate(f"document.querySelector('{log}').scrollTop") > 0


@functools.cache
def stock_font_files() -> frozenset[str]:
    """The font files of the Debian packages a stock Chromium install has."""
    if shutil.which("dpkg") is None or shutil.which("fc-list") is None:
        pytest.skip("not a Debian system with fontconfig")
    listed = subprocess.run(["dpkg", "-L", *FONT_PACKAGES], capture_output=True, text=True, check=False).stdout
    files = frozenset(os.path.realpath(line) for line in listed.splitlines() if line.endswith((".ttf", ".otf")))
    if not files:
        pytest.skip(f"{', '.join(FONT_PACKAGES)} not installed")
    return files


@functools.cache
def in_stock_font(char: str) -> bool:
    found = subprocess.run(["fc-list", f":charset={ord(char):x}", "file"], capture_output=True, text=True, check=True).stdout
    return any(os.path.realpath(line.rstrip(": \n")) in stock_font_files() for line in found.splitlines())


def missing_glyphs(page: Any) -> set[str]:
    """The characters of the page's text (and its controls' labels) no stock font draws."""
    text = str(page.evaluate("""() => document.body.innerText + [...document.querySelectorAll('[aria-label], [title]')]
      .map((e) => (e.getAttribute('aria-label') || '') + (e.getAttribute('title') || '')).join('')"""))
    return {char for char in set(text) if ord(char) > 127 and not char.isspace() and not in_stock_font(char)}


# -- axe-core ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def axe_source() -> str:
    """axe-core from the npm registry (web/package.json's devDependencies, installed by
    ``scripts/build-web --deps`` into .cache/web)."""
    if not AXE.exists():
        if shutil.which("npm") is None:
            if os.environ.get("CI"):
                pytest.fail("npm is needed for axe-core (scripts/test installs node)")
            pytest.skip("npm is not installed: no axe-core")
        subprocess.run([str(ROOT / "scripts" / "build-web"), "--deps"], check=True, cwd=ROOT)
    return AXE.read_text()


def violations(page: Any, axe_source: str) -> list[str]:
    """axe-core's critical and serious violations on the page as it is (WCAG 2.x A and AA and
    axe's best practices), each as "rule: the elements"; the characters no stock font draws."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(axe_source)  # evaluated by the browser's debugger: the page's CSP does not apply
    found = page.evaluate("""async () => {
      const result = await axe.run(document, { resultTypes: ['violations'] });
      return result.violations.filter((v) => v.impact === 'critical' || v.impact === 'serious')
        .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 4).map((n) => n.target.join(' ')).join(', ')}`);
    }""")
    glyphs = missing_glyphs(page)
    return [str(v) for v in found] + ([f"no stock font draws {sorted(glyphs)}"] if glyphs else [])


@TABLE
def test_axe_finds_nothing_serious_on_any_page(pages: Pages, server: ApiServer, axe_source: str) -> None:
    http = httpx.Client(base_url=server.url, timeout=30)
    found: dict[str, list[str]] = {}

    setup = pages.open(f"{server.url}/play")
    setup.wait_for_selector("#app[data-state=ready]")
    found["setup"] = violations(setup, axe_source)
    # How to play, from the help link every page has.
    setup.click("nav.help a")
    setup.wait_for_url(f"{server.url}/play/how-to-play?lang=en")  # in the language the table chose
    setup.wait_for_selector("#page-13")
    found["how to play"] = violations(setup, axe_source)

    # The lobby: a game waiting for players listed on /play, and its waiting room.
    waiting, _ = create(http, players=2, seed=SEED + 53, seats=[{"kind": "human", "name": "Ann"}, {"kind": "open"}])
    lobby = pages.open(f"{server.url}/play")
    lobby.wait_for_selector(f'#waiting[data-state=ready] .waiting-game[data-game="{waiting}"]', timeout=SETTLE)
    lobby.click(f'.waiting-game[data-game="{waiting}"] button.join-seat[data-seat="1"]')
    found["lobby"] = violations(lobby, axe_source)
    room = pages.open(f"{server.url}/play/{waiting}#join=1")
    room.wait_for_selector("#app[data-state=ready] #seats form.join input:focus", timeout=SETTLE)
    found["waiting room"] = violations(room, axe_source)

    # The replay viewer of a finished game. (A mid-game table, wide and on a phone, and a decision
    # with many options: in the whole game below, which plays through them.) The pages read above
    # are closed first: the lobby's would go on asking for the list meanwhile.
    for page in (setup, lobby, room):
        page.context.close()
    game, _, latest = finished_game(http, 54)
    replay = pages.open(f"{server.url}/play/{game}#at=40")
    settled(replay, 40)
    assert replay.get_attribute("#app", "data-replay") == str(latest)
    found["replay"] = violations(replay, axe_source)

    assert {where: problems for where, problems in found.items() if problems} == {}


# -- a whole game against a bot, read at every kind of decision ------------------------------


def catalog_ids(http: httpx.Client) -> list[str]:
    """Every id of the installation's components and cards (none may show in a label)."""
    catalog = http.get("/v1/catalog").json()
    ids = [c["id"] for kind in catalog["components"].values() for c in kind]
    content = catalog["content"]
    ids += [card["id"] for key in ("heroes", "commissions", "events", "towns") for card in content[key]]
    return ids


@PLAIN
def test_a_whole_game_against_a_bot_in_plain_words_with_the_score_in_view(
        pages: Pages, server: ApiServer, axe_source: str, screenshots: Path, hungarian_browser: Any,
        english: English) -> None:
    """Set up on the page against the greedy bot (the setup form offers the installed bots; the
    table opens at once, as the player's seat, and names the bot), then every decision of the
    player clicked (the page takes those with a single answer itself) while the server's bot
    worker plays the bot's seat, the first six rounds on a wide screen and the rest on a phone:
    at the first decision of each kind on each, every label, prompt and details shown is in
    plain words (:func:`darkroad.core.wording.problems`), both wagons show their projected score
    with the rule, the player's own as the API projects it; on a phone the decision comes first
    and the page does not scroll sideways. Midway (round 6, wide), :func:`mid_game_checks`:
    readable contrast and no sideways scrolling at both widths, the storage grids drawn, the
    screenshots. axe-core finds nothing serious at the first mid-game decision with many options
    (8 or more) on a wide screen, at a mid-game decision on a phone, and at the end, wide and on a
    phone; the final score table is the API's. The clicks of the whole game are counted (printed
    as a FIGURE). For its first three rounds a Hungarian reader's page of the seat follows it
    (browserutil.HungarianSeat): no English word at the first decision of each
    kind, at both widths.

    This is the browser's whole game by clicks (the product's promise: a table that plays a game
    to its end), and its game with a bot seat. Two players meeting in the lobby play the first
    round of theirs by clicks in test_api_play_browser.py: a second whole game, of two pages following
    every move, checked nothing this one does not."""
    from darkroad.core.wording import problems

    http = httpx.Client(base_url=server.url, timeout=30)
    ids = catalog_ids(http)
    bots = {b["id"]: b for b in http.get("/v1/catalog").json()["bots"]}
    setup = pages.open(f"{server.url}/play", auto_take=True)
    setup.wait_for_selector("#app[data-state=ready]")
    setup.fill("#seat-0-name", "Ann")
    setup.select_option("#seat-1-kind", "bot")
    assert setup.is_visible("#seat-1-bot") and not setup.is_visible("#seat-1-name")
    assert sorted(setup.eval_on_selector_all("#seat-1-bot option", "options => options.map(o => o.value)")) == sorted(bots)
    setup.select_option("#seat-1-bot", "greedy")
    setup.fill("#seed", str(SEED))
    setup.click("text=Create the game")
    # One player against a bot: the table opens at once, as the player's seat.
    setup.wait_for_url(re.compile(r"/play/[A-Za-z0-9_-]{22}#seat=0&token=[^&]+$"), timeout=SETTLE)
    page = setup
    game = page.url.split("/play/")[1].split("#")[0]
    token = page.url.split("token=")[1]
    settled(page)
    bot = game_state(http, game)["seats"][1]
    assert (bot["kind"], bot["bot"]) == ("bot", "greedy"), bot
    assert f"{bots['greedy']['name']} (bot)" in page.inner_text('#seats li[data-seat="1"][data-kind="bot"]')
    assert "(bot)" in page.inner_text('.wagon[data-seat="1"] h3')
    auth = {"Authorization": f"Bearer {token}"}
    names = tuple(seat["name"] for seat in game_state(http, game)["seats"] if seat["name"])
    hungarian: HungarianSeat | None = HungarianSeat(
        hungarian_browser, http, page.url, english, names, screenshots)
    rng = random.Random(SEED)
    kinds: list[str] = []
    read: set[tuple[str, str]] = set()
    found: dict[str, list[str]] = {}
    clicks = 0
    width = "wide"
    midway = False
    while True:
        view = game_state(http, game, token)
        if view["status"] == "finished":
            break
        if hungarian and view["round"] > ROUNDS_PLAYED:
            listed = http.get(f"/v1/games/{game}/actions", headers={**auth, "Accept-Language": "hu"})
            assert listed.headers["Content-Language"] == "hu"
            hungarian.close()
            hungarian = None
        if width == "wide" and view["round"] > ROUNDS // 2:
            width = "phone"
            page.set_viewport_size(PHONE)
        if 0 not in view["awaiting"]:
            page.wait_for_timeout(20)  # the bot's move, made by the server's worker
            continue
        listed = http.get(f"/v1/games/{game}/actions", headers=auth).json()
        if listed["version"] != view["version"]:
            continue
        version = view["version"]
        ready = f'#app[data-state=ready][data-version="{version}"] #decision button.action'
        for _ in range(int(SETTLE / 20)):  # its buttons, or the page took the only answer itself
            if page.locator(ready).count() or game_state(http, game)["version"] != version:
                break
            page.wait_for_timeout(20)
        if game_state(http, game)["version"] != version:
            # The page took the only answer itself, or the bot answered first (a decision all
            # seats take at once, the deliveries): this decision comes again if still open.
            continue
        kind = view["decision"]["type"]
        if kind not in kinds:
            kinds.append(kind)
        if hungarian:
            hungarian.read(view)
        if (width, kind) not in read:
            read.add((width, kind))
            read_a_decision(page, view, ids, problems)
            if width == "phone":
                phone_layout(page)
            elif len(kinds) <= 3:
                on_a_phone(page)
        buttons = page.locator("#decision button.action")
        if width == "wide" and view["round"] == ROUNDS // 2 and not midway:
            mid_game_checks(page, screenshots)
            midway = True
        if view["round"] >= 2 and width == "wide" and buttons.count() >= 8 and "many options, wide" not in found:
            found["many options, wide"] = violations(page, axe_source)
        if kind == "plan" and width == "phone" and "decision, phone" not in found:
            found["decision, phone"] = violations(page, axe_source)
        buttons.nth(rng.randrange(buttons.count())).click()
        clicks += 1
        page.wait_for_selector(f'#app:not([data-version="{version}"])', timeout=SETTLE)
    assert hungarian is None  # read for three rounds, then closed
    # The bot's seat was played by the server's bot worker, many times, and the page took the
    # player's single answers itself: the player's seat answered more often than it was clicked.
    # Both are counted from the record: the loop above sees the page's own answer only when the
    # page is slower than the loop, which a quiet machine makes rare.
    answers = [entry["seat"] for entry in http.get(f"/v1/games/{game}/record").json()["actions"]
               if entry["type"] != "seat_change"]
    bot_moves, taken = answers.count(1), answers.count(0) - clicks
    assert len(kinds) > 12 and taken > 5, (kinds, taken)
    assert clicks > 20 and bot_moves > 20, (clicks, bot_moves)
    print(f"FIGURE a whole 2-player game against greedy: {clicks} clicks, {taken} answers the page took "
          f"itself, {len(kinds)} kinds of decision, {bot_moves} moves of the bot")
    assert midway
    final_score_shown(http, game, [page])
    assert "Final score: " in page.inner_text('.wagon[data-seat="0"] .projected')
    found["the end, phone"] = violations(page, axe_source)
    page.set_viewport_size(WIDE)
    found["the end, wide"] = violations(page, axe_source)
    page.screenshot(path=str(screenshots / "play-end.png"))
    assert set(found) == {"many options, wide", "decision, phone", "the end, phone", "the end, wide"}, set(found)
    assert {where: problems for where, problems in found.items() if problems} == {}


def final_score_shown(http: httpx.Client, game: str, pages: Any) -> None:
    """Every page in ``pages`` shows the final score table as the API counts it, the winners by
    name, and knows that the game's stream has ended."""
    view = game_state(http, game)
    names = [s["name"] + (" (bot)" if s["kind"] == "bot" else "") if s["name"] else f"Player {s['seat'] + 1}"
             for s in view["seats"]]
    score = http.get(f"/v1/games/{game}/score").json()
    for page in pages:
        page.wait_for_selector("#score", timeout=SETTLE)
        settled(page)
        rows = page.locator("#score tbody tr")
        assert rows.count() == len(view["seats"])
        for line in score["score"]:
            row = page.locator(f'#score tbody tr[data-seat="{line["seat"]}"]')
            cells = [str(c) for c in row.locator("td").all_inner_texts()]
            assert cells[2] == str(line["total"]) and cells[10] == str(line["discarded"])
            assert cells[11:] == [str(line["gifts"]), str(line["commissions_delivered"]), str(line["heroes_delivered"])]
        heading = page.inner_text("#score-title")
        assert all(names[w] in heading for w in score["winners"]), heading
        assert "The game is over" in page.inner_text("#events")
        page.wait_for_selector('#app[data-link="over"]', timeout=SETTLE)  # the stream ended for good


def mid_game_checks(page: Any, screenshots: Path) -> None:
    """Mid-game: readable contrast, no horizontal scrolling at 1280x800 and at 390 px, the storage
    grids drawn (one cell per grid square), and the screenshots."""
    settled(page)
    page.screenshot(path=str(screenshots / "play-mid.png"))
    assert page.evaluate(CONTRAST) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDE["width"]
    assert page.locator(".wagon").count() == 2
    assert page.locator(".wagon .storage-grid").first.locator(".cell").count() == 30
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert page.evaluate(CONTRAST) == []
    page.screenshot(path=str(screenshots / "play-phone.png"))
    page.set_viewport_size(WIDE)


def read_a_decision(page: Any, view: dict[str, Any], ids: list[str], problems: Any) -> None:
    """Every word of the decision is plain, and both wagons show their projected score."""
    texts = page.eval_on_selector_all("#decision .prompt, #decision button.action, #decision .details",
                                      "elements => elements.map((e) => e.innerText)")
    found = {text: problems(text, ids) for text in texts if problems(text, ids)}
    assert not found, f"{view['decision']['type']}: {found}"
    mine = next(p for p in view["projected"] if p["seat"] == 0)
    shown = page.inner_text('.wagon[data-seat="0"] .projected')
    assert mine["known"] and f"ended now: {mine['total']}" in shown and "the lower of" in shown, shown
    other = page.inner_text('.wagon[data-seat="1"] .projected')
    assert "coins hidden" in other and "the lower of" in other, other


def on_a_phone(page: Any) -> None:
    """At 390 px the decision comes first, above the Ringway and the wagons, and the page does not
    scroll sideways; on a wide screen the board's part the decision is about sits beside the
    board (in the side column)."""
    wide = page.evaluate("""() => { const part = document.querySelector('#decision .decision-board');
      const ring = document.querySelector('.ringway-slot').getBoundingClientRect();
      return part ? part.getBoundingClientRect().left >= ring.right : true; }""")
    assert wide, "the decision's board part is not beside the board"
    page.set_viewport_size(PHONE)
    phone_layout(page)
    page.set_viewport_size(WIDE)


def phone_layout(page: Any) -> None:
    """On a phone, the decision comes first, above the Ringway and the wagons, and the page does
    not scroll sideways."""
    order = page.evaluate("""() => ['#decision', '.ringway-slot', '.players-slot']
      .map((s) => document.querySelector(s).getBoundingClientRect().top)""")
    assert order == sorted(order), order
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
