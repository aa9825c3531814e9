"""``Engine.legal_actions(game, seat, words=False)``: the same answers in the same order, with
no labels, and nothing worded for them (an agent's environment reads only what the answers
are). Over random games of every kind (fan content, companions dealt, abilities taken), in
each language, and the language of the call is the same afterwards."""

from __future__ import annotations

import random

import pytest
from invariants import choose, deal_companions, random_config

from darkroad.core import Engine, i18n
from darkroad.core.wording import say

GAMES = 8


@pytest.mark.parametrize("locale", i18n.LOCALES)
def test_the_wordless_answers_are_the_answers_without_their_labels(locale: str) -> None:
    engine = Engine.load()  # the fan pack's decisions word their options with their own catalog
    asked = 0
    with i18n.use_locale(locale):
        for seed in range(GAMES):
            r = random.Random(seed)
            game, _ = engine.create(random_config(r, seed))
            deal_companions(game, r)
            while not game.finished:
                for seat in range(len(game.players)):
                    worded = engine.legal_actions(game, seat)
                    bare = engine.legal_actions(game, seat, words=False)
                    assert [a.key() for a in bare] == [a.key() for a in worded]
                    assert all(a.label == "" for a in bare)
                    assert all(a.label for a in worded)
                    assert i18n.current_locale() == locale  # the call's language is back
                    asked += bool(bare)
                seat = engine.awaiting(game)[0]
                engine.apply(game, choose(r, engine.legal_actions(game, seat, words=False)), track_undo=False)
    assert asked > GAMES * 100
    assert say("nothing") and i18n.current_locale() == i18n.DEFAULT_LOCALE


def test_nothing_is_worded_for_the_wordless_answers(engine: Engine) -> None:
    """Where no words are read, the core's words are empty."""
    token = i18n.set_wordless()
    try:
        assert say("a %(thing)s", thing="potion") == ""
        words = engine.no_words
        assert words.goods(["potion", "book+"]) == "" and words.phrase("coins:2") == ("", "")
    finally:
        i18n.reset_locale(token)
    assert say("a %(thing)s", thing="potion") == "a potion"
    assert engine.words.goods(["potion"]) == "a potion"
