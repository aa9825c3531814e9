"""Step 3: Act (rulebook p. 7): activate the districts next to the wagon, and the building
between them.

"If you only have a night die in your action pool, you will activate one of the adjacent
districts ... If you have both a night die and an illuminated die in your action pool, you
will activate both of the adjacent districts and the connected building that is between
them ... in any order, but you must fully resolve each action before moving to the next."
"""

from __future__ import annotations

from ..context import Ctx
from ..errors import PluginError
from ..hooks import is_bool, is_str_list
from ..hookspecs import hookimpl
from ..i18n import N_
from ..state import Task
from ..steps import Choice, Option, Step
from ..wording import say

DISTRICTS = ("great_bazaar", "queens_commissions", "yurgs_excursions", "dark_market", "ringway_inn")
"""Clockwise around the Ringway (docs/content.md, "Ringway order"). Wagon space ``s`` lies between district
``s - 1`` and district ``s``; space 0 (the start space) has no building."""
DISTRICT_NAMES = {
    "great_bazaar": "the Great Bazaar",
    "queens_commissions": "the Queen's Commissions",
    "yurgs_excursions": "Yurg's Excursions",
    "dark_market": "the Dark Market",
    "ringway_inn": "the Ringway Inn",
}


def adjacent(space: int) -> tuple[str, str]:
    """The two districts next to Ringway space ``space``."""
    return DISTRICTS[(space - 1) % 5], DISTRICTS[space % 5]


def connected_building(ctx: Ctx, space: int) -> str | None:
    """The building connected to Ringway space ``space`` ("There is no building space between
    the Ringway Inn and the Great Bazaar", p. 7: none at the start space)."""
    b = ctx.game.board.buildings
    return b[space - 1] if 1 <= space <= len(b) else None


class Activate(Choice):
    """Step 3 (p. 7): night die → one adjacent district; night + illuminated → both
    districts and the connected building, in any order, each fully resolved."""

    kind = "activate"
    prompt = N_("activate: choose what to activate next")
    begins_phase = "activate"
    logs_answer = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        p = ctx.player(seat)
        left, right = adjacent(p.position)
        done = set(task.data.get("done", ()))
        if not any(d.kind == "illuminated" for d in p.pool):
            if done:
                return []
            return [(f"district:{d}", say("activate %(district)s", district=say(DISTRICT_NAMES[d]))) for d in (left, right)]
        opts = [(f"district:{d}", say("activate %(district)s", district=say(DISTRICT_NAMES[d])))
                for d in (left, right) if d not in done]
        if "building" not in done:
            opts += [(f"building:{b}", say("activate %(building)s", building=ctx.words.component(b)))
                     for b in self._targets(ctx, seat, p.position)]
        return opts

    def _targets(self, ctx: Ctx, seat: int, space: int) -> list[str]:
        """The buildings a night and an illuminated die activate: the connected one and the
        plugins' (``darkroad_building_targets``)."""
        connected = connected_building(ctx, space)
        targets = [connected] if connected else []
        for extra in ctx.call("darkroad_building_targets", is_str_list, seat=seat, connected=connected):
            targets += [t for t in extra if t not in targets and ctx.in_play(t)]
        return targets

    def has_options(self, ctx: Ctx, task: Task, seat: int) -> bool:
        p = ctx.player(seat)
        done = task.data.get("done", ())
        if not any(d.kind == "illuminated" for d in p.pool):
            return not done
        left, right = adjacent(p.position)
        return left not in done or right not in done or (
            "building" not in done and bool(self._targets(ctx, seat, p.position)))

    def allows(self, ctx: Ctx, task: Task, seat: int, option: str) -> bool:
        p = ctx.player(seat)
        done = task.data.get("done", ())
        what, _, target = option.partition(":")
        if what == "district":
            both = any(d.kind == "illuminated" for d in p.pool)
            return target in adjacent(p.position) and (target not in done if both else not done)
        return what == "building" and "building" not in done and any(d.kind == "illuminated" for d in p.pool) \
            and target in self._targets(ctx, seat, p.position)

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        what, _, target = option.partition(":")
        done = list(task.data.get("done", ()))
        done.append(target if what == "district" else "building")
        ctx.push("activate", seat, done=done)
        ctx.emit("activated", seat, target=target, what=what)
        if what == "district":
            ctx.push(target, seat)
        elif not ctx.first("darkroad_activate_building", is_bool, seat=seat, building=target):
            owner = ctx.content.components[target].plugin if target in ctx.content.components else ""
            raise PluginError(f"no plugin resolved building {target!r} (provided by {owner!r})", plugin=owner)


STEPS: list[Step] = [Activate()]


@hookimpl
def darkroad_steps() -> list[Step]:
    return list(STEPS)
