"""The format of the Private Concern's action cards (docs/private-concern.md, "The 10 action
cards"): content data under the content pack key ``private_concern_cards``, checked once when
the engine is built so that a broken card skips its pack's plugin instead of failing mid-game."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NoReturn

from darkroad.core import EFFECT_VERBS, Content, ContentError

from .rules import (
    ACTIONS,
    CARDS,
    COMPANION_SLOTS,
    DEFAULT_FORTUNES,
    FORTUNES,
    INN_SLOTS,
    PARAMS,
    REQUIREMENTS,
    SPACES,
    cards,
)


def validate_cards(content: Content) -> None:
    """Check the action cards against the content, so a broken card fails at load."""
    towns, goods = set(content.towns), set(content.good_ids)
    for cid, card in cards(content).items():
        def bad(msg: str, cid: str = cid) -> NoReturn:
            raise ContentError(f"private concern card {cid!r}: {msg}",
                               plugin=content.owners.get((CARDS, cid), ""))

        plan = card.get("planning")
        if not isinstance(plan, Mapping) or not _int_in(plan.get("space"), 0, SPACES - 1):
            bad("the planning section needs a wagon space 0..4")
        for key in ("reward", "illuminated"):
            if key in plan:
                _check_effects(plan[key], bad, key)
        if "reward" not in plan:
            bad("the planning section needs a reward")
        actions = card.get("actions")
        if not isinstance(actions, list) or not actions:
            bad("needs at least one district action")
        for i, a in enumerate(actions):
            kind = a.get("action") if isinstance(a, Mapping) else None
            if kind not in ACTIONS:
                bad(f"action {i}: unknown action {kind!r} (choose from {', '.join(ACTIONS)})")
            extra = set(a) - {"action", *REQUIREMENTS, *PARAMS[kind]}
            if extra:
                bad(f"action {i} ({kind}): unknown keys {sorted(extra)}")
            for r in REQUIREMENTS:
                if r in a and not _int_in(a[r], 0, 99):
                    bad(f"action {i} ({kind}): {r} must be a count")
            missing = [k for k in PARAMS[kind] if k not in a and k != "good_fortune"]
            if missing:
                bad(f"action {i} ({kind}): missing {missing}")
            if kind == "bazaar" and (len(a["goods"]) != 3 or not set(a["goods"]) <= goods):
                bad(f"action {i}: the bazaar needs 3 known good icons")
            if kind == "commission" and a["town"] not in towns:
                bad(f"action {i}: unknown town {a['town']!r}")
            if kind == "travel":
                if not _int_in(a["companion"], 0, COMPANION_SLOTS - 1):
                    bad(f"action {i}: companion slot must be 0..2")
                gf = a.get("good_fortune", list(DEFAULT_FORTUNES))
                if not isinstance(gf, list) or len(gf) != 2 or any(f not in FORTUNES for f in gf):
                    bad(f"action {i}: good_fortune must list 2 of {FORTUNES}")
            if kind in ("ruins", "dark_market") and not _int_in(a["move"], 1, 4):
                bad(f"action {i}: move must be 1..4")
            if kind == "dark_market":
                verb, _, arg = str(a["south"]).partition(":")
                if not ((verb == "commission" and arg in towns) or f"{verb}:{arg}" in FORTUNES[2:]):
                    bad(f"action {i}: south must be commission:<town> or deed:courtyard:<0|1> / deed:deck")
            if kind == "inn" and (not _int_in(a["hero"], 0, INN_SLOTS - 1) or not _int_in(a["sell"], 1, 3)):
                bad(f"action {i}: the inn needs a hero slot 0..3 and sell 1..3")


def _int_in(v: Any, lo: int, hi: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi


def _check_effects(effects: Any, bad: Callable[[str], NoReturn], key: str) -> None:
    if not isinstance(effects, list) or not effects:
        bad(f"{key} must be a non-empty list of effects")
    for e in effects:
        if not isinstance(e, str) or e.partition(":")[0] not in EFFECT_VERBS:
            bad(f"{key}: unknown effect {e!r}")
