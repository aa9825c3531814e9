"""Stored games of schema version 2 (the turn and the caravan as dicts), made by a darkroad of
that version: positions where the turn holds each kind of key (a caravan at each of its
stages, the Private Concern's fortunes, companions' flags, the horseshoe, the undo chain).

    PYTHONPATH=<an install of c41aef6> .venv/bin/python tests/data/make_stored_games_v2.py

writes tests/data/stored_games_v2.json: per position, the config, the actions that reach it
(type, seat, option) and the stored blob (MessagePack as the API stores it, base64; every
other one as JSON)."""

from __future__ import annotations

import base64
import json
import random
import sys
from pathlib import Path
from typing import Any

from darkroad.core import Engine, GameConfig

OUT = Path(__file__).parent / "stored_games_v2.json"


def features(game: Any) -> set[str]:
    t = game.turn
    out = set()
    c = t.get("caravan")
    if c is not None:
        out.add("caravan_taken" if "taken" in c else "caravan_dice" if "dice" in c else "caravan_declared")
        if "concern_fortunes" in c:
            out.add("caravan_concern_fortunes")
    for key in ("concern_fortunes", "extra_die", "horseshoe", "threy_cat_bonus", "flicker"):
        if key in t:
            out.add(f"turn_{key}")
    u = t.get("undo")
    if isinstance(u, dict):
        out.add("undo_checkpoint" if "checkpoint" in u else "undo_versions")
    if game.phase == "final_travel":
        out.add("final_travel")
    if game.finished:
        out.add("finished")
    return out


def main() -> None:
    engine = Engine.load(strict=True)
    assert engine.serde.loads(engine.dumps(engine.create(GameConfig(players=2))[0])).schema_version == 2
    wanted = {"caravan_declared", "caravan_dice", "caravan_taken", "caravan_concern_fortunes", "turn_concern_fortunes",
              "turn_extra_die", "turn_horseshoe", "turn_threy_cat_bonus", "turn_flicker", "undo_checkpoint",
              "undo_versions", "final_travel", "finished"}
    found: dict[str, dict[str, Any]] = {}
    configs = [dict(players=2), dict(players=4), dict(players=2, options={"private_concern": True}),
               dict(players=4, options={"private_concern": True}), dict(players=3, variants={"drafting": True})]
    seed = 0
    while wanted - found.keys() and seed < 400:
        kw = configs[seed % len(configs)]
        config = GameConfig(seed=1000 + seed, **kw)
        r = random.Random(seed)
        game, _ = engine.create(config)
        actions: list[list[Any]] = []
        while True:
            for f in sorted(features(game) & (wanted - found.keys())):
                packed = len(found) % 2 == 0
                blob = engine.pack(game) if packed else engine.dumps(game)
                found[f] = {"feature": f, "config": engine.serde.unstructure(
                    GameConfig(seed=config.seed, **kw)), "actions": list(actions),
                    "format": "msgpack" if packed else "json",
                    "blob": base64.b64encode(blob).decode() if packed else blob.decode()}
            if game.finished:
                break
            seat = r.choice(engine.awaiting(game))
            legal = engine.legal_actions(game, seat)
            companion = [a for a in legal if a.type == "companion"]
            action = r.choice(companion) if companion and r.random() < 0.5 else r.choice(legal)
            actions.append([action.type, action.seat, action.option])
            engine.apply(game, action)
        seed += 1
    missing = wanted - found.keys()
    print(f"{len(found)} positions from {seed} games; missing: {sorted(missing)}", file=sys.stderr)
    lines = ",\n".join(json.dumps(found[k], separators=(",", ":")) for k in sorted(found))
    OUT.write_text('{"schema_version":2,"made_by":"darkroad c41aef6","positions":[\n' + lines + "\n]}\n")


if __name__ == "__main__":
    main()
