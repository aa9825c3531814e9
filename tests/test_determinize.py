"""``Engine.determinize(game, seat, rng)`` (issue 21): a copy of the game with everything
hidden from ``seat`` drawn again. Deeds are kept secret ("Keep your deeds secret until the
end of the game", rulebook p. 5, setup step 17; revealed at final scoring, p. 13), coins
sit behind the player screen, and the decks are face down."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

from darkroad.core import Engine, Game, GameConfig

Z_999 = 3.090232
"""The standard normal quantile of 0.999."""


def chi2_critical(df: int, z: float = Z_999) -> float:
    """The upper 0.1% point of the chi-square distribution with ``df`` degrees of freedom, by
    the Wilson-Hilferty approximation (Abramowitz & Stegun, Handbook of Mathematical
    Functions, 26.4.17), within 1% of the table (A&S table 26.8) from df = 5 on."""
    h = 2 / (9 * df)
    return df * (1 - h + z * math.sqrt(h)) ** 3


def test_the_critical_values_match_the_table() -> None:
    # Abramowitz & Stegun table 26.8, Q = 0.001: df 10 -> 29.588, df 20 -> 45.315, df 30 -> 59.703.
    for df, table in ((10, 29.588), (20, 45.315), (30, 59.703)):
        assert chi2_critical(df) == pytest.approx(table, rel=0.01)


def position(engine: Engine, players: int, seed: int, actions: int, **config: object) -> Game:
    """A game after ``actions`` random actions."""
    game, _ = engine.create(GameConfig(players=players, seed=seed, random_buildings=True, **config))  # type: ignore[arg-type]
    r = random.Random(seed)
    for _ in range(actions):
        if game.finished:
            break
        seat = engine.awaiting(game)[0]
        engine.apply(game, r.choice(engine.legal_actions(game, seat)))
    return game


POSITIONS = [(2, 1, 0, {}), (2, 2, 60, {}), (3, 3, 150, {}), (4, 4, 300, {}), (4, 5, 2, {"variants": {"advanced_deeds": True}}),
             (3, 6, 90, {"variants": {"drafting": True}})]


@pytest.mark.parametrize(("players", "seed", "actions", "config"), POSITIONS)
def test_the_seat_sees_the_same_game_in_every_sample(engine: Engine, players: int, seed: int, actions: int,
                                                     config: dict[str, object]) -> None:
    game = position(engine, players, seed, actions, **config)
    before = engine.dumps(game)
    r = random.Random(seed)
    for seat in range(players):
        real = engine.view(game, seat)
        samples = [engine.determinize(game, seat, r) for _ in range(8)]
        for sample in samples:
            assert engine.view(sample, seat) == real
            assert engine.broken_invariants(sample) is None
        assert len({engine.dumps(s) for s in samples}) == len(samples), "the samples differ from each other"
    assert engine.dumps(game) == before, "the real game is not changed"


def test_samples_play_on(engine: Engine) -> None:
    """A sample is a game like any other: it can be played to the end."""
    game = position(engine, 3, 8, 120)
    sample = engine.determinize(game, 0, random.Random(1))
    r = random.Random(2)
    while not sample.finished:
        seat = engine.awaiting(sample)[0]
        engine.apply(sample, r.choice(engine.legal_actions(sample, seat)))
    assert len(sample.score) == 3


def test_the_private_concerns_deck_is_drawn_again(engine: Engine) -> None:
    kind = engine.seat_kinds["private_concern"]
    game = position(engine, 2, 3, 40, options=kind.game_options())
    concern = 1
    decks = {tuple(engine.determinize(game, 0, random.Random(i)).players[concern].extra["concern"]["deck"])
             for i in range(10)}
    assert len(decks) > 1
    sample = engine.determinize(game, 0, random.Random(0))
    assert engine.view(sample, 0) == engine.view(game, 0)


def chi_square(counts: Counter[str], cells: list[str], n: int) -> float:
    expected = n / len(cells)
    return sum((counts[c] - expected) ** 2 / expected for c in cells)


def test_hidden_cards_are_distributed_as_the_unseen_cards_are(engine: Engine) -> None:
    """Over many samples, the first deed of an opponent and the top of the hero deck are
    uniform over the cards the seat has not seen: no sample carries the real hidden cards."""
    game = position(engine, 4, 4, 200)
    seat, opponent = 0, 2
    b = game.board
    unseen_deeds = sorted({d for p in game.players if p.seat != seat for d in p.deeds} | set(b.deed_deck))
    heroes = sorted(b.hero_deck)
    assert len(unseen_deeds) >= 10 and len(heroes) >= 6
    n = 3000
    r = random.Random(21)
    deeds: Counter[str] = Counter()
    tops: Counter[str] = Counter()
    for _ in range(n):
        sample = engine.determinize(game, seat, r)
        deeds[sample.players[opponent].deeds[0]] += 1
        tops[sample.board.hero_deck[0]] += 1
    assert set(deeds) <= set(unseen_deeds) and set(tops) <= set(heroes)
    for counts, cells in ((deeds, unseen_deeds), (tops, heroes)):
        stat = chi_square(counts, cells, n)
        assert stat < chi2_critical(len(cells) - 1), (stat, counts)
    # The real card is not favoured: it comes up about as often as any other.
    real = game.players[opponent].deeds[0]
    assert deeds[real] < 2 * n / len(unseen_deeds)


def test_a_sample_depends_only_on_what_the_seat_sees(engine: Engine) -> None:
    """Two games the seat cannot tell apart give the same sample from the same rng: no
    trace of where the hidden cards really are reaches a sample."""
    game = position(engine, 3, 12, 100)
    other = engine.determinize(game, 1, random.Random(99))
    assert engine.dumps(other) != engine.dumps(game)
    assert engine.dumps(engine.determinize(game, 1, random.Random(5))) == \
        engine.dumps(engine.determinize(other, 1, random.Random(5)))
