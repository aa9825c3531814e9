"""The Great Bazaar (rulebook p. 8): spend coins to buy goods.

"When you activate this district, first you may perform the following two actions in either
order. Rotate the market wheel 1 space clockwise. Change 1 market die on the market wheel to
any face ... You must still obey the limit of no more than 2 dice per wheel section." Then
buy: "The cost for each section is only counted once. If you buy 2 goods from a single
section, the second is free." A large choice made of small ones: rotate? change a die? then
one die at a time.
"""

from __future__ import annotations

from .. import explain
from ..context import MAX_PER_SECTION, Ctx
from ..hooks import is_non_negative_int
from ..hookspecs import hookimpl
from ..i18n import N_
from ..state import Task
from ..steps import Choice, Option, Step
from ..wording import count, say


class GreatBazaar(Choice):
    """First, in either order and each at most once: rotate the wheel 1 space, change 1
    market die to any face (max 2 per section). Then buy."""

    kind = "great_bazaar"
    prompt = N_("the Great Bazaar: rotate the wheel, change a die, or go buying")
    logs_answer = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        opts: list[Option] = []
        market = ctx.game.board.market
        ids = ctx.content.good_ids
        words = ctx.words
        if not task.data.get("rotated"):
            opts.append(("rotate", say("rotate the market wheel 1 space clockwise")))
        if not task.data.get("changed"):
            for i, src in enumerate(ids):
                if not market[i]:
                    continue
                for j, dst in enumerate(ids):
                    if j != i and market[j] < MAX_PER_SECTION:
                        opts.append((f"change:{src}:{dst}", say("change a market die from %(from)s to %(to)s",
                                                                **{"from": words.good_type(src),
                                                                   "to": words.good_type(dst)})))
        opts.append(("buy", say("go buying")))
        return opts

    def has_options(self, ctx: Ctx, task: Task, seat: int) -> bool:
        return True  # going buying is always an answer

    def allows(self, ctx: Ctx, task: Task, seat: int, option: str) -> bool:
        if option == "buy":
            return True
        if option == "rotate":
            return not task.data.get("rotated")
        verb, _, rest = option.partition(":")
        src, _, dst = rest.partition(":")
        idx = ctx.content.good_index
        if verb != "change" or task.data.get("changed") or src == dst or src not in idx or dst not in idx \
                or option != f"change:{src}:{dst}":
            return False
        market = ctx.game.board.market
        return bool(market[idx[src]]) and market[idx[dst]] < MAX_PER_SECTION

    def details(self, ctx: Ctx, task: Task, seat: int) -> dict[str, str]:
        """The wheel's prices and dice now, and after a rotation or a change."""
        return {option: explain.market_after(ctx, option) for option, _ in self.options(ctx, task, seat)}

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        if option == "buy":
            discount = sum(ctx.call("darkroad_bazaar_discount", is_non_negative_int, seat=seat))
            ctx.push("bazaar_buy", seat, paid=[], discount=discount)
            return
        data = dict(task.data)
        if option == "rotate":
            ctx.rotate_wheel(seat)
            data["rotated"] = True
        else:
            _, src, dst = option.split(":")
            m, idx = ctx.game.board.market, ctx.content.good_index
            m[idx[src]] -= 1
            m[idx[dst]] += 1
            data["changed"] = True
            ctx.emit("market_die_changed", seat, frm=src, to=dst)
        ctx.push("great_bazaar", seat, **data)


class BazaarBuy(Choice):
    """Buy goods one die at a time: each section's value is paid once (a second good of
    the same section is free); the discount of the visit comes off the total."""

    kind = "bazaar_buy"
    prompt = N_("the Great Bazaar: buy a good, or stop")
    logs_answer = True

    def cost(self, ctx: Ctx, task: Task, kind: str) -> int:
        if kind in task.data["paid"]:
            return 0
        discount: int = task.data["discount"]
        return max(0, ctx.value(kind) - discount)

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        coins = ctx.player(seat).coins
        opts: list[Option] = []
        for i, kind in enumerate(ctx.content.good_ids):
            if ctx.game.board.market[i]:
                c = self.cost(ctx, task, kind)
                if c <= coins:
                    good = ctx.words.a_good(kind)
                    opts.append((f"buy:{kind}", say("buy %(good)s for %(price)s", good=good, price=count(c, "coins"))
                                 if c else say("buy %(good)s at no cost", good=good)))
        opts.append(("done", say("stop buying")))
        return opts

    def has_options(self, ctx: Ctx, task: Task, seat: int) -> bool:
        return True  # stopping is always an answer

    def allows(self, ctx: Ctx, task: Task, seat: int, option: str) -> bool:
        if option == "done":
            return True
        verb, _, kind = option.partition(":")
        i = ctx.content.good_index.get(kind)
        return verb == "buy" and i is not None and bool(ctx.game.board.market[i]) \
            and self.cost(ctx, task, kind) <= ctx.player(seat).coins

    def details(self, ctx: Ctx, task: Task, seat: int) -> dict[str, str]:
        """The price of each good and why (a section paid once), and the wheel."""
        out = {}
        for option, _ in self.options(ctx, task, seat):
            kind = option.partition(":")[2]
            out[option] = explain.bazaar_buy(ctx, kind, task.data["paid"], self.cost(ctx, task, kind)) \
                if option.startswith("buy:") else explain.market(ctx)
        return out

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        if option == "done":
            return
        kind = option.split(":")[1]
        c = self.cost(ctx, task, kind)
        full = 0 if kind in task.data["paid"] else ctx.value(kind)
        paid = task.data["paid"] + ([kind] if kind not in task.data["paid"] else [])
        ctx.push("bazaar_buy", seat, paid=paid, discount=task.data["discount"] - (full - c))
        ctx.pay(seat, "coins", c, "great bazaar")
        b = ctx.game.board
        b.market[ctx.content.good_index[kind]] -= 1
        b.set_aside += 1
        ctx.emit("bought", seat, good=kind, cost=c)
        ctx.gain_good(seat, kind, "great bazaar")


STEPS: list[Step] = [GreatBazaar(), BazaarBuy()]


@hookimpl
def darkroad_steps() -> list[Step]:
    return list(STEPS)
