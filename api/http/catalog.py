"""``/v1/catalog``: the components this installation offers."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Controller, Response, get
from litestar.di import NamedDependency

from darkroad.api.http.catalog_schemas import Catalog
from darkroad.api.http.problems import problem_responses
from darkroad.core import Engine, i18n
from darkroad.core.content import COMPONENT_KINDS


def catalog_bodies(engine: Engine) -> dict[str, bytes]:
    """:func:`catalog_body` in every language darkroad speaks, made once (the catalogue is the
    same for every request of a language)."""
    bodies = {}
    for locale in i18n.LOCALES:
        with i18n.use_locale(locale):
            bodies[locale] = catalog_body(engine)
    return bodies


def _domain(engine: Engine, plugin: str) -> i18n.Domain:
    """The message domain of the plugin ``plugin`` (its package's)."""
    loaded = engine.plugins.plugins.get(plugin)
    return i18n.messages(loaded.module if loaded is not None else "")


def catalog_body(engine: Engine) -> bytes:
    """The catalogue response: every component of ``engine``, grouped by kind (every kind, even
    empty), the cards and tables of its content packs (``CatalogContent``) and the installed bots,
    their names and texts in the current language (each from its plugin's catalog)."""
    by_kind: dict[str, list[dict[str, object]]] = {kind: [] for kind in COMPONENT_KINDS}
    plugins = engine.plugins.plugins
    for component in engine.catalog():
        loaded = plugins.get(component["plugin"])
        localized = i18n.localized_component(component, _domain(engine, component["plugin"]))
        by_kind[component["kind"]].append({**localized, "builtin": bool(loaded and loaded.builtin)})
    bots = [
        {
            "id": bot.id,
            "name": _domain(engine, engine.bot_plugins[bot.id]).gettext(bot.name) if bot.name else bot.id,
            "text": _domain(engine, engine.bot_plugins[bot.id]).gettext(bot.text) if bot.text else bot.text,
            "plugin": engine.bot_plugins[bot.id],
            "version": plugins[engine.bot_plugins[bot.id]].version,
        }
        for bot in sorted(engine.bots.values(), key=lambda bot: bot.id)
    ]
    return msgspec.json.encode({"components": by_kind, "content": content_body(engine), "bots": bots})


def content_body(engine: Engine) -> dict[str, Any]:
    """What the content packs print on cards and boards, so clients can show ids by name
    (a view names a hero, a commission or an event card by its id only)."""
    c = engine.content

    def name(kind: str, ident: str, text: str) -> str:
        owner = c.owners.get((kind, ident))
        return _domain(engine, owner).gettext(text) if owner and text else text

    return {
        "goods": [{"id": g.id, "name": name("good", g.id, g.name), "footprint": [list(cell) for cell in g.footprint]} for g in c.goods],
        "towns": [{"id": t.id, "name": name("town", t.id, t.name), "region": t.region, "hero_class": t.hero_class,
                   "reward": list(t.reward)} for t in c.towns.values()],
        "heroes": [{"id": h.id, "name": name("hero", h.id, h.name), "hero_class": h.hero_class, "town": h.town,
                    "requests": list(h.requests), "bonus": h.bonus, "starting": h.starting}
                   for h in c.heroes.values()],
        "commissions": [{"id": m.id, "town": m.town, "requests": list(m.requests)} for m in c.commissions.values()],
        "events": [{"id": e.id, "name": name("event", e.id, e.name), "route": e.route,
                    "flavor": name("event", e.id, e.flavor),
                    "faces": {str(face): list(effects) for face, effects in sorted(e.faces.items())}}
                   for e in c.events.values()],
        "crafting_chart": {str(value): good for value, good in sorted(c.crafting_chart.items())},
        "dark_market": {space: list(goods) for space, goods in c.dark_market.items()},
        "ruins_tablet": {space: list(goods) for space, goods in c.ruins_tablet.items()},
        "ruins_die": list(c.ruins_die),
        "effect_words": engine.words.printed(),
        "extra_names": {key: {ident: name(key, ident, card["name"]) for ident, card in cards.items()
                              if isinstance(card.get("name"), str)}
                        for key, cards in sorted(c.extra.items())},
    }


class CatalogController(Controller):
    """The installation's components; a game picks among them by id."""

    path = "/v1/catalog"
    tags = ["catalog"]

    @get("/", operation_id="getCatalog", summary="List components", responses=problem_responses())
    async def get_catalog(self, catalog: NamedDependency[bytes]) -> Response[Catalog]:
        """Every component (buildings, companions, steeds, deeds, wagon upgrades, ...) by kind,
        with the plugin (and its version) providing each, the content packs' cards (goods,
        towns, heroes, commissions, event cards) and board tables, to show ids by name, and the
        bots a seat may be played by."""
        response: Response[Any] = Response(catalog, media_type="application/json")
        return response
