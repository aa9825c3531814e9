"""``/docs`` in a real browser (Chromium, driven by Playwright), with every other host cut off.

The reference must work air-gapped: the page, Swagger UI's assets and the document all come
from the server, and the page lists the operations and lets a visitor try one.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from apiutil import ApiServer, launch_chromium, list_elsewhere

pytestmark = pytest.mark.slow


def test_the_reference_works_without_other_hosts(play_server: ApiServer) -> None:
    """The server is the browser tests' (conftest.py: one per test process)."""
    server = play_server
    playwright_api = pytest.importorskip("playwright.sync_api")
    here = urlsplit(server.url).netloc
    elsewhere: list[str] = []
    errors: list[str] = []
    with playwright_api.sync_playwright() as playwright:
        browser = launch_chromium(playwright, here)
        try:
            page = browser.new_page()
            list_elsewhere(page, here, elsewhere)
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(f"{server.url}/")
            page.click("text=API reference")
            assert page.url == f"{server.url}/docs"
            page.wait_for_selector("text=Create a game", timeout=30_000)
            for summary in ("View a game", "Act", "Follow the events (server-sent events)", "Read the event log"):
                assert page.locator(f"text={summary}").count() >= 1, summary
            # Try it out: create a game from the page.
            create = "#operations-games-createGame"
            page.click(f"{create} .opblock-summary")
            page.click(f"{create} button.try-out__btn")
            page.fill(f"{create} textarea.body-param__text", '{"players": 2, "seed": 5}')
            page.click(f"{create} button.execute")
            page.wait_for_selector(f"{create} .live-responses-table .response-col_status:has-text('201')",
                                   timeout=15_000)
            # The cut-off itself (every browser test's `elsewhere == []` rests on it): another
            # host, and another port of this host, fail at once and are listed; a data: URL is not.
            assert elsewhere == []
            host, port = here.rsplit(":", 1)
            others = [f"http://cdn.example.invalid:{port}/x.js", f"http://{host}:{int(port) + 1}/x.js"]
            failed = page.evaluate("""urls => Promise.all([...urls, 'data:text/plain,ok'].map(
                url => fetch(url).then(() => 'ok', () => 'failed')))""", others)
            assert failed == ["failed", "failed", "ok"], failed
            assert sorted(elsewhere) == sorted(others), elsewhere
            elsewhere.clear()
        finally:
            browser.close()
    assert elsewhere == []
    assert errors == []
