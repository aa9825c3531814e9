"""Every label, detail and prompt the engine gives, in plain words (issue 42).

Seeded random games of every configuration (2-4 players, solo against the Private Concern, the
Private Concern in a 3- or 4-player game, the drafting and advanced deeds variants, every
building of the installation in play at some point, the example fan pack's buildings and
companion when installed) are played to their end; at every decision, the prompt and every
legal action's label and details are read with :func:`darkroad.core.wording.problems`: no effect
code, no snake_case or card id, "an" before a vowel sound, no "1 coins". A companion ability is
taken whenever one is offered, half of the time, so the companions' decisions come up too. The
same test reads the words of any language the catalogs speak (``LOCALES``).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import pytest

from darkroad.core import Engine, GameConfig, i18n
from darkroad.core.wording import problems

LOCALES = ("en",)
"""The languages read (the Hungarian catalog joins once it words the engine's messages)."""


def configurations(engine: Engine) -> Iterator[tuple[str, GameConfig]]:
    """Every configuration, each a few seeds, the buildings rotated so each is played."""
    buildings = sorted(c.id for c in engine.content.of_kind("building"))
    fan = [c.id for c in engine.content.of_kind("companion") if c.plugin.startswith("darkroad_fan") or
           c.plugin.startswith("fan")]
    shapes: list[tuple[str, dict[str, object]]] = [
        ("2 players", {"players": 2}),
        ("3 players", {"players": 3}),
        ("4 players", {"players": 4}),
        ("solo", {"players": 2, "options": {"private_concern": True}}),
        ("3 with the Private Concern", {"players": 3, "options": {"private_concern": True}}),
        ("4 with the Private Concern", {"players": 4, "options": {"private_concern": True}}),
        ("drafting", {"players": 3, "variants": {"drafting": True}}),
        ("advanced deeds", {"players": 2, "variants": {"advanced_deeds": True}}),
        ("both variants", {"players": 4, "variants": {"drafting": True, "advanced_deeds": True}}),
    ]
    n = 0
    for name, shape in shapes:
        for seed in range(3):
            chosen = _four_buildings(engine, buildings, n)
            n += 1
            yield (f"{name}, seed {seed}",
                   GameConfig(seed=seed, buildings=chosen, companions=fan if seed else [], **shape))  # type: ignore[arg-type]


def _four_buildings(engine: Engine, buildings: list[str], n: int) -> list[str]:
    """Four buildings from rotating through them (one side of a tile at most)."""
    chosen: list[str] = []
    tiles: set[object] = set()
    for i in range(len(buildings)):
        b = buildings[(4 * n + i) % len(buildings)]
        tile = engine.content.components[b].data.get("tile")
        if tile is not None and tile in tiles:
            continue
        tiles.add(tile)
        chosen.append(b)
        if len(chosen) == 4:
            break
    return chosen


def read_a_game(engine: Engine, config: GameConfig, ids: list[str], seen: Counter[str]) -> list[str]:
    """Play ``config`` to its end (seeded random answers), reading every prompt, label and
    details; what a player should not read, each once, with where it was."""
    game, _ = engine.create(config)
    rng = random.Random(config.seed)
    found: list[str] = []
    while not game.finished:
        decision = engine.decision(game)
        texts = [("prompt", decision["prompt"])] if decision else []
        seat = rng.choice(engine.awaiting(game))
        actions = engine.legal_actions(game, seat)
        for action in actions:
            texts.append((f"{action.type} label", action.label))
        for option, details in engine.details(game, seat).items():
            texts.append((f"details of {option}", details))
        for where, text in texts:
            if text in seen:
                continue
            seen[text] += 1
            found += [f"{where}: {text!r}: {problem}" for problem in problems(text, ids)]
        abilities = [a for a in actions if a.type == "companion"]
        engine.apply(game, rng.choice(abilities if abilities and rng.random() < 0.5 else actions))
    return found


@pytest.mark.parametrize("locale", LOCALES)
def test_every_label_and_prompt_is_in_plain_words(locale: str) -> None:
    engine = Engine.load()
    content = engine.content
    ids = [*content.components, *content.companion_cards, *content.heroes, *content.events,
           *content.commissions, *content.towns]
    seen: Counter[str] = Counter()
    found: list[str] = []
    with i18n.use_locale(locale):
        for name, config in configurations(engine):
            found += [f"{name}: {problem}" for problem in read_a_game(engine, config, ids, seen)]
    assert len(seen) > 2000, f"only {len(seen)} distinct texts read"
    assert not found, "\n".join(found[:80]) + f"\n({len(found)} in all)"
