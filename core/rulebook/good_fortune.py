"""Step 4 of a caravan, "Receive Good Fortune" (rulebook p. 13), and wagon upgrades (p. 19).

"You now receive 1 or 2 good fortunes, as the caravan leader, based on the chosen route: 1
for traveling the dark road or 2 for traveling a shortcut. If you receive 2 good fortunes,
you may choose the same good fortune twice." "Gain 3 coins. (The first player to choose this
good fortune gains 5 coins instead.)" "Gain 1 available wagon upgrade. If your wagon already
has a wagon upgrade, you cannot choose this good fortune." "You may only have 1 wagon upgrade
per game" (p. 19).
"""

from __future__ import annotations

from ..context import Ctx
from ..hooks import is_bool, is_int
from ..hookspecs import hookimpl
from ..i18n import N_
from ..state import Task
from ..steps import Choice, Option, Step
from ..wording import count, say


class GoodFortune(Choice):
    """Step 4 (p. 13): the leader gets 1 (dark road) or 2 (shortcut) good fortunes."""

    kind = "good_fortune"
    prompt = N_("good fortune: choose one")
    logs_answer = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        b = ctx.game.board
        first, later = ctx.content.good_fortune_coins
        words = {"illuminated": say("gain 1 illuminated die"), "deed": say("gain 1 available deed and its bonus"),
                 "coins": say("gain %(coins)s", coins=count(first if b.five_coins else later, "coins")),
                 "upgrade": say("gain 1 available wagon upgrade")}
        return [(option, words[option]) for option in self._available(ctx, seat)]

    def has_options(self, ctx: Ctx, task: Task, seat: int) -> bool:
        return True  # an illuminated die, always

    def allows(self, ctx: Ctx, task: Task, seat: int, option: str) -> bool:
        return option in self._available(ctx, seat)

    @staticmethod
    def _available(ctx: Ctx, seat: int) -> list[str]:
        """The good fortunes there are now, in the order :meth:`options` lists them: an illuminated
        die and coins always; a deed while one is available; an upgrade while one is left and the
        wagon has room for it."""
        b = ctx.game.board
        available = ["illuminated"]
        if any(b.courtyard) or b.deed_deck:
            available.append("deed")
        available.append("coins")
        if b.upgrades and len(ctx.player(seat).upgrades) < upgrade_limit(ctx, seat):
            available.append("upgrade")
        return available

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        if task.data["left"] > 1:
            ctx.push("good_fortune", seat, left=task.data["left"] - 1)
        ctx.emit("good_fortune", seat, choice=option)
        if option == "coins":
            b = ctx.game.board
            first, later = ctx.content.good_fortune_coins
            ctx.add(seat, "coins", first if b.five_coins else later, "good fortune")
            b.five_coins = False
        elif option == "upgrade":
            ctx.push("choose_upgrade", seat)
        else:
            ctx.gain_effects(seat, [option], source="good fortune")


    def automated(self, ctx: Ctx, task: Task, seat: int) -> bool:
        if not ctx.first("darkroad_good_fortune", is_bool, seat=seat, count=task.data["left"]):
            return False
        ctx.pop(task)
        return True


def upgrade_limit(ctx: Ctx, seat: int) -> int:
    """How many wagon upgrades ``seat`` may hold: 1, or what ``darkroad_upgrade_limit`` says."""
    limit = ctx.first("darkroad_upgrade_limit", is_int, seat=seat)
    return 1 if limit is None else limit


class ChooseUpgrade(Choice):
    """Which wagon upgrade a good fortune (or Cosimo) gives: part of that gain, so no ability
    comes in between; the limit ("You may only have 1 wagon upgrade per game", p. 19) is
    checked again here, as the gain resolves: at the limit it offers nothing and is skipped."""

    kind = "choose_upgrade"
    prompt = N_("choose a wagon upgrade")
    inside_gain = True
    logs_answer = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        if len(ctx.player(seat).upgrades) >= upgrade_limit(ctx, seat):
            return []
        comps = ctx.content.components
        return [(f"upgrade:{u}", say("%(upgrade)s: %(text)s", upgrade=ctx.words.component(u),
                                          text=ctx.words.component_text(u, comps[u].text)))
                for u in ctx.game.board.upgrades]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        gain_upgrade(ctx, seat, option.split(":", 1)[1])


def gain_upgrade(ctx: Ctx, seat: int, upgrade: str) -> None:
    """``seat`` takes wagon upgrade ``upgrade`` from the good fortune track."""
    ctx.game.board.upgrades.remove(upgrade)
    ctx.player(seat).upgrades.append(upgrade)
    ctx.emit("upgrade_gained", seat, upgrade=upgrade)
    ctx.call("darkroad_upgrade_gained", seat=seat, upgrade=upgrade)
    ctx.check_storage(seat)
    ctx.check_inventory(seat)


STEPS: list[Step] = [GoodFortune(), ChooseUpgrade()]


@hookimpl
def darkroad_steps() -> list[Step]:
    return list(STEPS)
