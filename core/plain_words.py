"""What a player's text must not show, and the English sound a phrase starts with.

:func:`problems` is the checker of plain words: the tests read every label, prompt and detail of
random games with it (``tests/test_plain_words.py``), and :mod:`darkroad.core.wording` chooses
"a" or "an" with :func:`vowel_sound`. Kept apart from the words themselves: it is their test, not
their making.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_AN_EXCEPTIONS = re.compile(r"(?i)^(uni|use|usu|ure|eu|one\b|once)")
_SILENT_H = re.compile(r"(?i)^(hour|honest|honou?r|heir)")
_AN_NUMBER = re.compile(r"^(8|11|18)(\D|$)|^8\d")


def vowel_sound(phrase: str) -> bool:
    """Whether ``phrase`` starts with a vowel sound (English: "an upgraded", "an 8", "a unit")."""
    first = phrase[:1].lower()
    if first in "aeiou":
        return first != "" and not (first in "euo" and _AN_EXCEPTIONS.match(phrase))
    if first == "h":
        return bool(_SILENT_H.match(phrase))
    if first in "18":
        return bool(_AN_NUMBER.match(phrase))
    return False


_CODE = re.compile(r"\b[a-z][a-z_]*:[\w+:-]")
_SNAKE = re.compile(r"\b[a-z0-9]+_[a-z0-9_]+\b")
_CARD = re.compile(r"(?<![\w-])[a-z]+(?:-[a-z0-9]+){2,}\b|(?<![\w-])[a-z_]{3,}-\d+\b")
_A_VOWEL = re.compile(r"(?<![\w'])([Aa]) ([\w$][\w'-]*)")
_AN_CONSONANT = re.compile(r"(?<![\w'])([Aa]n) ([\w$][\w'-]*)")
_WORD = re.compile(r"[\w-]+")
"""A run of word characters and hyphens. An id made of them shows in a text only as a whole run
(the id rule's boundaries): looking each run up among the ids finds what searching the text for
each id finds, in one pass over the text instead of one search an id."""
_CODED = re.compile(r"[-_\d]")
"""What makes an id not a plain word: a hyphen, an underscore or a digit."""
_ONE_PLURAL = re.compile(r"(?<![\w.$+#-])1 ((?:[a-z]+ )?([a-z]+))\b")
_COUNTED = frozenset({
    "coins", "lanterns", "horseshoes", "goods", "heroes", "commissions", "deeds", "spaces", "dice", "points",
    "rounds", "turns", "players", "seats", "cards", "companions", "gifts", "steeds", "upgrades", "actions", "times",
    "slots", "markers", "quartzes", "potions", "books", "staves", "staffs", "instruments", "weapons", "armors",
    "prestiges", "seconds", "minutes", "hours", "days", "versions", "steps", "decisions", "events"})
"""Plural nouns a count goes with: "1" before one of them is "1 coins"."""


def problems(text: str, ids: Iterable[str] = ()) -> list[str]:
    """What ``text`` shows that a player should not read: an effect code (``coins:2``), a
    snake_case word or a card id (any of ``ids`` that is not a plain word, and anything shaped
    like one), "a" before a vowel sound or "an" before a consonant, "1" before a plural
    ("1 coins") or a "(s)" plural. Empty: plain words."""
    found: list[str] = []
    for match in _CODE.finditer(text):
        found.append(f"effect code {text[match.start():match.start() + 24]!r}")
    found += [f"snake_case {m.group(0)!r}" for m in _SNAKE.finditer(text)]
    found += [f"card id {m.group(0)!r}" for m in _CARD.finditer(text)]
    listed = set(ids)
    found += [f"id {word!r}" for word in _WORD.findall(text) if word in listed and _CODED.search(word)]
    for ident in listed:  # an id with other characters (none ships) is searched for on its own
        if not _WORD.fullmatch(ident) and _CODED.search(ident) and \
                re.search(rf"(?<![\w-]){re.escape(ident)}(?![\w-])", text):
            found.append(f"id {ident!r}")
    for match in _A_VOWEL.finditer(text):
        if vowel_sound(match.group(2)):
            found.append(f"{match.group(0)!r}: 'an' before a vowel sound")
    for match in _AN_CONSONANT.finditer(text):
        if not vowel_sound(match.group(2)):
            found.append(f"{match.group(0)!r}: 'a' before a consonant sound")
    for match in _ONE_PLURAL.finditer(text):
        if match.group(2) in _COUNTED:
            found.append(f"'1 {match.group(1)}': a plural after 1")
    if "(s)" in text:
        found.append("'(s)': a plural left to the reader")
    return sorted(set(found))
