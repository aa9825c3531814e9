"""The five districts (rulebook "District Actions", pp. 8–11).

Each district is a step pushed when it is activated; large choices are split into
small sequential decisions (the Bazaar: rotate? change a die? then buy one die at a
time; the Inn: pick a hero, then sell one good at a time).
"""

from __future__ import annotations

from .context import MAX_PER_SECTION, Ctx
from .goods import UP, good_type, is_upgraded
from .goods import label as good_label
from .hooks import is_int, is_non_negative_int
from .state import Task
from .steps import Choice, Option, Step

DARK_MARKET_SPACES = ("north", "east", "south", "west")
RUINS_SPACES = ("top_left", "top_right", "bottom_right", "bottom_left")


# -- the Great Bazaar (p. 8) ------------------------------------------------------------------


class GreatBazaar(Choice):
    """First, in either order and each at most once: rotate the wheel 1 space, change 1
    market die to any face (max 2 per section). Then buy."""

    kind = "great_bazaar"
    prompt = "the Great Bazaar: rotate the wheel, change a die, or go buying"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        opts: list[Option] = []
        market = ctx.game.board.market
        ids = ctx.content.good_ids
        if not task.data.get("rotated"):
            opts.append(("rotate", "rotate the market wheel 1 space clockwise"))
        if not task.data.get("changed"):
            for i, src in enumerate(ids):
                if not market[i]:
                    continue
                for j, dst in enumerate(ids):
                    if j != i and market[j] < MAX_PER_SECTION:
                        opts.append((f"change:{src}:{dst}", f"change a {src} die to {dst}"))
        opts.append(("buy", "go buying"))
        return opts

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
    prompt = "the Great Bazaar: buy a good, or stop"

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
                    opts.append((f"buy:{kind}", f"buy a {kind} for {c} coins"))
        opts.append(("done", "stop buying"))
        return opts

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


# -- the Queen's Commissions (p. 8) -------------------------------------------------------------


class QueensCommissions(Step):
    """Gain the top commission of the stack of your choice (only tops are visible)."""

    kind = "queens_commissions"

    def run(self, ctx: Ctx, task: Task) -> None:
        ctx.gain_effects(task.seat, ["commission"], source="queen's commissions")


# -- the Dark Market (p. 9) ------------------------------------------------------------------------


class DarkMarket(Choice):
    """Pay 1–4 coins to move the marker that many spaces clockwise (skip with no coins)."""

    kind = "dark_market"
    prompt = "the Dark Market: pay coins to move the marker"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        coins = ctx.player(seat).coins
        here = ctx.game.board.dark_market
        return [(f"move:{n}", f"pay {n} to move to {DARK_MARKET_SPACES[(here + n) % 4]}: "
                 f"{_dark_market_reward(ctx, (here + n) % 4)}") for n in range(1, min(4, coins) + 1)]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        n = int(option.split(":")[1])
        ctx.pay(seat, "coins", n, "dark market")
        move_dark_market(ctx, seat, n)


def _dark_market_reward(ctx: Ctx, space: int) -> str:
    name = DARK_MARKET_SPACES[space]
    if name == "south":
        return "1 available commission or deed"
    return " and ".join(ctx.content.dark_market[name])


def move_dark_market(ctx: Ctx, seat: int, n: int) -> None:
    b = ctx.game.board
    b.dark_market = (b.dark_market + n) % 4
    name = DARK_MARKET_SPACES[b.dark_market]
    ctx.emit("dark_market_moved", seat, steps=n, space=name)
    if name == "south":
        ctx.push("choose_effect", seat, opts=["commission", "deed"], effect="commission_or_deed",
                 source="dark market")
    else:
        ctx.gain_effects(seat, [f"good:{g}" for g in ctx.content.dark_market[name]], source="dark market")


# -- the Ringway Inn (p. 10) ----------------------------------------------------------------------


class RingwayInn(Choice):
    """Pick 1 face-up hero you can sell at least 1 requested good to."""

    kind = "ringway_inn"
    prompt = "the Ringway Inn: choose a hero to sell to"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        held = {good_type(g) for g in ctx.player(seat).goods}
        opts = []
        for i, h in enumerate(ctx.game.board.inn):
            if h and held.intersection(ctx.content.heroes[h].requests):
                hero = ctx.content.heroes[h]
                opts.append((f"hero:{i}", f"sell to {hero.name} ({hero.hero_class} of {hero.town}; "
                             f"requests {', '.join(hero.requests)})"))
        return opts

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        slot = int(option.split(":")[1])
        ctx.push("inn_sell", seat, slot=slot, hero=ctx.game.board.inn[slot], sold=[])


