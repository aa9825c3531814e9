"""Content definitions: the card data and component catalogue a game is played with.

The core knows no card or component by name. Plugins contribute *content packs*
(plain dicts, usually loaded from JSON, via the ``darkroad_content`` hook) and
*components* (via ``darkroad_components``); :class:`Content` merges them once per
plugin manager and the engine reads everything from it.

A content pack is a dict with any of these keys (all optional, merged across packs):

``goods``            list of ``{"id", "name", "footprint": [[row, col], ...]}``; the list
                     order is the clockwise order of the sections on the market wheel.
``crafting_chart``   ``{"0": good, ..., "5": good}``: night-die value -> basic good.
``towns``            list of ``{"id", "name", "region", "hero_class", "reward": [effect, ...]}``;
                     ``reward`` is gained per delivered hero of that town.
``heroes``           list of ``{"id", "name", "hero_class", "town", "requests": [good, ...],
                     "bonus": "lantern" | "horseshoe" | "storage" | null, "starting": bool}``.
``commissions``      list of ``{"id", "town", "requests": [good, good, good]}``.
``events``           list of ``{"id", "name", "route": "dark_road" | "shortcut", "flavor",
                     "faces": {"1": [effect, ...], ..., "6": [...]}}``.
``dark_market``      ``{"north": [good, good], "east": [...], "west": [...]}``.
``ruins_tablet``     ``{"top_left": [good, good], "top_right": [...], "bottom_right": [...],
                     "bottom_left": ["any"]}`` (upgraded goods).
``ruins_die``        six effects (faces of the ruins die).
``courtyard_banners`` ``[[effect, ...], [effect, ...]]``: bonus of courtyard slot 1 and 2.
``good_fortune_coins`` ``[first, later]`` coins of the coins good fortune (``[5, 3]``).
``effect_words``     ``{"verb": "words with %(arg)s"}``: how to word the effects of a verb the
                     core does not know (a fan plugin's own effect: ``"frost:2"`` read as
                     ``"gain %(arg)s frost-fruit"``), a message of the pack's plugin's catalog.
any other key       a list of objects with an ``id`` each, for the plugins that read
                     them (a seat kind's cards): merged into ``content.extra[key]`` (id ->
                     object), each id claimed like a card of the core's keys.

Effects are short strings interpreted by :mod:`.rulebook.effects` (e.g. ``"coins:2"``,
``"prestige:-1"``, ``"good:book+"``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from attrs import Factory, define, frozen

COMPONENT_KINDS = ("building", "companion", "steed", "deed", "upgrade")
PACK_KEYS = frozenset({"goods", "crafting_chart", "towns", "heroes", "commissions", "events", "dark_market",
                       "ruins_tablet", "ruins_die", "courtyard_banners", "good_fortune_coins", "effect_words"})
"""The content pack keys the core reads; any other key holds cards for plugins (``Content.extra``)."""


class ContentError(ValueError):
    """Content or component registration is inconsistent (duplicate id, unknown good, ...).

    ``plugin`` names the plugin whose registration is at fault (the later one of a clash),
    when one is: the engine then skips that plugin and merges the others again.
    """

    def __init__(self, message: str, plugin: str = "") -> None:
        super().__init__(message)
        self.plugin = plugin


@frozen
class GoodType:
    id: str
    name: str
    footprint: tuple[tuple[int, int], ...]


@frozen
class Town:
    id: str
    name: str
    region: str
    hero_class: str
    reward: tuple[str, ...]


@frozen
class HeroCard:
    id: str
    name: str
    hero_class: str
    town: str
    requests: tuple[str, ...]
    bonus: str | None = None
    starting: bool = False


@frozen
class Commission:
    id: str
    town: str
    requests: tuple[str, ...]


@frozen
class EventCard:
    id: str
    name: str
    route: str
    faces: Mapping[int, tuple[str, ...]]
    flavor: str = ""


@frozen
class Component:
    """A building, companion, steed, deed or wagon upgrade contributed by a plugin.

    ``data`` carries kind-specific facts the engine needs without knowing the
    component: for a building its double-sided ``tile``; for a companion its
    ``loyalty`` (``"loyal"`` | ``"stray"``), ``copies`` and ``abilities`` (list of
    ``{"id", "text", "gift"}``); for a deed its ``reward`` (``"coins"`` |
    ``"prestige"`` | ``"vp"``) and ``text``; for a wagon upgrade its ``text``.
    """

    kind: str
    id: str
    name: str
    text: str = ""
    data: Mapping[str, Any] = Factory(dict)
    plugin: str = ""


@define
class Content:
    """All content of one plugin set, merged and validated."""

    goods: list[GoodType] = Factory(list)
    crafting_chart: dict[int, str] = Factory(dict)
    towns: dict[str, Town] = Factory(dict)
    heroes: dict[str, HeroCard] = Factory(dict)
    commissions: dict[str, Commission] = Factory(dict)
    events: dict[str, EventCard] = Factory(dict)
    dark_market: dict[str, tuple[str, ...]] = Factory(dict)
    ruins_tablet: dict[str, tuple[str, ...]] = Factory(dict)
    ruins_die: list[str] = Factory(list)
    courtyard_banners: list[tuple[str, ...]] = Factory(list)
    good_fortune_coins: tuple[int, int] = (5, 3)
    effect_words: dict[str, str] = Factory(dict)
    """Effect verb -> how it is worded (``%(arg)s``: what follows the verb): a content pack's words
    for its plugin's own effects (:mod:`~darkroad.core.wording`)."""
    extra: dict[str, dict[str, Mapping[str, Any]]] = Factory(dict)
    """Pack keys the core does not read -> id -> object: cards a plugin plays with (a seat
    kind validates them in :meth:`~darkroad.core.seats.SeatKind.check_content`)."""
    components: dict[str, Component] = Factory(dict)
    owners: dict[tuple[str, str], str] = Factory(dict)
    """``(kind, id)`` of every card with an id (``("hero", "ash")``) -> the plugin providing it."""

    # derived lookups (filled by ``finish``)
    good_ids: tuple[str, ...] = ()
    good_index: dict[str, int] = Factory(dict)
    companion_cards: dict[str, str] = Factory(dict)
    """Companion card id -> companion component id (``"phoenix-2"`` -> ``"phoenix"``)."""

    @classmethod
    def build(cls, packs: Iterable[tuple[str, Mapping[str, Any]]], components: Iterable[Component]) -> Content:
        """Merge ``(plugin name, pack)`` pairs and the components into one Content."""
        c = cls()
        owner = c.owners

        def claim(kind: str, ident: str, plugin: str) -> None:
            key = (kind, ident)
            if key in owner:
                raise ContentError(f"duplicate {kind} id {ident!r}: provided by both {owner[key]!r} and {plugin!r}",
                                   plugin=plugin)
            owner[key] = plugin

        for plugin, pack in packs:
            try:
                c._merge(plugin, pack, claim)
            except ContentError:
                raise
            except Exception as exc:  # a malformed pack: name its plugin
                raise ContentError(f"plugin {plugin!r}: malformed content pack: {type(exc).__name__}: {exc}",
                                   plugin=plugin) from exc
        for comp in components:
            if comp.kind not in COMPONENT_KINDS:
                raise ContentError(f"component {comp.id!r} from {comp.plugin!r} has unknown kind {comp.kind!r}",
                                   plugin=comp.plugin)
            if comp.id in c.components:
                other = c.components[comp.id]
                raise ContentError(
                    f"duplicate component id {comp.id!r}: provided by both {other.plugin!r} and {comp.plugin!r}",
                    plugin=comp.plugin,
                )
            c.components[comp.id] = comp
        c.finish()
        return c

    def _merge(self, plugin: str, pack: Mapping[str, Any], claim: Callable[[str, str, str], None]) -> None:
        """Add one plugin's pack."""
        for g in pack.get("goods", ()):
            claim("good", g["id"], plugin)
            self.goods.append(GoodType(g["id"], g["name"], tuple(tuple(x) for x in g["footprint"])))
        for k, v in pack.get("crafting_chart", {}).items():
            self.crafting_chart[int(k)] = v
        for t in pack.get("towns", ()):
            claim("town", t["id"], plugin)
            self.towns[t["id"]] = Town(t["id"], t["name"], t["region"], t["hero_class"], tuple(t["reward"]))
        for h in pack.get("heroes", ()):
            claim("hero", h["id"], plugin)
            self.heroes[h["id"]] = HeroCard(
                h["id"], h["name"], h["hero_class"], h["town"], tuple(h["requests"]), h.get("bonus"),
                bool(h.get("starting", False)),
            )
        for m in pack.get("commissions", ()):
            claim("commission", m["id"], plugin)
            self.commissions[m["id"]] = Commission(m["id"], m["town"], tuple(m["requests"]))
        for e in pack.get("events", ()):
            claim("event", e["id"], plugin)
            faces = {int(k): tuple(v) for k, v in e["faces"].items()}
            self.events[e["id"]] = EventCard(e["id"], e["name"], e["route"], faces, e.get("flavor", ""))
        for k, v in pack.get("dark_market", {}).items():
            self.dark_market[k] = tuple(v)
        for k, v in pack.get("ruins_tablet", {}).items():
            self.ruins_tablet[k] = tuple(v)
        if "ruins_die" in pack:
            self.ruins_die = list(pack["ruins_die"])
        if "courtyard_banners" in pack:
            self.courtyard_banners = [tuple(b) for b in pack["courtyard_banners"]]
        for verb, words in pack.get("effect_words", {}).items():
            if not (isinstance(verb, str) and isinstance(words, str)):
                raise ContentError(f"plugin {plugin!r}: effect_words maps an effect verb to its words", plugin=plugin)
            claim("effect_words", verb, plugin)
            self.effect_words[verb] = words
        if "good_fortune_coins" in pack:
            first, later = pack["good_fortune_coins"]
            self.good_fortune_coins = (int(first), int(later))
        for key in sorted(pack.keys() - PACK_KEYS):
            items = pack[key]
            if not isinstance(items, list) or not all(isinstance(i, Mapping) and isinstance(i.get("id"), str)
                                                      for i in items):
                raise ContentError(f"plugin {plugin!r}: content pack key {key!r} is not one the core reads, so "
                                   "it must be a list of objects with a string id", plugin=plugin)
            for item in items:
                claim(key, item["id"], plugin)
                self.extra.setdefault(key, {})[item["id"]] = item

    def finish(self) -> None:
        self.good_ids = tuple(g.id for g in self.goods)
        self.good_index = {g: i for i, g in enumerate(self.good_ids)}
        self.companion_cards = {}
        for comp in self.components.values():
            if comp.kind == "companion":
                for n in range(1, int(comp.data.get("copies", 1)) + 1):
                    self.companion_cards[f"{comp.id}-{n}"] = comp.id
        self.validate()

    def validate(self) -> None:
        """Check cross references, so a broken pack fails at load, not mid-game."""
        if not self.goods:
            return
        goods = set(self.good_ids)
        owner = self.owners
        if len(self.goods) != 6:
            # Blame the pack that brought the 7th good type (the base game's packs merge first).
            extra = owner.get(("good", self.goods[6].id), "") if len(self.goods) > 6 else ""
            raise ContentError(f"the market wheel needs exactly 6 good types, got {len(self.goods)}", plugin=extra)
        for v, g in self.crafting_chart.items():
            if g not in goods:
                raise ContentError(f"crafting chart value {v} names unknown good {g!r}")
        for h in self.heroes.values():
            if h.town not in self.towns:
                raise ContentError(f"hero {h.id!r} travels to unknown town {h.town!r}",
                                   plugin=owner.get(("hero", h.id), ""))
            bad = [r for r in h.requests if r not in goods]
            if bad:
                raise ContentError(f"hero {h.id!r} requests unknown goods {bad}", plugin=owner.get(("hero", h.id), ""))
        for m in self.commissions.values():
            if m.town not in self.towns:
                raise ContentError(f"commission {m.id!r} is for unknown town {m.town!r}",
                                   plugin=owner.get(("commission", m.id), ""))
            bad = [r for r in m.requests if r not in goods]
            if bad:
                raise ContentError(f"commission {m.id!r} requests unknown goods {bad}",
                                   plugin=owner.get(("commission", m.id), ""))
        for e in self.events.values():
            if e.route not in ("dark_road", "shortcut") or set(e.faces) != {1, 2, 3, 4, 5, 6}:
                raise ContentError(f"event {e.id!r} needs a route and effects for faces 1..6",
                                   plugin=owner.get(("event", e.id), ""))

    # -- lookups -------------------------------------------------------------------
    def of_kind(self, kind: str) -> list[Component]:
        """Components of one kind, sorted by id (never depend on registration order)."""
        return sorted((c for c in self.components.values() if c.kind == kind), key=lambda c: c.id)

    def companion_of(self, card: str) -> Component:
        return self.components[self.companion_cards[card]]

    def region_towns(self, town: str) -> list[str]:
        region = self.towns[town].region
        return [t for t in self.towns if self.towns[t].region == region]
