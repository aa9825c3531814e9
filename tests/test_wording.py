"""The engine's words (core/wording.py): every effect the content prints worded in plain words,
and the checker that finds what a player should not read."""

from __future__ import annotations

import re

import pytest

from darkroad.core import Engine
from darkroad.core.wording import Words, a, count, either, listed, problems


@pytest.fixture(scope="module")
def words() -> Words:
    return Words(Engine.load().content)


def printed_effects(words: Words) -> list[list[str]]:
    """Every list of effects the content prints: event faces, towns' rewards, the ruins die's
    faces, the courtyard banners."""
    content = words.content
    found = [list(effects) for event in content.events.values() for effects in event.faces.values()]
    found += [list(town.reward) for town in content.towns.values()]
    found += [[face] for face in content.ruins_die]
    found += [list(banner) for banner in content.courtyard_banners]
    return found


def test_every_printed_effect_reads_in_plain_words(words: Words) -> None:
    printed = printed_effects(words)
    assert len(printed) > 150
    for effects in printed:
        said = words.effects(effects)
        assert said and problems(said) == [], (effects, said, problems(said))


@pytest.mark.parametrize(("effects", "said"), [
    (["coins:2"], "gain 2 coins"),
    (["coins:1"], "gain 1 coin"),
    (["lantern:-2"], "lose 2 lanterns"),
    (["horseshoe:-1", "coins:-1"], "lose 1 horseshoe and 1 coin"),
    (["quartz:1"], "gain 1 blazing quartz"),
    (["good:instrument+", "prestige:2"], "gain an upgraded instrument and 2 prestige"),
    (["good:armor"], "gain an armor"),
    (["good:potion"], "gain a potion"),
    (["good:any+", "prestige:1"], "gain an upgraded good of your choice and 1 prestige"),
    (["upgrade_good", "coins:1"], "upgrade one of your goods and gain 1 coin"),
    (["upgrade_good", "upgrade_good"], "upgrade one of your goods, twice"),
    (["lose_good:most_valuable"], "return your most valuable good"),
    (["ruins_die"], "roll the ruins die"),
    (["ruins:1"], "move the ruins marker 1 space and take its reward"),
    (["dark_market:3"], "move the dark market marker 3 spaces and take its reward"),
    (["deed:deck"], "gain the top deed of the deck (no bonus)"),
    (["nothing"], "nothing"),
    ([], "nothing"),
])
def test_effects_in_words(words: Words, effects: list[str], said: str) -> None:
    assert words.effects(effects) == said


def test_choices_and_sources_in_words(words: Words) -> None:
    assert words.choose("good:any+", "artisans_bench") == "Artisan's Bench: choose an upgraded good to gain"
    assert words.choose("upgrade_good", "event:dark-road-the-marsh-witch").endswith(": choose a good to upgrade")
    assert words.source("companion:raven-2") == "Raven"
    assert words.source("ruins of yin") == "the Ruins of Yin"
    assert words.effect("deed:courtyard:1") == (
        "gain the courtyard deed in slot 2 and its bonus (a basic good of your choice and 1 horseshoe)")


def test_grammar() -> None:
    assert [a(w) for w in ("potion", "armor", "upgraded book", "8", "unit", "hour")] == [
        "a potion", "an armor", "an upgraded book", "an 8", "a unit", "an hour"]
    assert listed(["a", "b", "c"]) == "a, b and c" and listed(["a"]) == "a" and listed([]) == ""
    assert either(["a", "b", "c"]) == "a, b or c"
    assert [count(n, "coins") for n in (0, 1, 2)] == ["0 coins", "1 coin", "2 coins"]
    assert count(1, "prestige") == "1 prestige" and count(3, "quartz") == "3 blazing quartz"


@pytest.mark.parametrize(("text", "found"), [
    # The examples (issue 42).
    ("take the 1: lantern:-2", "effect code"),
    ("take the 1 +1 = 2: horseshoe:1", "effect code"),
    ("take the 1: lose_good:most_valuable", "effect code"),
    ("take the 4: ruins_die", "snake_case"),
    ("duplicate the 5: horseshoe:1, lantern:1", "effect code"),
    ("gain the courtyard deed in slot 2 (bonus: good:any, horseshoe:1)", "effect code"),
    ("choose: upgrade good (event:dark-road-the-marsh-witch)", "card id"),
    ("Choose: good:any+ (artisans_bench)", "snake_case"),
    ("change a armor die to staff", "'an' before a vowel sound"),
    ("sell book for 1 coins", "a plural after 1"),
    ("pay 0 lantern(s) to roll the ruins die", "(s)"),
    ("take an potion", "'a' before a consonant sound"),
    ("take Raven (raven-2)", "card id"),
])
def test_the_checker_finds_what_a_player_should_not_read(text: str, found: str) -> None:
    assert any(found in problem for problem in problems(text)), problems(text)


@pytest.mark.parametrize("text", [
    "take the 4 (+1 = 5): gain 3 coins",
    "Flicker (gift 1 blazing quartz): Shortcut at no cost.",
    "sell an upgraded staff for 6 coins and 1 blazing quartz",
    "lock a 3 in slot #1, bumping its 1 into your action pool",
    "buy an armor for $3",
    "gain 1 upgraded potion",
    "Li'l Dumplin' gives a one-time bonus",
])
def test_the_checker_passes_plain_words(text: str) -> None:
    assert problems(text) == []


def test_ids_shaped_like_words_are_not_ids() -> None:
    assert problems("a potion", ids=["potion", "dark-road-wolves"]) == []
    assert problems("meet dark-road-wolves", ids=["dark-road-wolves"]) != []


def ids_by_the_per_id_rule(text: str, ids: list[str]) -> set[str]:
    """The ids the checker's rule finds in ``text``, searched for one by one: an id that is not
    a plain word (a ``-``, ``_`` or digit in it) standing alone (no word character or ``-``
    either side)."""
    return {ident for ident in ids if re.search(r"[-_\d]", ident)
            and re.search(rf"(?<![\w-]){re.escape(ident)}(?![\w-])", text)}


def test_the_checker_finds_each_id_as_searching_for_it_alone_does(words: Words) -> None:
    """:func:`problems` finds the ids in one pass over a text: exactly the ids that searching the
    text for each id finds, over every shipped id in the places that decide it (alone, at either
    end, inside a longer word, after or before ``-`` and ``_``, in brackets, possessive, two
    ids side by side), and an id of other characters."""
    content = words.content
    ids = [*content.components, *content.companion_cards, *content.heroes, *content.events,
           *content.commissions, *content.towns, "odd.id-1", "plain"]
    around = ["{}", "take {}", "{} first", "take {}.", "x{}", "{}x", "-{}", "{}-", "_{}", "{}_", "({})",
              "{}'s turn", "{}:2", "1{}", "{} {}"]
    texts = [shape.format(ident, ident) for ident in ids for shape in around]
    texts += [f"{one} and {two}" for one, two in zip(ids, ids[1:], strict=False)]
    texts += [f"{one}-{two}" for one, two in zip(ids, ids[1:], strict=False)]
    for text in texts:
        found = {problem for problem in problems(text, ids) if problem.startswith("id ")}
        assert found == {f"id {ident!r}" for ident in ids_by_the_per_id_rule(text, ids)}, text