class InnSell(Choice):
    """Sell requested goods one at a time (1 per request, at least 1): current value, +1
    coin and +1 blazing quartz per upgraded good. Then the hero joins with its bonus."""

    kind = "inn_sell"
    prompt = "the Ringway Inn: sell a requested good, or finish"
    engages = ("hero",)

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        hero = ctx.content.heroes[task.data["hero"]]
        sold = {good_type(g) for g in task.data["sold"]}
        opts = []
        for g in sorted(set(ctx.player(seat).goods)):
            k = good_type(g)
            if k in hero.requests and k not in sold:
                value = ctx.value(k) + (1 if is_upgraded(g) else 0)
                extra = " and 1 blazing quartz" if is_upgraded(g) else ""
                opts.append((f"sell:{g}", f"sell {good_label(g)} for {value} coins{extra}"))
        if task.data["sold"]:
            opts.append(("done", f"finish: {hero.name} joins your wagon"))
        return opts

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        if option == "done":
            self.finish(ctx, task, seat)
            return
        good = option.split(":", 1)[1]
        sold = task.data["sold"] + [good]
        nxt = ctx.push("inn_sell", seat, slot=task.data["slot"], hero=task.data["hero"], sold=sold)
        ctx.lose_good(seat, good, "sold at the ringway inn")
        ctx.add(seat, "coins", ctx.value(good_type(good)) + (1 if is_upgraded(good) else 0), "ringway inn")
        if is_upgraded(good):
            ctx.add(seat, "quartz", 1, "ringway inn")
        if not self.options(ctx, nxt, seat)[:-1]:
            # Nothing left to sell: the sale is over.
            ctx.pop(nxt)
            ctx.push("inn_join", seat, slot=task.data["slot"], hero=task.data["hero"])

    def finish(self, ctx: Ctx, task: Task, seat: int) -> None:
        ctx.push("inn_join", seat, slot=task.data["slot"], hero=task.data["hero"])


class InnJoin(Step):
    """After the sale, the hero joins the wagon (with its bonus)."""

    kind = "inn_join"
    engages = ("hero",)

    def run(self, ctx: Ctx, task: Task) -> None:
        b = ctx.game.board
        slot, hero = task.data["slot"], task.data["hero"]
        if b.inn[slot] != hero:  # engaged by the sale, it cannot have been taken meanwhile
            raise RuntimeError(f"the hero sold to at the Ringway Inn, {hero!r}, left inn slot {slot}")
        b.inn[slot] = None
        ctx.gain_hero(task.seat, hero, source="ringway inn")


# -- Yurg's Excursions (p. 11) ------------------------------------------------------------------------


class YurgsExcursions(Choice):
    """Travel to the Ruins of Yin or lead a caravan to an outlying town (not both)."""

    kind = "yurgs_excursions"
    prompt = "Yurg's Excursions: the Ruins of Yin or a caravan?"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        return [("ruins", "travel to the Ruins of Yin"), ("caravan", "lead a caravan to an outlying town")]

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
    prompt = "the Ruins of Yin: move the marker"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        here = ctx.game.board.ruins
        most = 1 + len(ctx.player(seat).heroes)
        return [(f"move:{n}", f"move {n} to {RUINS_SPACES[(here + n) % 4].replace('_', ' ')}: "
                 f"{_ruins_reward(ctx, (here + n) % 4)}") for n in range(1, most + 1)]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        move_ruins(ctx, seat, int(option.split(":")[1]))


def _ruins_reward(ctx: Ctx, space: int) -> str:
    goods = ctx.content.ruins_tablet[RUINS_SPACES[space]]
    return " or ".join(f"upgraded {g}" for g in goods)


def move_ruins(ctx: Ctx, seat: int, n: int) -> None:
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
    prompt = "the Ruins of Yin: roll the ruins die?"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        cost = ruins_die_cost(ctx, seat)
        if ctx.player(seat).lanterns < cost:
            return []
        return [("roll", f"pay {cost} lantern(s) to roll the ruins die"), ("skip", "do not roll")]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        if option == "roll":
            ctx.pay(seat, "lanterns", ruins_die_cost(ctx, seat), "ruins die")
            roll_ruins_die(ctx, seat)


def ruins_die_cost(ctx: Ctx, seat: int) -> int:
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


STEPS: list[Step] = [GreatBazaar(), BazaarBuy(), QueensCommissions(), DarkMarket(), RingwayInn(), InnSell(),
                     InnJoin(), YurgsExcursions(), RuinsMove(), RuinsDieOffer()]
