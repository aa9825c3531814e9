"""Clicks of a whole 2-player game at /play against the greedy bot: what a player does by hand.

A server is started (in memory) from this tree, and with ``--baseline DIR`` (an installation
made with ``pip install --no-deps --target DIR <tree>``) from that one too, alternating: for each
seed, a 2-player game (Ann, seat 0; the greedy bot, seat 1) is played to its end in Debian's
Chromium (Playwright) by clicking the rendered buttons: a seeded random one when there are
several, the only one when there is one, unless the page takes it by itself (the table's setting,
on by default since issue 42). The player's policy is the same in both trees (a seeded random
button; a decision with one answer draws nothing), but each tree's greedy bot and rules play
their own game from the seed (the bot chooses from what its seat sees since issue 40), so games
differ: compare the means over several seeds, and the decisions (clicks and answers the page
took) beside the clicks.

    python benchmarks/play_clicks.py [--seeds 20260,1,2] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

CHROMIUM = "/usr/bin/chromium"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def server(tree: str | None) -> Iterator[str]:
    """``darkroad serve`` (in memory) from this tree, or from the installation ``tree``."""
    port = free_port()
    env = dict(os.environ)
    env.pop("DARKROAD_REDIS_URL", None)
    if tree:
        env["PYTHONPATH"] = tree
    process = subprocess.Popen([sys.executable, "-m", "darkroad.api", "serve", "--port", str(port),
                                "--log-level", "warning"], env=env, cwd=tree or None,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{url}/healthz", timeout=1)
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError(f"the server of {tree or 'this tree'} did not start") from None
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def play(browser: object, url: str, seed: int) -> tuple[int, int, int]:
    """One game by clicks: (clicks, decisions the page took by itself, the player's final score)."""
    http = httpx.Client(base_url=url, timeout=30)
    created = http.post("/v1/games", json={"players": 2, "seed": seed, "seats": [
        {"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "greedy"}]}).json()
    game, token = created["id"], created["seats"][0]["token"]
    auth = {"Authorization": f"Bearer {token}"}
    rng = random.Random(seed)
    clicks = 0
    page = browser.new_page(viewport={"width": 1280, "height": 800})  # type: ignore[attr-defined]
    page.goto(f"{url}/play/{game}#seat=0&token={token}")
    while True:
        view = http.get(f"/v1/games/{game}").json()
        if view["status"] == "finished":
            break
        listed = http.get(f"/v1/games/{game}/actions", headers=auth).json()
        if 0 not in view["awaiting"] or listed["version"] != view["version"]:
            time.sleep(0.02)
            continue
        version = view["version"]
        ready = f'#app[data-state=ready][data-version="{version}"] #decision button.action'
        deadline = time.monotonic() + 20
        while not page.locator(ready).count() and http.get(f"/v1/games/{game}").json()["version"] == version:
            if time.monotonic() > deadline:
                raise RuntimeError(f"stuck at version {version}")
            time.sleep(0.03)
        if http.get(f"/v1/games/{game}").json()["version"] != version:
            continue  # the page took it (or the bot answered a decision both seats take)
        buttons = page.locator("#decision button.action")
        buttons.nth(rng.randrange(buttons.count()) if buttons.count() > 1 else 0).click()
        clicks += 1
        page.wait_for_selector(f'#app:not([data-version="{version}"])', timeout=20_000)
    taken = page.locator(".log li.note").count()  # the page's own lines: the answers it took
    page.close()
    score = http.get(f"/v1/games/{game}/score").json()["score"]
    return clicks, taken, next(line["total"] for line in score if line["seat"] == 0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", default="20260,1,2")
    parser.add_argument("--baseline", help="an installation of another tree (pip install --target)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    trees: list[tuple[str, str | None]] = [("this tree", None)]
    if args.baseline:
        trees.insert(0, ("baseline", str(Path(args.baseline).resolve())))
    totals: dict[str, list[int]] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for seed in map(int, args.seeds.split(",")):
            for name, tree in trees:  # alternating: the same game in each tree
                with server(tree) as url:
                    clicks, taken, total = play(browser, url, seed)
                print(f"seed {seed}, {name}: {clicks} clicks, {taken} answers the page took itself "
                      f"({clicks + taken} decisions), Ann's final score {total}", flush=True)
                totals[name] = [a + b for a, b in zip(totals.get(name, [0, 0, 0]), (1, clicks, clicks + taken), strict=True)]
        for name, (games, clicks, decisions) in totals.items():
            print(f"{name}: {clicks / games:.1f} clicks a game, {decisions / games:.1f} decisions ({games} games)")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
