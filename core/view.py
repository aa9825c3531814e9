"""Per-seat views: the only way state leaves the core.

A view shows the public board and every player's public wagon; the viewing seat also
sees its own coins and deeds. Other seats' coins and deeds, the order of every deck,
the commission stacks below their tops and the RNG are never shown. A spectator
(``seat=None``) sees only public information.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import private_concern
from .context import Ctx
from .rules import DISTRICTS

if TYPE_CHECKING:
    from .engine import Engine
    from .state import Game, Player


def _player(engine: Engine, game: Game, p: Player, me: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "seat": p.seat,
        "kind": p.kind,
        "prestige": p.prestige,
        "position": p.position,
        "locked": list(p.locked),
        "reserve": list(p.reserve),
        "spent": p.spent,
        "removed": p.removed,
        "special_reserve": list(p.special),
        "action_pool": [{"kind": d.kind, "value": d.value} for d in p.pool],
        "lanterns": p.lanterns,
        "quartz": p.quartz,
        "horseshoes": p.horseshoes,
        "goods": sorted(p.goods),
        "heroes": list(p.heroes),
        "commissions": list(p.commissions),
        "steeds": list(p.steeds),
        "upgrades": list(p.upgrades),
        "companions": [{"card": c.card, "gifts": list(c.gifts)} for c in p.companions],
        "delivered_commissions": len(p.delivered_commissions),
        "delivered_heroes": len(p.delivered_heroes),
        "deed_count": len(p.deeds),
        "coins": p.coins if me or game.finished else None,
        "deeds": list(p.deeds) if me or game.finished else None,
    }
    if p.concern is not None:
        out["concern"] = private_concern.public(p)
    return out


def view(engine: Engine, game: Game, seat: int | None) -> dict[str, Any]:
    b = game.board
    ctx = Ctx(engine, game)
    decision = engine.decision(game)
    caravan = game.turn.get("caravan")
    return {
        "schema_version": game.schema_version,
        "version": game.version,
        "status": "finished" if game.finished else "active",
        "round": game.round,
        "phase": game.phase,
        "active_seat": game.active,
        "start_seat": game.start_seat,
        "seat": seat,
        "awaiting": decision["seats"] if decision else [],
        "decision": decision,
        "config": {"players": game.config.players, "variants": dict(game.config.variants),
                   "private_concern": private_concern.seat_of(game.config),
                   "buildings": list(game.config.buildings), "plugins": dict(game.config.plugins)},
        "board": {
            "ringway": list(DISTRICTS),
            "buildings": list(b.buildings),
            "market": {
                "wheel": {g: ctx.value(g) for g in engine.content.good_ids},
                "dice": {g: b.market[i] for i, g in enumerate(engine.content.good_ids)},
                "set_aside": b.set_aside,
            },
            "commissions": {t: {"top": s[0] if s else None, "count": len(s)} for t, s in b.commission_stacks.items()},
            "inn": list(b.inn),
            "hero_deck": len(b.hero_deck),
            "courtyard": list(b.courtyard),
            "deed_deck": len(b.deed_deck),
            "companion_row": list(b.companion_row),
            "companion_deck": len(b.companion_deck),
            "event_decks": {r: len(d) for r, d in b.events.items()},
            "upgrades": sorted(b.upgrades),
            "five_coins": b.five_coins,
            "dark_market": ("north", "east", "south", "west")[b.dark_market],
            "ruins": ("top_left", "top_right", "bottom_right", "bottom_left")[b.ruins],
            "extra": {k: v for k, v in b.extra.items() if not k.startswith("_")},
        },
        "caravan": dict(caravan) if caravan else None,
        "players": [_player(engine, game, p, p.seat == seat) for p in game.players],
        "score": [engine.serde.unstructure(s) for s in game.score] if game.finished else None,
        "winners": list(game.winners) if game.finished else None,
    }


def action_schema(engine: Engine) -> dict[str, Any]:
    """JSON Schema of an action: ``oneOf`` the decision types, tagged by ``type``.

    The decision types of the core and the built-in plugins are listed one by one; those a
    fan plugin contributes share one open variant, so the document (and the clients
    generated from it) does not change with the plugins installed on a server.
    """
    builtin = {k for k, s in engine.steps.items() if s.decision and engine.step_is_builtin(k)}
    kinds = sorted(builtin) + ["companion"]

    def variant(title: str, type_schema: dict[str, Any], description: str) -> dict[str, Any]:
        return {
            "type": "object",
            "title": title,
            "description": description,
            "required": ["type", "seat", "option"],
            "additionalProperties": False,
            "properties": {
                "type": type_schema,
                "seat": {"type": "integer", "minimum": 0, "maximum": 3},
                "option": {"type": "string", "maxLength": 200},
                "label": {"type": "string", "maxLength": 500},
            },
        }

    variants = []
    for k in kinds:
        step = engine.steps.get(k)
        doc = (step.prompt or step.__doc__ or "").strip().split("\n")[0] if step else \
            "trigger a companion ability on your own turn"
        variants.append(variant(k, {"type": "string", "const": k}, doc))
    variants.append(variant("plugin_decision", {"type": "string", "not": {"enum": kinds}},
                            "answer a decision contributed by a fan plugin (its step kind)"))
    return {"oneOf": variants}


EVENT_TYPES = (
    "game_started", "steed_dealt", "turn_started", "dice_reset", "die_bumped", "illuminated_to_pool", "moved",
    "activated", "wheel_rotated", "market_die_changed", "bought", "gained", "lost", "paid", "discarded",
    "good_flipped", "hero_joined", "hero_lost", "hero_discarded", "hero_delivered", "commission_gained",
    "commission_discarded", "commission_delivered", "deed_gained", "deed_gained_private", "deed_kept",
    "deed_revealed", "dark_market_moved", "ruins_moved", "ruins_die_rolled", "excursion", "companion_taken",
    "caravan_declared", "caravan_answer", "event_revealed", "travel_dice_rerolled", "travel_die_taken",
    "town_visited", "good_fortune", "upgrade_gained", "market_rerolled", "night_dice_refreshed", "round_ended",
    "game_finished", "companion_used",
    # the Private Concern (core/private_concern.py)
    "solo_upgrade", "concern_card", "concern_action", "concern_deck_shuffled", "concern_choice", "concern_sold",
    "illuminated_returned", "companion_discarded", "companion_returned",
)


STR, INT, BOOL = {"type": "string"}, {"type": "integer"}, {"type": "boolean"}
NSTR, NINT = {"type": ["string", "null"]}, {"type": ["integer", "null"]}
INTS, STRS = {"type": "array", "items": INT}, {"type": "array", "items": STR}
EVENT_DATA: dict[str, dict[str, Any]] = {
    "activated": {"target": STR, "what": STR},
    "bought": {"good": STR, "cost": INT},
    "caravan_answer": {"join": BOOL},
    "caravan_declared": {"route": STR, "town": STR},
    "commission_delivered": {"commission": STR, "goods": STRS, "goods_count": INT, "prestige": INT},
    "commission_discarded": {"commission": STR},
    "commission_gained": {"commission": STR, "source": STR},
    "companion_discarded": {"card": STR, "travel_die": BOOL},
    "companion_returned": {"card": STR},
    "companion_taken": {"card": STR, "companion": STR, "travel_die": BOOL},
    "concern_action": {"card": STR, "index": NINT, "action": NSTR, "district": NSTR},
    "concern_card": {"card": STR, "name": STR},
    "concern_choice": {"concern": INT, "what": STR, "option": STR},
    "concern_deck_shuffled": {"cards": INT},
    "concern_sold": {"hero": STR, "goods_count": INT, "coins": INT},
    "dark_market_moved": {"steps": INT, "space": STR},
    "deed_gained": {"source": STR},
    "deed_gained_private": {"deed": STR},
    "deed_kept": {"deed": STR},
    "deed_revealed": {"deed": STR},
    "die_bumped": {"slot": INT, "to_pool": INT, "locked": NINT},
    "discarded": {"resource": STR, "amount": INT, "reason": STR},
    "event_revealed": {"event": STR, "name": STR, "dice": INTS},
    "excursion": {"choice": STR},
    "gained": {"resource": STR, "amount": INT, "good": STR, "value": INT, "source": STR},
    "game_finished": {"winners": INTS, "scores": {"type": "object", "additionalProperties": INT}},
    "game_started": {"players": INT, "buildings": STRS},
    "good_flipped": {"good": STR, "to": STR, "source": STR},
    "good_fortune": {"choice": STR},
    "hero_delivered": {"hero": STR, "town": STR, "source": STR},
    "hero_discarded": {"hero": STR},
    "hero_joined": {"hero": STR, "source": STR},
    "hero_lost": {"hero": STR, "source": STR},
    "illuminated_to_pool": {"value": INT},
    "lost": {"resource": STR, "amount": INT, "good": STR, "source": STR},
    "market_die_changed": {"frm": STR, "to": STR},
    "market_rerolled": {"market": INTS},
    "moved": {"steps": INT, "position": INT, "horseshoe": BOOL},
    "night_dice_refreshed": {"removed": INT, "reserve": INTS},
    "paid": {"resource": STR, "amount": INT, "source": STR},
    "round_ended": {"round": INT},
    "ruins_die_rolled": {"face": STR, "reroll": BOOL},
    "ruins_moved": {"steps": INT, "space": STR},
    "solo_upgrade": {"upgrade": STR},
    "steed_dealt": {"steed": STR},
    "town_visited": {"town": NSTR},
    "travel_dice_rerolled": {"dice": INTS},
    "travel_die_taken": {"die": INT, "face": INT},
    "turn_started": {"round": INT},
    "upgrade_gained": {"upgrade": STR},
    "wheel_rotated": {"at_5": STR},
}
"""The ``data`` of each core event type (fields absent when they do not apply)."""


def event_schema(engine: Engine) -> dict[str, Any]:
    """JSON Schema of an event: ``oneOf`` the core's event types, tagged by ``type``, each
    with its typed ``data``, and one open variant for the events components emit (base
    game or fan plugins)."""

    def variant(title: str, type_schema: dict[str, Any], data: dict[str, Any] | None) -> dict[str, Any]:
        data_schema: dict[str, Any] = {"type": "object"}
        if data is not None:
            data_schema["properties"] = data
        return {
            "type": "object",
            "title": title,
            "required": ["n", "type"],
            "properties": {
                "n": {"type": "integer", "minimum": 0},
                "type": type_schema,
                "seat": {"type": ["integer", "null"]},
                "private_to": {"type": ["integer", "null"]},
                "data": data_schema,
            },
        }

    kinds = sorted(EVENT_TYPES)
    return {"oneOf": [variant(k, {"type": "string", "const": k}, EVENT_DATA.get(k, {})) for k in kinds]
            + [variant("component_event", {"type": "string", "not": {"enum": kinds}}, None)]}
