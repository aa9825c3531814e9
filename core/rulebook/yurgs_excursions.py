"""Yurg's Excursions (rulebook p. 11): the Ruins of Yin, or a caravan to an outlying town.

"Decide whether you are going to travel to the Ruins of Yin or to one of the outlying towns.
You cannot do both!" The Ruins: "move the district marker around the ruins tablet clockwise
... at least 1 space, but you may move it up to 1 additional space for each hero on your
wagon", gain the space's upgraded good; "Finally, you may return 1 lantern to the supply. If
you do, roll the ruins die and gain the reward shown". Its reroll face: "Reroll the ruins die
and if you roll this reward again, take 1 illuminated die ... If you roll another reward,
take that reward instead." The caravan is :mod:`.caravan`'s.
"""

from __future__ import annotations

from ..context import Ctx
from ..goods import UP
from ..hooks import is_int
from ..hookspecs import hookimpl
from ..i18n import N_
from ..state import Task
from ..steps import Choice, Option, Step
from ..wording import count, either, say

RUINS_SPACES = ("top_left", "top_right", "bottom_right", "bottom_left")


class YurgsExcursions(Choice):
    """Travel to the Ruins of Yin or lead a caravan to an outlying town (not both)."""

    kind = "yurgs_excursions"
    prompt = N_("Yurg's Excursions: the Ruins of Yin or a caravan?")
    logs_answer = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        return [("ruins", say("travel to the Ruins of Yin")), ("caravan", say("lead a caravan to an outlying town"))]

    def has_options(self, ctx: Ctx, task: Task, seat: int) -> bool:
        return True

    def allows(self, ctx: Ctx, task: Task, seat: int, option: str) -> bool:
        return option in ("ruins", "caravan")

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        if option == "ruins":
            ctx.push("ruins_die_offer", seat)
            ctx.push("ruins_move", seat)
        else:
            ctx.push("caravan_route", seat)
            ctx.push("caravan_companion", seat)
        ctx.emit("excursion", seat, choice=option)
        ctx.call("darkroad_excursion", seat=seat, choice=option)


class RuinsMove(Choice):
    """Move the ruins marker 1 space + up to 1 more per hero on your wagon; gain the reward."""

    kind = "ruins_move"
    prompt = N_("the Ruins of Yin: move the marker")
    logs_answer = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        here = ctx.game.board.ruins
        most = 1 + len(ctx.player(seat).heroes)
        return [(f"move:{n}", say("move the marker %(spaces)s to %(space)s: %(reward)s", spaces=count(n, "spaces"),
                                  space=say(SPACE_WORDS[RUINS_SPACES[(here + n) % 4]]), reward=_reward(ctx, (here + n) % 4)))
                for n in range(1, most + 1)]

    def has_options(self, ctx: Ctx, task: Task, seat: int) -> bool:
        return True  # one space at least

    def allows(self, ctx: Ctx, task: Task, seat: int, option: str) -> bool:
        return option in [f"move:{n}" for n in range(1, 2 + len(ctx.player(seat).heroes))]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        move_ruins(ctx, seat, int(option.split(":")[1]))


SPACE_WORDS = {"top_left": N_("the top-left space"), "top_right": N_("the top-right space"),
               "bottom_right": N_("the bottom-right space"), "bottom_left": N_("the bottom-left space")}
"""The ruins tablet's spaces in words (messages)."""


def _reward(ctx: Ctx, space: int) -> str:
    goods = ctx.content.ruins_tablet[RUINS_SPACES[space]]
    words = ctx.words
    return say("gain %(goods)s", goods=either([say("an upgraded good of your choice") if g == "any"
                                                else words.a_good(g + UP) for g in goods]))


def move_ruins(ctx: Ctx, seat: int, n: int) -> None:
    """Move the ruins marker ``n`` spaces clockwise and gain the space's upgraded good."""
    b = ctx.game.board
    b.ruins = (b.ruins + n) % 4
    name = RUINS_SPACES[b.ruins]
    ctx.emit("ruins_moved", seat, steps=n, space=name)
    goods = ctx.content.ruins_tablet[name]
    if goods == ("any",):
        ctx.gain_effects(seat, ["good:any+"], source="ruins of yin")
    else:
        ctx.push("choose_effect", seat, opts=[f"good:{g}{UP}" for g in goods], effect="ruins_good",
                 source="ruins of yin")


class RuinsDieOffer(Choice):
    """Finally, you may return 1 lantern to roll the ruins die."""

    kind = "ruins_die_offer"
    prompt = N_("the Ruins of Yin: roll the ruins die?")
    logs_answer = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        if not self.has_options(ctx, task, seat):
            return []
        cost = ruins_die_cost(ctx, seat)
        roll = say("pay %(lanterns)s to roll the ruins die", lanterns=count(cost, "lanterns")) if cost \
            else say("roll the ruins die at no cost")
        return [("roll", roll), ("skip", say("do not roll"))]

    def has_options(self, ctx: Ctx, task: Task, seat: int) -> bool:
        return ctx.player(seat).lanterns >= ruins_die_cost(ctx, seat)

    def allows(self, ctx: Ctx, task: Task, seat: int, option: str) -> bool:
        return option in ("roll", "skip") and self.has_options(ctx, task, seat)

    def details(self, ctx: Ctx, task: Task, seat: int) -> dict[str, str]:
        """The ruins die's faces (p. 11)."""
        faces = [ctx.words.effect(face) for face in ctx.content.ruins_die]
        return {"roll": say("The ruins die's faces: %(faces)s.", faces="; ".join(faces))}

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        if option == "roll":
            ctx.pay(seat, "lanterns", ruins_die_cost(ctx, seat), "ruins die")
            roll_ruins_die(ctx, seat)


def ruins_die_cost(ctx: Ctx, seat: int) -> int:
    """Lanterns ``seat`` pays to roll the ruins die: 1, or what ``darkroad_ruins_die_cost`` says."""
    cost = ctx.first("darkroad_ruins_die_cost", is_int, seat=seat)
    return 1 if cost is None else cost


def roll_ruins_die(ctx: Ctx, seat: int, rerolling: bool = False) -> None:
    """Roll the ruins die and gain the face. The "reroll" face: roll again; the same face
    again gives an illuminated die, another face gives that reward instead."""
    faces = ctx.content.ruins_die
    face = faces[ctx.randbelow(len(faces))]
    ctx.emit("ruins_die_rolled", seat, face=face, reroll=rerolling)
    if rerolling:
        ctx.gain_effects(seat, ["illuminated" if face == "illuminated_reroll" else face], source="ruins die")
    else:
        ctx.gain_effects(seat, [face], source="ruins die")


STEPS: list[Step] = [YurgsExcursions(), RuinsMove(), RuinsDieOffer()]


@hookimpl
def darkroad_steps() -> list[Step]:
    return list(STEPS)
