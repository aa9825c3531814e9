"""The engine's words: effects, cards, goods and sources in plain words, from one place.

Every label, prompt and text a player reads that names an effect (``"coins:2"``, ``"good:any+"``),
a card (``"dark-road-the-marsh-witch"``, ``"raven-2"``) or a good (``"potion+"``) words it with
:class:`Words`: the rules' steps, the plugins (through their kit) and the catalogue alike, so the
same effect reads the same everywhere, and no code, snake_case or card id reaches a player.
:func:`problems` says what a text still shows of them (the tests read every label and prompt of
random games with it).

Messages are whole English sentences with named placeholders (``%(good)s``), translated from the
core's gettext catalog (:mod:`darkroad.core.i18n`) in the language of the call, through
:func:`say` and :func:`say_n` (a plugin's through its :func:`speaker`, in its own catalog): Babel
extracts them like ``_`` (``scripts/i18n.py``'s ``KEYWORDS``), and ``tests/test_i18n.py`` fails on
one the Hungarian catalog lacks. A message kept as data (a table of words) is marked ``N_`` (a
plural pair :func:`N_n`) where it is written and said where it is shown.

**Words of a plugin's own effects.** An effect verb the core does not know is worded by the
first of: the ``effect_words`` of a content pack (``{"verb": "message with %(arg)s"}``: data, so
a fan pack words its effects without code) and a plugin's hook implementation of
``darkroad_effect_words`` (:meth:`Words.effect` passes it ``effect``; it returns the words or
``None``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from . import i18n
from .content import Content
from .i18n import N_
from .plain_words import problems as problems  # where the tests and api have always found it
from .plain_words import vowel_sound

UP = "+"

Namer = Callable[[str, str, str], str]
"""``(kind, id, printed name) -> the name in the caller's language`` (kind: ``good``, ``hero``,
``town``, ``event``, ``component``)."""


def N_n(singular: str, plural: str) -> tuple[str, str]:
    """Mark a message with its plural for extraction without translating it now (``N_`` of
    :mod:`darkroad.core.i18n` for a :func:`say_n` message kept as data)."""
    return singular, plural


HERO_CLASSES = {"knight": N_("knight"), "skirmisher": N_("skirmisher"), "alchemist": N_("alchemist"),
                "bard": N_("bard"), "wizard": N_("wizard"), "loremaster": N_("loremaster")}
"""The heroes' classes of the base game in words (messages: a card's ``hero_class``)."""


_SOURCE = i18n.DEFAULT_LOCALE
_locale = i18n.locale_now


def say(message: str, /, **params: Any) -> str:
    """``message`` in the caller's language, its ``%(name)s`` placeholders filled from
    ``params`` (the core's catalog; English until translated). English, the source language,
    is the message itself: no catalog asked (labels are made at every decision, bots' included).
    No words at all (``""``) where words are not read (:func:`i18n.set_wordless`)."""
    locale = _locale()
    if locale == _SOURCE:
        return message % params if params else message
    return i18n.gettext(message, **params) if locale else ""


def say_n(singular: str, plural: str, n: int, /, **params: Any) -> str:
    """The plural form of the caller's language for ``n`` (``%(num)d`` is ``n``)."""
    locale = _locale()
    if locale == _SOURCE:
        return (singular if n == 1 else plural) % {"num": n, **params}
    return i18n.ngettext(singular, plural, n, **params) if locale else ""


def speaker(module: str) -> Callable[..., str]:
    """:func:`say` in the message domain of ``module``'s package (a plugin's words in its own
    catalog: ``say = wording.speaker(__name__)`` in a plugin module)."""
    domain = i18n.messages(module)

    def speak(message: str, /, **params: Any) -> str:
        locale = _locale()
        if locale == _SOURCE:
            return message % params if params else message
        return domain.gettext(message, **params) if locale else ""

    return speak


def plugin_namer(content: Content, modules: Mapping[str, str]) -> Namer:
    """A :data:`Namer` translating each card's printed name in the catalog of the plugin that
    contributed it (``modules``: plugin name -> its module; the owner of a card from
    ``content.owners``, of a component its ``plugin``)."""
    domains: dict[str, i18n.Domain] = {}

    def namer(kind: str, ident: str, name: str) -> str:
        locale = _locale()
        if locale == _SOURCE:
            return name  # as printed
        if not locale:
            return ""
        if kind == "component":
            found = content.components.get(ident)
            owner = found.plugin if found else ""
        else:
            owner = content.owners.get((kind, ident), "")
        if not owner:
            return name
        domain = domains.get(owner)
        if domain is None:
            domain = domains[owner] = i18n.messages(modules.get(owner, ""))
        return domain.gettext(name)

    return namer


# -- grammar ---------------------------------------------------------------------------------

def a(phrase: str) -> str:
    """``phrase`` with its indefinite article ("a potion", "an upgraded book")."""
    return say("an %(thing)s", thing=phrase) if vowel_sound(phrase) else say("a %(thing)s", thing=phrase)


def listed(items: Sequence[str]) -> str:
    """``items`` as a list in words ("a, b and c"): one message per length, so a translation
    words its own list."""
    items = [item for item in items if item]
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    head = items[0]
    for item in items[1:-1]:
        head = say("%(items)s, %(item)s", items=head, item=item)
    return say("%(items)s and %(last)s", items=head, last=items[-1])


def either(items: Sequence[str]) -> str:
    """``items`` as alternatives ("a, b or c")."""
    items = [item for item in items if item]
    if len(items) <= 1:
        return items[0] if items else ""
    head = items[0]
    for item in items[1:-1]:
        head = say("%(items)s, %(item)s", items=head, item=item)
    return say("%(items)s or %(last)s", items=head, last=items[-1])


def count(n: int, resource: str) -> str:
    """``n`` of a resource in words ("1 coin", "2 lanterns", "3 blazing quartz")."""
    words = _COUNTS.get(resource)
    if words is None:
        return say("%(num)d %(what)s", num=n, what=resource.replace("_", " "))
    return say_n(words[0], words[1], n)


_COUNTS: dict[str, tuple[str, str]] = {
    "coins": N_n("%(num)d coin", "%(num)d coins"),
    "prestige": N_n("%(num)d prestige", "%(num)d prestige"),
    "lantern": N_n("%(num)d lantern", "%(num)d lanterns"),
    "lanterns": N_n("%(num)d lantern", "%(num)d lanterns"),
    "quartz": N_n("%(num)d blazing quartz", "%(num)d blazing quartz"),
    "horseshoe": N_n("%(num)d horseshoe", "%(num)d horseshoes"),
    "horseshoes": N_n("%(num)d horseshoe", "%(num)d horseshoes"),
    "illuminated": N_n("%(num)d illuminated die", "%(num)d illuminated dice"),
    "goods": N_n("%(num)d good", "%(num)d goods"),
    "heroes": N_n("%(num)d hero", "%(num)d heroes"),
    "commissions": N_n("%(num)d commission", "%(num)d commissions"),
    "deeds": N_n("%(num)d deed", "%(num)d deeds"),
    "spaces": N_n("%(num)d space", "%(num)d spaces"),
    "market_dice": N_n("%(num)d market die", "%(num)d market dice"),
    "vp": N_n("%(num)d victory point", "%(num)d victory points"),
}
"""The resources and things counted in words, singular and plural (gettext's plural forms)."""

RESOURCE_VERBS = {"coins": "coins", "prestige": "prestige", "lantern": "lanterns", "quartz": "quartz",
                  "horseshoe": "horseshoes"}
"""An effect's resource verb -> the resource counted (:data:`_COUNTS`)."""

# -- the words of a game's content --------------------------------------------------------------

def _as_printed(kind: str, ident: str, name: str) -> str:
    return name


class Words:
    """Plain words for the effects, cards, goods and sources of one content (an engine's):
    what every label, prompt and the catalogue say. ``namer`` translates a card's printed name
    (the engine's: each from its plugin's catalog); ``extra`` words effects the core does not
    know (content packs' ``effect_words`` and the ``darkroad_effect_words`` hook)."""

    def __init__(self, content: Content, namer: Namer = _as_printed,
                 extra: Callable[[str], str | None] | None = None) -> None:
        self.content = content
        self.namer = namer
        self.extra = extra
        self._goods = {good.id: good.name for good in content.goods}
        self._said: dict[tuple[str, str, str], str] = {}
        """Words that depend only on the content and the language, made once each: a good with its
        article, a commission card, a list of effects that names nothing on the board. Labels are
        made at every decision (a bot's rollouts included) and name the same few things again and
        again: saves 7.8-8.4% of the ``engine`` workload and 1.5% of ``greedy``
        (``benchmarks/instructions.py --workloads engine,greedy --without words-said``). Bounded
        by the content: its goods, its commissions and the effects it prints, in each language."""

    # -- names -----------------------------------------------------------------------------

    def good_type(self, good: str) -> str:
        """A good type's name as a common noun ("potion")."""
        printed = self._goods.get(good)
        if printed is None:
            return good.replace("_", " ")
        name = self.namer("good", good, printed)
        return name[:1].lower() + name[1:]

    def good(self, token: str) -> str:
        """A good tile: "potion", "upgraded potion"."""
        if token.endswith(UP):
            return say("upgraded %(good)s", good=self.good_type(token[:-1]))
        return self.good_type(token)

    def a_good(self, token: str) -> str:
        """A good tile with its article: "a potion", "an upgraded book"."""
        key = ("a_good", _locale(), token)
        found = self._said.get(key)
        if found is None:
            found = self._said[key] = a(self.good(token))
        return found

    def goods(self, tokens: Iterable[str]) -> str:
        """Goods with their articles, listed: "a potion, an armor and an upgraded book"."""
        return listed([self.a_good(t) for t in tokens]) or say("nothing")

    def hero(self, ident: str) -> str:
        card = self.content.heroes.get(ident)
        return self.namer("hero", ident, card.name) if card else ident.replace("_", " ")

    def town(self, ident: str) -> str:
        card = self.content.towns.get(ident)
        return self.namer("town", ident, card.name) if card else ident.replace("_", " ").title()

    def event(self, ident: str) -> str:
        card = self.content.events.get(ident)
        return self.namer("event", ident, card.name) if card else ident.replace("-", " ")

    def component(self, ident: str) -> str:
        """A component's name (a building, companion, steed, deed or upgrade); a companion card
        ("raven-2") by its companion's name."""
        ident = self.content.companion_cards.get(ident, ident)
        found = self.content.components.get(ident)
        return self.namer("component", ident, found.name) if found else ident.replace("_", " ")

    def component_text(self, ident: str, text: str) -> str:
        """A text of component ``ident`` (its text, a companion's ability, a deed's criterion) in
        the caller's language, from the catalog of the plugin that contributed it."""
        return self.namer("component", self.content.companion_cards.get(ident, ident), text)

    def commission(self, ident: str) -> str:
        """A commission card: "the Farglen commission (a potion, a book and a staff)"."""
        key = ("commission", _locale(), ident)
        found = self._said.get(key)
        if found is not None:
            return found
        card = self.content.commissions.get(ident)
        if card is None:
            return say("a commission")
        found = self._said[key] = say("the %(town)s commission (%(goods)s)", town=self.town(card.town),
                                      goods=self.goods(card.requests))
        return found

    _SOURCES = {
        "slot #1": N_("slot #1"), "slot #2": N_("slot #2"), "slot #3": N_("slot #3"),
        "courtyard banner": N_("the courtyard banner"), "good fortune": N_("good fortune"),
        "ruins of yin": N_("the Ruins of Yin"), "ruins die": N_("the ruins die"), "dark market": N_("the Dark Market"),
        "queen's commissions": N_("the Queen's Commissions"), "great bazaar": N_("the Great Bazaar"),
        "ringway inn": N_("the Ringway Inn"), "yurg's excursions": N_("Yurg's Excursions"), "planning": N_("planning"),
        "oracle die": N_("the oracle die"), "setup": N_("the setup"),
    }

    def source(self, source: str) -> str:
        """What caused something, in words: a district, a card, a component, a slot."""
        kind, _, ident = source.partition(":")
        if ident:
            if kind == "companion":
                return self.component(ident)
            if kind == "event":
                return self.event(ident)
            if kind == "hero":
                return self.hero(ident)
            if kind == "deliver":
                return say("delivering %(hero)s", hero=self.hero(ident))
            if kind == "commission":
                return self.commission(ident)
        if source in self.content.components or source in self.content.companion_cards:
            return self.component(source)
        known = self._SOURCES.get(source.lower())
        if known is not None:
            return say(known)
        return source.replace("_", " ").replace("-", " ")

    # -- effects -----------------------------------------------------------------------------

    def effects(self, effects: Sequence[str], board: Any = None) -> str:
        """Effects in words, as one phrase of what happens: "gain 2 coins and an upgraded potion",
        "lose 1 horseshoe and 1 coin", "upgrade one of your goods and gain 1 coin", "nothing".
        ``board`` (the game's) names what a slot holds (a hero of the inn, a courtyard deed)."""
        key = ("effects", _locale(), "|".join(effects))
        found = self._said.get(key)
        if found is not None:
            return found
        said = self._effects(effects, board)
        if not any(effect.partition(":")[0] in _ON_THE_BOARD for effect in effects):
            self._said[key] = said
        return said

    def _effects(self, effects: Sequence[str], board: Any) -> str:
        groups: list[tuple[str, list[str]]] = []
        for effect in effects:
            kind, words = self.phrase(effect, board)
            if kind in ("gain", "lose") and groups and groups[-1][0] == kind:
                groups[-1][1].append(words)
            else:
                groups.append((kind, [words]))
        parts: list[str] = []
        repeats: list[int] = []
        for kind, grouped in groups:
            if kind == "gain":
                part = say("gain %(things)s", things=listed(grouped))
            elif kind == "lose":
                part = say("lose %(things)s", things=listed(grouped))
            else:
                part = grouped[0]
            if parts and parts[-1] == part:  # the same twice: "upgrade one of your goods, twice"
                repeats[-1] += 1
            else:
                parts.append(part)
                repeats.append(1)
        said = [part if n == 1 else say("%(what)s, twice", what=part) if n == 2
                else say("%(what)s, %(num)d times", what=part, num=n)
                for part, n in zip(parts, repeats, strict=True)]
        return listed(said) or say("nothing")

    def things(self, effects: Sequence[str], board: Any = None) -> str:
        """Effects gained as things ("a basic good of your choice and 1 horseshoe"), for a bonus
        or a reward; effects that do something are worded as :meth:`effects` words them."""
        phrases = [self.phrase(effect, board) for effect in effects]
        if phrases and all(kind == "gain" for kind, _ in phrases):
            return listed([words for _, words in phrases])
        return self.effects(effects, board)

    def effect(self, effect: str, board: Any = None) -> str:
        """One effect in words (:meth:`effects`)."""
        return self.effects([effect], board)

    def phrase(self, effect: str, board: Any = None) -> tuple[str, str]:
        """``(kind, words)`` of one effect: ``gain`` (what is gained: "2 coins"), ``lose`` (what
        is lost: "1 lantern") or ``act`` (what is done: "upgrade one of your goods")."""
        verb, _, arg = effect.partition(":")
        if verb in RESOURCE_VERBS and re.fullmatch(r"-?\d+", arg):
            n = int(arg)
            return ("gain" if n >= 0 else "lose"), count(abs(n), RESOURCE_VERBS[verb])
        if verb == "good":
            return "gain", self._good_effect(arg)
        if verb == "illuminated":
            return "gain", say("an illuminated die")
        if verb == "nothing":
            return "act", say("nothing")
        wording = _ACTS.get(verb)
        if wording is not None:
            return "act", wording(self, arg, board)
        printed = self.content.effect_words.get(verb)
        if printed is not None:  # a content pack's words for its plugin's effect
            return "act", self.namer("effect_words", verb, printed) % {"arg": arg}
        if self.extra is not None:
            found = self.extra(effect)
            if found:
                return "act", found
        return "act", effect.replace("_", " ").replace(":", " ")

    def printed(self) -> dict[str, str]:
        """Every effect and list of effects the content prints (cards, boards, components' data),
        in words, keyed by the effects joined with ``|`` (``"lantern:1|prestige:1"``): what a
        client shows on the table without wording anything itself (the catalogue's
        ``effect_words``)."""
        found: dict[str, str] = {}
        c = self.content
        lists: list[Sequence[str]] = [effects for event in c.events.values() for effects in event.faces.values()]
        lists += [town.reward for town in c.towns.values()] + list(c.courtyard_banners)
        lists += [[face] for face in c.ruins_die]
        for component in c.components.values():
            lists += list(_effect_lists(component.data, self._verbs()))
        for effects in lists:
            for key in ("|".join(effects), *effects):
                if key and key not in found:
                    found[key] = self.effects(key.split("|"))
        return found

    def _verbs(self) -> frozenset[str]:
        return frozenset({*RESOURCE_VERBS, *_ACTS, "good", "illuminated", "nothing", *self.content.effect_words})

    def _good_effect(self, arg: str, chosen: bool = False) -> str:
        up = arg.endswith(UP)
        base = arg[:-1] if up else arg
        if base in self.content.good_index:
            return self.a_good(arg)
        if base == "any" and chosen:
            return say("an upgraded good") if up else say("a basic good")
        if base == "any":
            return say("an upgraded good of your choice") if up else say("a basic good of your choice")
        if base.startswith("value") and base[5:].isdigit():
            value = int(base[5:])
            return (say("an upgraded good of a type worth $%(value)d", value=value) if up
                    else say("a basic good worth $%(value)d", value=value))
        if base == "not_on_wheel":
            return say("a basic good of a type with no market die")
        if base == "craft":
            return (say("the upgraded good your slot #1 die crafts") if up
                    else say("the good your slot #1 die crafts"))
        return base.replace("_", " ")

    # -- choices ------------------------------------------------------------------------------

    def choose(self, effect: str, source: str = "") -> str:
        """The prompt of a choice among what an abstract effect offers ("Artisan's Bench: choose
        an upgraded good to gain")."""
        what = self._choice(effect)
        if not source:
            return what
        return say("%(source)s: %(choice)s", source=self.source(source), choice=what)

    def _choice(self, effect: str) -> str:
        verb, _, arg = effect.partition(":")
        if verb == "good":
            return say("choose %(good)s to gain", good=self._good_effect(arg, chosen=True))
        simple = {
            "upgrade_good": N_("choose a good to upgrade"),
            "downgrade_good": N_("choose an upgraded good to turn to its basic side"),
            "lose_good": (N_("choose your most valuable good to return") if arg == "most_valuable"
                          else N_("choose a good to return")),
            "hero": N_("choose a hero to gain"),
            "lose_hero": N_("choose a hero to lose"),
            "deliver_hero": N_("choose a hero to deliver"),
            "commission": N_("choose a commission to gain"),
            "deed": N_("choose a deed to gain"),
            "commission_or_deed": N_("choose a commission or a deed to gain"),
            "ruins_good": N_("choose the upgraded good to gain"),
        }.get(verb)
        if simple is not None:
            return say(simple)
        return say("choose: %(what)s", what=self.effect(effect))


def _effect_lists(data: Any, verbs: frozenset[str]) -> Iterable[Sequence[str]]:
    """The lists of effects in a component's ``data`` (the Oracle of Lumi's die faces), and its
    single effects as lists of one: strings whose verb is an effect's."""
    if isinstance(data, str):
        if data.partition(":")[0] in verbs and " " not in data:
            yield [data]
    elif isinstance(data, Mapping):
        for value in data.values():
            yield from _effect_lists(value, verbs)
    elif isinstance(data, list | tuple):
        if data and all(isinstance(x, str) and x.partition(":")[0] in verbs and " " not in x for x in data):
            yield list(data)
        else:
            for value in data:
                yield from _effect_lists(value, verbs)


def _upgrade(words: Words, arg: str, board: Any) -> str:
    if not arg:
        return say("upgrade one of your goods")
    return say("upgrade %(good)s", good=words.a_good(arg))


def _downgrade(words: Words, arg: str, board: Any) -> str:
    if not arg:
        return say("turn one of your upgraded goods to its basic side")
    return say("turn %(good)s to its basic side", good=words.a_good(arg + UP))


def _lose_good(words: Words, arg: str, board: Any) -> str:
    if not arg:
        return say("return one of your goods")
    if arg == "most_valuable":
        return say("return your most valuable good")
    return say("return %(good)s", good=words.a_good(arg))


def _hero(words: Words, arg: str, board: Any) -> str:
    if not arg:
        return say("gain a hero from the inn or the top of the hero deck")
    if arg == "deck":
        return say("gain the top hero of the deck")
    slot = int(arg.rpartition(":")[2]) if arg.rpartition(":")[2].isdigit() else -1
    inn = getattr(board, "inn", None) or []
    hero = inn[slot] if 0 <= slot < len(inn) else None
    return say("gain %(hero)s from the inn", hero=words.hero(hero)) if hero else say("gain a hero from the inn")


def _hero_of(verb: str) -> Callable[[Words, str, Any], str]:
    def word(words: Words, arg: str, board: Any) -> str:
        if verb == "lose_hero":
            return say("lose %(hero)s", hero=words.hero(arg)) if arg else say("lose one of your heroes")
        return say("deliver %(hero)s", hero=words.hero(arg)) if arg else say("deliver one of your heroes")

    return word


def _commission(words: Words, arg: str, board: Any) -> str:
    if not arg:
        return say("gain the top commission of a town's stack")
    stacks = getattr(board, "commission_stacks", None) or {}
    stack = stacks.get(arg) or []
    if stack:
        return say("gain %(commission)s", commission=words.commission(stack[0]))
    return say("gain the top %(town)s commission", town=words.town(arg))


def _deed(words: Words, arg: str, board: Any) -> str:
    if not arg:
        return say("gain a deed and its banner's bonus")
    if arg == "deck":
        return say("gain the top deed of the deck (no bonus)")
    slot = int(arg.rpartition(":")[2])
    banners = words.content.courtyard_banners
    bonus = banners[slot] if slot < len(banners) else ()
    if not bonus:
        return say("gain the courtyard deed in slot %(slot)d", slot=slot + 1)
    return say("gain the courtyard deed in slot %(slot)d and its bonus (%(bonus)s)", slot=slot + 1,
               bonus=words.things(bonus))


def _steps(what: str) -> Callable[[Words, str, Any], str]:
    def word(words: Words, arg: str, board: Any) -> str:
        if not arg:
            return say("take the Ruins of Yin action again")
        n = int(arg)
        if what == "ruins":
            return say_n("move the ruins marker %(num)d space and take its reward",
                         "move the ruins marker %(num)d spaces and take its reward", n)
        return say_n("move the dark market marker %(num)d space and take its reward",
                     "move the dark market marker %(num)d spaces and take its reward", n)

    return word


_ON_THE_BOARD = frozenset({"hero", "commission", "deed"})
"""Effect verbs whose words name what the board holds now (a hero of the inn, the top of a town's
commissions, a courtyard deed): worded afresh each time."""

_ACTS: Mapping[str, Callable[[Words, str, Any], str]] = {
    "upgrade_good": _upgrade,
    "downgrade_good": _downgrade,
    "lose_good": _lose_good,
    "hero": _hero,
    "lose_hero": _hero_of("lose_hero"),
    "deliver_hero": _hero_of("deliver_hero"),
    "commission": _commission,
    "deed": _deed,
    "ruins": _steps("ruins"),
    "dark_market": _steps("dark_market"),
    "ruins_die": lambda words, arg, board: say("roll the ruins die"),
    "illuminated_reroll": lambda words, arg, board: say(
        "roll the ruins die again (the same face again gives an illuminated die)"),
    "commission_or_deed": lambda words, arg, board: say("gain a commission or a deed and its bonus"),
}
"""The words of the effects that do something (the gains are worded by :meth:`Words.phrase`)."""


def _nothing(self: Words, *args: Any, **kwargs: Any) -> str:
    return ""


class NoWords(Words):
    """The words of a call that reads none (:func:`i18n.set_wordless`): every name, effect and
    list is ``""``, worded from nothing (:attr:`Ctx.words <darkroad.core.context.Ctx.words>`
    there)."""

    good_type = good = a_good = goods = hero = town = event = component = _nothing
    component_text = commission = source = effects = things = effect = choose = _nothing

    def phrase(self, effect: str, board: Any = None) -> tuple[str, str]:
        return "", ""
