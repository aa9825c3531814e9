"""The log of ``/play`` in Hungarian, without a browser: ``describe`` of web/src/events.ts (the
page's own code, bundled by the client's esbuild and run in node as a Hungarian reader's page)
words every event a solo game's player reads (the player against the Private Concern, whole games
played at random by the engine) with the names of ``/v1/catalog``'s Hungarian body, and no line has
an English word (browserutil.English: what the Hungarian browser tests call English); nor has
any answer those games offer the player in Hungarian (the labels the page shows).

It is the Private Concern's lines' check: its action card by name (``concern_card``: the
catalogue's ``content.extra_names``, translated in the base game's catalog), the district action
it resolved (``concern_action``), what the player chose for it (``concern_choice``), which once
showed the engine's English ids and the cards' printed English names ("végrehajtotta: commission",
"akciókártyát húzott: The Long Road"); and the English labels these games met in Hungarian (the
Concern's choices, Spare Harness', Lamplighter's Post's and Merchant's Ledger's, a wagon upgrade's
text on the good fortune track, a hero's storage bonus at the inn). No Hungarian browser test plays a solo game (their game
is against the greedy bot); this reads the same words the page would, a hundred times cheaper.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec
import pytest
from browserutil import English

from darkroad.api.http.catalog import catalog_body
from darkroad.core import Engine, GameConfig, i18n

ROOT = Path(__file__).resolve().parents[3]
WORK = ROOT / ".cache" / "web"
SEEDS = (20260, 20261, 20262, 20263, 20264, 20265)
"""Solo games whose Concern, together, resolves every district action kind of its cards and
needs the player's choice (counted below, so a change of the rules that loses one fails here)."""
PLAYER = "Ann"

# Bundles the page's event words (events.ts with the names and the messages it imports) for node,
# then words the events as a page in Hungarian would: the language is the one remembered in the
# page's storage, as after a choice on the language switch.
RUNNER = """
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
const [work, src, out, input] = process.argv.slice(2);
const esbuild = createRequire(work + "/")("esbuild");
await esbuild.build({
  stdin: { contents: 'export { describe } from "./events"; export { Names } from "./names"; export { t } from "./i18n";',
           resolveDir: src, loader: "ts" },
  bundle: true, format: "esm", platform: "node", outfile: out, nodePaths: [work + "/node_modules"], logLevel: "error",
});
globalThis.window = { localStorage: { getItem: () => "hu", setItem() {} }, location: { origin: "http://localhost" } };
globalThis.navigator ??= { languages: ["hu-HU"], language: "hu-HU" };
const { describe, Names, t } = await import(out);
const { catalog, events, player, concern } = JSON.parse(readFileSync(input, "utf8"));
const names = new Names(catalog);
const seat = (n) => (n === concern ? t("the Private Concern") : player);
process.stdout.write(JSON.stringify(events.map((e) => describe(e, names, seat))));
"""


def solo_game(engine: Engine, seed: int) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """A whole solo game of random answers (the Concern is seat 1): the events seat 0 reads, and
    every answer listed to it, ``(decision, label)``, in Hungarian."""
    game, events = engine.create(GameConfig(players=2, seed=seed, options={"private_concern": True}))
    rng = random.Random(seed)
    labels: list[tuple[str, str]] = []
    while seats := engine.awaiting(game):
        with i18n.use_locale("hu"):
            actions = engine.legal_actions(game, seats[0])
        labels += [(a.type, a.label) for a in actions]
        events += engine.apply(game, rng.choice(actions))
    return [engine.event_to_json(e) for e in events if engine.visible(e, 0)], labels


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine.load()


def test_the_catalogue_names_the_concerns_cards_in_the_callers_language(engine: Engine) -> None:
    """``content.extra_names`` names every action card of the Private Concern: as printed in
    English, translated in Hungarian (the base game's catalog)."""
    cards = engine.content.extra["private_concern_cards"]
    with i18n.use_locale("en"):
        english = msgspec.json.decode(catalog_body(engine))["content"]["extra_names"]["private_concern_cards"]
    with i18n.use_locale("hu"):
        hungarian = msgspec.json.decode(catalog_body(engine))["content"]["extra_names"]["private_concern_cards"]
    assert english == {ident: card["name"] for ident, card in cards.items()}
    assert hungarian.keys() == english.keys() and len(cards) == 10
    assert hungarian["pc-06"] == "A hosszú út"
    assert not {ident for ident in english if hungarian[ident] == english[ident]}


def test_a_hungarian_readers_log_of_solo_games_has_no_english_word(engine: Engine, tmp_path: Path) -> None:
    """Every line a Hungarian page words of whole solo games (every event its player reads): no
    English word; the Private Concern's lines among them name its card, its action and the
    player's choice for it in Hungarian."""
    if shutil.which("node") is None and not os.environ.get("CI"):
        pytest.skip("node (>= 20) is not installed")
    deps = subprocess.run([str(ROOT / "scripts" / "build-web"), "--deps"], capture_output=True, text=True,
                          timeout=600, cwd=ROOT)
    assert deps.returncode == 0, deps.stdout[-2000:] + deps.stderr[-2000:]
    with i18n.use_locale("hu"):
        catalog = json.loads(catalog_body(engine))
    games = [solo_game(engine, seed) for seed in SEEDS]
    events = [e for log, _ in games for e in log]
    english = English()
    # The answers the player is offered (the page shows the API's labels): the Concern's choices
    # among them, and the wagon upgrades' decisions of its good fortune track.
    offered = {(kind, label, tuple(english.found(label))) for _, labels in games for kind, label in labels}
    assert not [o for o in offered if o[2]], "\n".join(map(str, sorted(o for o in offered if o[2])[:30]))
    assert "concern_choice" in {kind for kind, _, _ in offered}
    kinds = Counter(e["type"] for e in events)
    actions = {e["data"]["action"] for e in events if e["type"] == "concern_action"}
    assert kinds["concern_card"] and kinds["concern_choice"] and actions >= {
        "bazaar", "commission", "travel", "ruins", "dark_market", "inn"}, (kinds, actions)
    (tmp_path / "runner.mjs").write_text(RUNNER)
    (tmp_path / "input.json").write_text(json.dumps({"catalog": catalog, "events": events, "player": PLAYER,
                                                     "concern": 1}))
    run = subprocess.run(["node", tmp_path / "runner.mjs", WORK, ROOT / "web" / "src", tmp_path / "words.mjs",
                          tmp_path / "input.json"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-4000:]
    lines = json.loads(run.stdout)
    assert len(lines) == len(events)
    found = [(e["type"], line, english.found(line.replace(PLAYER, " "))) for e, line in zip(events, lines, strict=True)]
    assert not [f for f in found if f[2]], "\n".join(map(str, [f for f in found if f[2]][:30]))
    concern = [line for e, line in zip(events, lines, strict=True) if e["type"].startswith("concern_")]
    assert any("akciókártyát húzott" in line for line in concern), concern[:10]
