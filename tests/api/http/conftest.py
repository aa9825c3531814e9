"""The browser tests' server: one ``darkroad serve`` per test process (each xdist worker).

Every browser module (test_api_play_browser*.py, test_api_docs_browser.py) used to start a server
of its own, and a module split over two xdist groups one on each worker (a server's start,
imports, bot pool and stop: the commit message has the figures). The tests share it as they
shared the module's: each makes games of its own.
A test that needs a server with other settings starts one; the spectator's test restarts this
one (test_api_play_browser.py), and leaves it running.

The server has a Redis of its own, not the process's ``redis_server``: it lives for the whole
session, and its bot worker plays every bot job it finds in its Redis, so on the Redis the other
tests of the process flush and fill it played their bots' moves too (a bot worker test counted
two commits for its one job in the CI of 3bcad94).

Chromium stays a module fixture (:func:`browser`): Playwright's sync API keeps its event loop
marked as running in the thread while it lives, and an asyncio test of the same process after it
fails ("Cannot run the event loop while another loop is running").

The browser modules' fixtures are here too (the server, Chromium, the pages, the screenshots'
folder, a Hungarian reader's browser context); what they share besides is browserutil.py's.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from apiutil import ApiServer, RedisServer, launch_chromium, list_elsewhere, need_redis
from browserutil import WIDE, English, Pages


@pytest.fixture(scope="session")
def play_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    """``darkroad serve`` with the default settings on a Redis of its own (see above)."""
    need_redis()
    redis = RedisServer(tmp_path_factory.mktemp("play-redis"))
    try:
        api = ApiServer(redis.url).start()
        yield api
        api.stop()
    finally:
        redis.stop()


@pytest.fixture
def server(play_server: ApiServer) -> ApiServer:
    """The browser tests' server (:func:`play_server`: one per test process)."""
    return play_server


@pytest.fixture(scope="module")
def browser(play_server: ApiServer) -> Iterator[Any]:
    """Chromium for pages of the server, every other host cut off."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as playwright:
        chromium = launch_chromium(playwright, urlsplit(play_server.url).netloc)
        yield chromium
        chromium.close()


@pytest.fixture
def screenshots(tmp_path: Path) -> Path:
    """Where screenshots go: ``$DARKROAD_SCREENSHOTS`` (scripts/screenshots: docs/images) or a temp dir."""
    target = Path(os.environ.get("DARKROAD_SCREENSHOTS") or tmp_path)
    target.mkdir(parents=True, exist_ok=True)
    return target


@pytest.fixture
def pages(browser: Any, server: ApiServer) -> Iterator[Pages]:
    opened = Pages(browser, server)
    yield opened
    opened.close()


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
