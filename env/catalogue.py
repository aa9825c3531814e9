"""The action catalogue: every action the installed content can produce, each at a fixed index.

A reinforcement-learning agent acts in a fixed ``Discrete(N)`` space, so every engine action
(a decision's ``type`` and ``option``; the seat is the agent's own) needs an index that means
the same action in every episode played with the same plugins. The engine lists the legal
actions of a position only (:meth:`Engine.legal_actions`); this module lists every action that
could ever be legal, from the installed content: the decision kinds' option forms (the
rulebook's decisions and those of the base game's plugins), filled in with the content's ids
(goods, towns, heroes, commissions, deeds, buildings, steeds, upgrades, companion cards and
their abilities) and small numbers (dice, slots, spaces). The list may hold actions no game
ever offers (a die value 9): a superset costs an unused index, a missing action would cost a
legal move, so the forms are generous.

Indices are the catalogue's entries in order: decision kinds sorted by name, each kind's
options sorted. An action a plugin invents that no form names (a fan decision, an ``x:``
option a plugin adds to any decision) takes one of :data:`OVERFLOW` slots at the end, in the
order the engine lists the legal actions: such an index means an action of that position
only. A fan step lists its options in advance, and gets indices of its own, with a method
``catalogue(content) -> Iterable[str]``: every option it can ever offer.

Built from ``engine.content`` and ``engine.steps`` alone: the same plugins give the same
catalogue (the game's configuration changes nothing; a form that a configuration never uses
costs only its indices).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import product
from typing import Any

from darkroad.core import EFFECT_RESOURCE, Action, Content, Engine

OVERFLOW = 32
"""Slots at the end of the catalogue for actions no form names (see the module's docstring)."""
SMALL = range(10)
"""The numbers a form's ``{N}`` stands for: dice values (1-6), slots, spaces, stacks."""
SIGNED = range(-10, 11)
"""The amounts of a resource effect (``coins:-2`` is a penalty)."""
DISTRICTS = ("dark_market", "great_bazaar", "queens_commissions", "ringway_inn", "yurgs_excursions")
"""The five districts of the Ringway (rulebook pp. 8-11): ``activate``'s ``district:<id>``."""
TRADED = ("coins", "horseshoe", "lantern", "prestige", "quartz")
"""What a trade (the Guildmaster's Mansion's ``coins>lantern``) turns into what."""
PLAIN_EFFECTS = ("commission", "deed", "hero", "lose_good", "lose_hero", "deliver_hero", "upgrade_good",
                 "downgrade_good", "illuminated", "ruins", "ruins_die", "illuminated_reroll", "nothing",
                 "lose_good:most_valuable", "hero:deck", "deed:deck", "upgrade", "coins", "prestige")
"""Effects (core/effects.py's language) without an argument of the content's."""
GOOD_CHOICES = ("any", "value1", "value5", "not_on_wheel", "craft")
"""Abstract goods of the effect language: ``good:any``, ``good:value1+``..."""

Vocabulary = dict[str, list[str]]
"""A placeholder's name -> the strings it stands for."""


def vocabulary(content: Content) -> Vocabulary:
    """The content's ids and the small numbers, by placeholder name."""
    goods = list(content.good_ids)
    kinds: dict[str, list[str]] = {}
    for cid, comp in content.components.items():
        kinds.setdefault(comp.kind, []).append(cid)
    abilities = []
    for card, cid in content.companion_cards.items():
        for ability in content.components[cid].data.get("abilities", ()):
            abilities.append(f"{card}:{ability['id']}")
    vocab: Vocabulary = {
        "GOOD": goods,
        "GOODX": goods + [g + "+" for g in goods],
        "TOWN": list(content.towns),
        "HERO": list(content.heroes),
        "COMMISSION": list(content.commissions),
        "DEED": kinds.get("deed", []),
        "BUILDING": kinds.get("building", []),
        "STEED": kinds.get("steed", []),
        "UPGRADE": kinds.get("upgrade", []),
        "DISTRICT": list(DISTRICTS),
        "N": [str(n) for n in SMALL],
        "RESOURCE": list(EFFECT_RESOURCE),
        "FIELD": list(EFFECT_RESOURCE.values()),
        "TRADED": list(TRADED),
        "ABILITY": abilities,
        "DELIVERY": deliveries(content),
    }
    vocab["EFFECT"] = effects(vocab)
    return vocab


def deliveries(content: Content) -> list[str]:
    """``<commission>:<goods>`` of every delivery a commission can take: a non-empty set of its
    requests, each filled with the basic or the upgraded good, in the order of its requests
    (as the caravan's deliveries list them)."""
    out = []
    for cid, commission in content.commissions.items():
        choices = [(None, req, req + "+") for req in commission.requests]
        for combo in product(*choices):
            goods = [g for g in combo if g]
            if goods:
                out.append(f"{cid}:{','.join(goods)}")
    return out


def effects(vocab: Vocabulary) -> list[str]:
    """Every effect string of the effect language over the content's ids (concrete and
    abstract: a choice may offer either)."""
    out = list(PLAIN_EFFECTS)
    out += [f"{r}:{n}" for r in vocab["RESOURCE"] for n in SIGNED]
    out += [f"good:{g}" for g in vocab["GOODX"]]
    out += [f"good:{g}{up}" for g in GOOD_CHOICES for up in ("", "+")]
    out += [f"{verb}:{g}" for verb in ("upgrade_good", "downgrade_good") for g in vocab["GOOD"]]
    out += [f"lose_good:{g}" for g in vocab["GOODX"]]
    out += [f"{verb}:{h}" for verb in ("lose_hero", "deliver_hero") for h in vocab["HERO"]]
    out += [f"hero:inn:{n}" for n in vocab["N"]] + [f"deed:courtyard:{n}" for n in vocab["N"]]
    out += [f"commission:{t}" for t in vocab["TOWN"]]
    out += [f"{place}:{n}" for place in ("ruins", "dark_market") for n in vocab["N"]]
    return out


PAY = ["{RESOURCE}", "decline", "good:{GOODX}"]
"""A building's spend-to-gain decision (plugins/buildings/kit.py): ``<kind>_pay``."""
GIFT = ["gift:{RESOURCE}", "gift:{HERO}", "gift:{GOODX}"]
"""A companion's gift (plugins/companions/kit.py): ``<kind>_gift``."""

FORMS: dict[str, list[str]] = {
    "activate": ["building:{BUILDING}", "district:{DISTRICT}"],
    "bazaar_buy": ["buy:{GOOD}", "done"],
    "candle_and_quartz_gain": ["{EFFECT}"],
    "caravan_companion": ["row:{N}", "deck"],
    "caravan_join": ["yes", "no"],
    "caravan_route": ["dark_road:{TOWN}", "shortcut:{TOWN}"],
    "choose_effect": ["{EFFECT}"],
    "choose_starting_deed": ["{DEED}"],
    "choose_upgrade": ["upgrade:{UPGRADE}"],
    "companion": ["{ABILITY}"],
    "concern_choice": ["{EFFECT}", "town:{TOWN}"],
    "cosimo_reward": ["dark_market", "upgrade"],
    "dark_market": ["move:{N}"],
    "deliveries": ["town:{TOWN}", "pass", "done", "hero:{HERO}", "commission:{DELIVERY}"],
    "discard_commission": ["discard:{COMMISSION}"],
    "discard_good": ["discard:{GOODX}"],
    "discard_hero": ["discard:{HERO}"],
    "discard_inventory": ["discard:{FIELD}"],
    "draft": ["stack:{N}"],
    "finish_turn": ["end"],
    "good_fortune": ["coins", "deed", "illuminated", "upgrade"],
    "great_bazaar": ["rotate", "buy", "change:{GOOD}:{GOOD}"],
    "guildmasters_mansion_trade": ["{TRADED}>{TRADED}", "done"],
    "horseshoe": ["ccw", "cw", "keep"],
    "inn_sell": ["sell:{GOODX}", "done"],
    "lamplighters_post_illuminated": ["illuminated:{N}", "keep"],
    "merchants_ledger_reward": ["coins", "prestige"],
    "move": ["move:{N}"],
    "plan": ["bump:{N}:{N}", "reset", "take:{N}"],
    "ringway_inn": ["hero:{N}"],
    "ruins_die_offer": ["roll", "skip"],
    "ruins_move": ["move:{N}"],
    "slot2": ["illuminated:{N}", "lantern"],
    "slot3": ["coins", "rotate"],
    "spare_harness_steed": ["steed:{STEED}"],
    "threy_cat_duplicate": ["value:{N}"],
    "travel_die": ["take:{N}", "take:{N}:+{N}", "reroll"],
    "yurgs_excursions": ["ruins", "caravan"],
}
"""Each decision kind's option forms: ``{NAME}`` stands for every string of the vocabulary's
``NAME`` (:func:`vocabulary`)."""


def filled(form: str, vocab: Vocabulary) -> Iterator[str]:
    """Every string ``form`` stands for."""
    parts = form.replace("}", "{").split("{")
    literal, names = parts[0::2], parts[1::2]
    for values in product(*(vocab[n] for n in names)):
        yield literal[0] + "".join(v + lit for v, lit in zip(values, literal[1:], strict=True))


def forms_of(kind: str) -> list[str] | None:
    """The option forms of decision ``kind`` (by name, or a kit's suffix), or ``None``."""
    if kind in FORMS:
        return FORMS[kind]
    if kind.endswith("_pay"):
        return PAY
    if kind.endswith("_gift"):
        return GIFT
    return None


def listed(step: Any, content: Content) -> list[str] | None:
    """What a step lists with a ``catalogue(content)`` method of its own (a plugin's step is
    wrapped: the method is the wrapped step's)."""
    inner = getattr(step, "step", step)
    method: Callable[[Content], Iterable[str]] | None = getattr(inner, "catalogue", None)
    return None if method is None else [str(o) for o in method(content)]


class ActionCatalogue:
    """Every action the installed content can produce, at fixed indices (the module's
    docstring says how they are listed), and :data:`OVERFLOW` slots for the others."""

    def __init__(self, engine: Engine) -> None:
        vocab = vocabulary(engine.content)
        entries: list[tuple[str, str]] = []
        self.uncatalogued: list[str] = []
        """Decision kinds with no form and no ``catalogue`` method: their actions overflow."""
        for kind in sorted({*engine.steps, "companion"}):
            step = engine.steps.get(kind)
            if step is not None and not getattr(step, "decision", False):
                continue
            options = listed(step, engine.content) if step is not None else None
            if options is None:
                forms = forms_of(kind)
                if forms is None:
                    self.uncatalogued.append(kind)
                    continue
                options = [o for form in forms for o in filled(form, vocab)]
            entries += [(kind, o) for o in sorted(set(options))]
        self.entries: tuple[tuple[str, str], ...] = tuple(entries)
        """``(type, option)`` of each catalogued index."""
        self._index = {entry: i for i, entry in enumerate(self.entries)}
        self._by_kind: dict[str, dict[str, int]] = {}
        """Each decision type's catalogued options -> their indices (:meth:`group_indices`)."""
        for i, (kind, option) in enumerate(self.entries):
            self._by_kind.setdefault(kind, {})[option] = i
        self.size = len(self.entries) + OVERFLOW
        """N of the action space: the catalogued actions, then the overflow slots."""

    def __len__(self) -> int:
        return self.size

    def index(self, action: Action) -> int | None:
        """The catalogued index of ``action`` (its type and option), or ``None``."""
        return self._index.get((action.type, action.option))

    def entry(self, index: int) -> tuple[str, str] | None:
        """The ``(type, option)`` of a catalogued index, ``None`` for an overflow slot."""
        if not 0 <= index < self.size:
            raise IndexError(f"action index {index} out of range 0-{self.size - 1}")
        return self.entries[index] if index < len(self.entries) else None

    def indices(self, legal: Sequence[Action]) -> list[int]:
        """The index of each of ``legal`` (one position's legal actions): its catalogued index,
        or the next free overflow slot in the order given. :class:`OverflowError` when more
        actions than :data:`OVERFLOW` have none."""
        # Each action's (type, option) read attribute by attribute: the interpreter's
        # specialised reads of a Struct's fields are cheaper than attrgetter's generic lookup.
        get = self._index.get
        found = [get((a.type, a.option)) for a in legal]
        if None not in found:
            return found  # type: ignore[return-value]  # the usual case: every action catalogued
        out = []
        spare = len(self.entries)
        for action in legal:
            i = self._index.get((action.type, action.option))
            if i is None:
                if spare >= self.size:
                    raise OverflowError(f"more than {OVERFLOW} legal actions with no catalogued index "
                                        f"(decision {action.type!r}): give its step a catalogue(content) method")
                i, spare = spare, spare + 1
            out.append(i)
        return out

    def group_indices(self, groups: Sequence[tuple[str, Sequence[str]]], seat: int) -> list[int]:
        """The indices of ``seat``'s legal answers given as ``(type, [option ids])`` groups
        (:meth:`Engine.legal_options`): what :meth:`indices` gives for the same answers, looked
        up by type and option without an :class:`Action` or a key made for each."""
        out: list[int | None] = []
        by_kind = self._by_kind
        for kind, ids in groups:
            out += map(by_kind.get(kind, _NONE).get, ids)
        if None in out:  # an action no form names: the overflow slots, in the order given
            return self.indices([Action(kind, seat, option) for kind, ids in groups for option in ids])
        return out  # type: ignore[return-value]  # no None in it

    def mask(self, groups: Sequence[tuple[str, Sequence[str]]], seat: int) -> bytearray:
        """A mask's bytes: 1 at the index of each of ``seat``'s legal answers given as ``(type,
        [option ids])`` groups (:meth:`Engine.legal_options`), else 0; the places of
        :meth:`group_indices`, set as they are looked up (no list of them made and searched
        for a missing one: an option no form names fails its write, then the overflow slots
        are found as :meth:`group_indices` finds them)."""
        out = bytearray(self.size)
        by_kind = self._by_kind
        try:
            for kind, ids in groups:
                for i in map(by_kind.get(kind, _NONE).get, ids):
                    out[i] = 1  # type: ignore[index]  # (None, an option no form names: TypeError)
        except TypeError:
            for i in self.group_indices(groups, seat):
                out[i] = 1
        return out


_NONE: dict[str, int] = {}
"""No catalogued option (a decision type the catalogue does not know)."""
