"""The browser tests' server: one ``darkroad serve`` per test process (each xdist worker).

Every browser module (test_play_browser*.py, test_api_docs_browser.py) used to start a server
of its own, and a module split over two xdist groups one on each worker (a server's start,
imports, bot pool and stop: the commit message has the figures). The tests share it as they
shared the module's: each makes games of its own.
A test that needs a server with other settings starts one; the spectator's test restarts this
one (test_play_browser.py), and leaves it running.

The server has a Redis of its own, not the process's ``redis_server``: it lives for the whole
session, and its bot worker plays every bot job it finds in its Redis, so on the Redis the other
tests of the process flush and fill it played their bots' moves too (a bot worker test counted
two commits for its one job in the CI of 3bcad94).

Chromium stays a module fixture (test_play_browser.browser): Playwright's sync API keeps its
event loop marked as running in the thread while it lives, and an asyncio test of the same
process after it fails ("Cannot run the event loop while another loop is running").
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from apiutil import ApiServer, RedisServer, need_redis


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
