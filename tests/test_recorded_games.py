"""Every recorded game replays identically (``tests/recorded_games.py`` explains the corpus).

A failure names the game and what changed. A deliberate rule change re-records the corpus
(``python scripts/record_games.py``, and ``--compare`` to count the games it changed);
a change of the state's representation alone refreshes the state digests
(``--refresh-state``). Anything else is a regression.
"""

from __future__ import annotations

import pytest
from recorded_games import Diverged, decode_game, load, replay

from darkroad.core import Engine

CORPUS = load()


def test_the_corpus_is_mixed():
    """The corpus covers 2-4 players, solo, the Private Concern in a 3-4 player game,
    drafting, advanced deeds, random and first-game buildings, random and greedy play."""
    configs = [g["config"] for g in CORPUS["games"]]
    # The Private Concern: a game option (``options``); a corpus recorded before it was one
    # has the old config field.
    shapes = {(c.get("players", 2), bool(c.get("private_concern") or c.get("options", {}).get("private_concern")))
              for c in configs}
    assert shapes >= {(2, False), (3, False), (4, False), (2, True), (3, True), (4, True)}
    assert any(c.get("variants", {}).get("drafting") for c in configs)
    assert any(c.get("variants", {}).get("advanced_deeds") for c in configs)
    assert any(c.get("random_buildings") for c in configs) and not all(c.get("random_buildings") for c in configs)
    policies = {p for g in CORPUS["games"] for p in g["policy"]}
    assert policies == {"random", "greedy"}
    assert len(CORPUS["games"]) >= 60


@pytest.mark.parametrize("index", range(len(CORPUS["games"])))
def test_recorded_game_replays_identically(engine: Engine, index: int):
    record = CORPUS["games"][index]
    config, actions = decode_game(engine, record)
    try:
        got = replay(engine, config, actions)
    except Diverged as exc:
        pytest.fail(f"recorded game {index} ({record['config']}) diverged at {exc}")
    want = record["final"]
    assert (got["winners"], got["scores"]) == (want["winners"], want["scores"]), f"game {index}: another outcome"
    assert (got["events"], got["events_sha256"]) == (want["events"], want["events_sha256"]), \
        f"game {index}: the same actions emit other events"
    assert (got["version"], got["round"]) == (want["version"], want["round"])
    assert got["state_sha256"] == want["state_sha256"], (
        f"game {index}: the same play ends in another state (a representation change alone: "
        "python scripts/record_games.py --refresh-state)")
