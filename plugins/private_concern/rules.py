"""The Trader's rules: what the Private Concern holds and how it chooses (docs/private-concern.md).

The published solo booklet is not available; the rules here are the prototype rulebook's
"SOLO PLAY" section (the Trader), renamed: crowns = deeds, crystals = blazing quartz,
horses = steeds, contracts = commissions, leader bonus = good fortune, lower = dark market.
docs/private-concern.md documents the rules, every ruling where the text is silent, and the
10 action cards (content data: ``private_concern_cards`` in a content pack, :mod:`.cards`).

It plays by the rulebook wherever the Trader's rules say nothing else: its gains and effects
go through the rulebook (``ctx.gain_hero``, ``ctx.resolve_effect``, the deliveries), and
:mod:`.overrides` answers the rule points where it differs. Here is only what is its own:

* its state, ``Player.extra["concern"]`` (:class:`Concern`): goods as a count and its deck
  of action cards;
* its selection rules (which town, which hero, which deed: most heroes + commissions);
* "the player's choice": a ``concern_choice`` decision of the creator's seat (the first
  player's seat), so the game never waits for the Private Concern;
* its own rewards at the Ruins of Yin and the Dark Market, its deliveries, its score.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypedDict, cast

from darkroad.core import (
    COMMISSION_PRESTIGE,
    DARK_MARKET_SPACES,
    HUMAN,
    RUINS_SPACES,
    Choice,
    Content,
    Ctx,
    Game,
    Option,
    Player,
    ScoreLine,
    Task,
    declare_caravan,
    deliver_commission,
    deliver_hero,
    describe_effect,
    i18n,
    shortcut_cost,
    wording,
)

say = wording.speaker(__name__)

KIND = "private_concern"
STATE = "concern"
"""Its key of ``Player.extra`` (and of its seat's view)."""
CARDS = "private_concern_cards"
"""The content pack key of its action cards (``content.extra``)."""
TIEBREAKERS = ("discarded",)
"""The prototype's solo rule: a tie with it is broken by the discarded value only, then shared."""
SPACES = 5
INN_SLOTS = 4
COMPANION_SLOTS = 3
ACTIONS = ("bazaar", "commission", "travel", "ruins", "dark_market", "inn")
DISTRICT_OF = {"bazaar": "great_bazaar", "commission": "queens_commissions", "travel": "yurgs_excursions",
               "ruins": "yurgs_excursions", "dark_market": "dark_market", "inn": "ringway_inn"}
REQUIREMENTS = ("max_goods", "min_goods", "max_commissions", "min_commissions")
"""Requirements (the red district actions of the prototype's cards); all optional."""
PARAMS: dict[str, tuple[str, ...]] = {
    "bazaar": ("goods",),
    "commission": ("town",),
    "travel": ("companion", "good_fortune"),
    "ruins": ("move",),
    "dark_market": ("move", "south"),
    "inn": ("hero", "sell"),
}
FORTUNES = ("illuminated", "coins", "deed:courtyard:0", "deed:courtyard:1", "deed:deck")
DEFAULT_FORTUNES = ("coins", "illuminated")
FORTUNES_KEY = "concern_fortunes"
"""Its key of the caravan's ``extra`` (and of ``game.turn.extra`` until its route is declared):
the good fortunes its action card lets it take."""


class Concern(TypedDict):
    """The Private Concern's own state (``Player.extra["concern"]``): goods as a count (no
    tiles, no storage grid) and its deck of action cards (index 0 is the top; the deck is
    secret, the discard pile public)."""

    goods: int
    deck: list[str]
    discard: list[str]


# -- seats and state ------------------------------------------------------------------------------


def creator(game: Game) -> int:
    """The seat that decides where the Trader rules say "player's choice": the first player's seat."""
    return next(p.seat for p in game.players if p.kind == HUMAN)


def is_solo(game: Game) -> bool:
    """One player against the Private Concern (2 seats)."""
    return len(game.players) == 2


def is_concern(ctx: Ctx, seat: int) -> bool:
    """Whether ``seat`` is a Private Concern's."""
    return 0 <= seat < len(ctx.game.players) and ctx.game.players[seat].kind == KIND


def state(game: Game, seat: int) -> Concern:
    """The Private Concern's state at ``seat``."""
    return concern_of(game.players[seat])


def concern_of(player: Player) -> Concern:
    concern = player.extra.get(STATE)
    assert concern is not None, f"seat {player.seat} is not the Private Concern"
    return cast(Concern, concern)


def cards(content: Content) -> Mapping[str, Mapping[str, Any]]:
    """The action cards of the installation's content packs: card id -> card."""
    return content.extra.get(CARDS, {})


def setup(ctx: Ctx, seat: int) -> None:
    """Turn the Private Concern's seat (already dealt like any seat) into the Trader's setup:
    5 coins (+ the seat's extra coins) and the starting good as a count, one illuminated die,
    no night dice, no steed, no horseshoe, the shuffled action deck. Solo: only one random wagon
    upgrade on the good fortune track."""
    g = ctx.game
    p = g.players[seat]
    deck = sorted(cards(ctx.content))
    ctx.shuffle(deck)
    p.extra[STATE] = Concern(goods=len(p.goods), deck=deck, discard=[])
    p.goods, p.reserve, p.locked, p.horseshoes = [], [], [None, None, None], 0
    b = g.board
    if is_solo(g) and b.upgrades:
        b.upgrades = [b.upgrades[ctx.randbelow(len(b.upgrades))]]
        ctx.emit("solo_upgrade", None, upgrade=b.upgrades[0])


# -- goods: a count -------------------------------------------------------------------------------


def add_goods(ctx: Ctx, seat: int, n: int, source: str = "") -> int:
    """Gain or lose goods, a count never below 0 and with no limit; the change."""
    concern = state(ctx.game, seat)
    have = concern["goods"]
    new = max(0, have + n)
    if new != have:
        concern["goods"] = new
        ctx.emit("gained" if n > 0 else "lost", seat, resource="goods", amount=abs(new - have), source=source)
    return new - have


def gain_goods(ctx: Ctx, seat: int, n: int, upgraded: bool = False, source: str = "") -> None:
    """Goods are a count; an upgraded good is 1 good and 1 blazing quartz."""
    add_goods(ctx, seat, n, source)
    if upgraded:
        ctx.add(seat, "quartz", n, source)


# -- the Trader's selection rules -----------------------------------------------------------------


def town_counts(ctx: Ctx, seat: int) -> dict[str, tuple[int, int]]:
    """Town -> (heroes + commissions, commissions) the Private Concern holds for it."""
    p, c = ctx.player(seat), ctx.content
    counts = {t: [0, 0] for t in c.towns}
    for h in p.heroes:
        counts[c.heroes[h].town][0] += 1
    for m in p.commissions:
        counts[c.commissions[m].town][0] += 1
        counts[c.commissions[m].town][1] += 1
    return {t: (a, b) for t, (a, b) in counts.items()}


def best_towns(ctx: Ctx, seat: int, towns: Sequence[str]) -> list[str]:
    """The towns of ``towns`` with the most heroes + commissions, then the most commissions
    (empty when it holds nothing for any of them)."""
    counts = town_counts(ctx, seat)
    best = max((counts[t] for t in towns), default=(0, 0))
    if best[0] == 0:
        return []
    return [t for t in towns if counts[t] == best]


def anchor(candidates: Sequence[Any], order: Sequence[Any], start: Any) -> Any:
    """The first of ``candidates`` at or after ``start`` in the cyclic ``order`` (the card's
    noted town or slot decides a tie)."""
    i = order.index(start)
    for k in range(len(order)):
        x = order[(i + k) % len(order)]
        if x in candidates:
            return x
    return None


def commission_candidates(ctx: Ctx, seat: int) -> tuple[list[str], bool]:
    """Towns with a commission to take, by the Trader's rule (most heroes + commissions there);
    the flag says whether the rule picked (one town) or left a tie (or no preference)."""
    stacks = ctx.game.board.commission_stacks
    avail = [t for t in ctx.content.towns if stacks.get(t)]
    counts = town_counts(ctx, seat)
    best = max((counts[t][0] for t in avail), default=0)
    tied = [t for t in avail if counts[t][0] == best]
    return tied, best > 0 and len(tied) == 1


def inn_slots(ctx: Ctx) -> dict[int, str]:
    """The inn's available heroes by slot: a hero being sold to (engaged by a pending sale at
    the Ringway Inn) is not available."""
    engaged = ctx.engaged()
    return {i: h for i, h in enumerate(ctx.game.board.inn) if h and h not in engaged}


def inn_candidates(ctx: Ctx, seat: int) -> tuple[list[int], bool]:
    """Available inn slots with the hero matching most of its heroes + commissions (same town)."""
    inn = inn_slots(ctx)
    counts = town_counts(ctx, seat)
    slots = list(inn)
    score = {i: counts[ctx.content.heroes[h].town][0] for i, h in inn.items()}
    best = max(score.values(), default=0)
    tied = [i for i in slots if score[i] == best]
    return tied, best > 0 and len(tied) == 1


def matching(ctx: Ctx, seat: int, slots: Sequence[int]) -> bool:
    """Whether an inn hero of ``slots`` is for a town it holds heroes or commissions for."""
    counts = town_counts(ctx, seat)
    inn = inn_slots(ctx)
    return any(counts[ctx.content.heroes[inn[i]].town][0] for i in slots if i in inn)


# -- decisions for the creator ("player's choice") ------------------------------------------------


def ask(ctx: Ctx, seat: int, what: str, options: Sequence[Option], prompt: str, **data: Any) -> None:
    """A choice the Trader rules leave to the player: the creator's seat decides it through a
    normal decision (``concern_choice``); a single option is taken at once."""
    if not options:
        return
    if len(options) == 1:
        CHOICES[what](ctx, seat, options[0][0], data)
        return
    ctx.push("concern_choice", creator(ctx.game), concern=seat, what=what, prompt=prompt,
             options=[[o, label] for o, label in options], **data)


class ConcernChoice(Choice):
    """A choice for the Private Concern, made by the seat that created the game."""

    kind = "concern_choice"
    prompt = i18n.N_("choose for the Private Concern")
    logs_answer = True  # its concern_choice event names the answer
    inside_gain = True  # part of the Private Concern's action: the creator's abilities wait

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        # Worded now, in the caller's language: the labels kept in the task are the words of the
        # call that asked (a plugin's decision relayed keeps its plugin's label as it was).
        what = task.data["what"]
        if what == "effect":
            return [(o, effect_label(ctx, o)) for o, _ in task.data["options"]]
        if what in TOWN_LABELS:
            return [(o, say(TOWN_LABELS[what], town=ctx.words.town(o.split(":", 1)[1]))) for o, _ in task.data["options"]]
        return [(o, label) for o, label in task.data["options"]]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        ctx.emit("concern_choice", seat, concern=task.data["concern"], what=task.data["what"], option=option)
        CHOICES[task.data["what"]](ctx, task.data["concern"], option, task.data)

    def describe(self, ctx: Ctx, task: Task) -> str:
        return f"choose for the Private Concern: {task.data['prompt']}"


def _choose_effect(ctx: Ctx, seat: int, option: str, data: Mapping[str, Any]) -> None:
    ctx.resolve_effect(seat, option, data.get("source", ""))


def _choose_destination(ctx: Ctx, seat: int, option: str, data: Mapping[str, Any]) -> None:
    declare(ctx, seat, option.split(":", 1)[1])


def _choose_delivery(ctx: Ctx, seat: int, option: str, data: Mapping[str, Any]) -> None:
    deliver_at(ctx, seat, option.split(":", 1)[1])


def _choose_relay(ctx: Ctx, seat: int, option: str, data: Mapping[str, Any]) -> None:
    orig = data["task"]
    task = Task(kind=orig["kind"], seat=orig["seat"], data=orig["data"])
    ctx.engine.steps[task.kind].choose(ctx, task, seat, option)


CHOICES: dict[str, Callable[[Ctx, int, str, Mapping[str, Any]], None]] = {
    "effect": _choose_effect,
    "destination": _choose_destination,
    "deliver": _choose_delivery,
    "relay": _choose_relay,
}


def effect_label(ctx: Ctx, effect: str) -> str:
    return say("the Private Concern: %(effect)s", effect=describe_effect(ctx, effect))


def effect_options(ctx: Ctx, effects: Sequence[str]) -> list[Option]:
    """``effects`` as options of the creator's choice for it."""
    return [(e, effect_label(ctx, e)) for e in effects]


TOWN_LABELS = {"destination": i18n.N_("the Private Concern travels to %(town)s"),
               "deliver": i18n.N_("the Private Concern delivers in %(town)s")}
"""The labels of a choice of town for it, by what is chosen (``ask``'s ``what``)."""


def town_options(ctx: Ctx, towns: Sequence[str], what: str) -> list[Option]:
    return [(f"town:{t}", say(TOWN_LABELS[what], town=ctx.words.town(t))) for t in towns]


# -- its own rewards ------------------------------------------------------------------------------


def declare(ctx: Ctx, seat: int, town: str) -> None:
    """Lead its caravan to ``town``: by a shortcut when it holds the lanterns, else by the dark
    road; its card's good fortunes go with the caravan."""
    route = "shortcut" if ctx.player(seat).lanterns >= shortcut_cost(ctx, seat) else "dark_road"
    declare_caravan(ctx, seat, route, town)
    turn = ctx.game.turn
    assert turn.caravan is not None  # just declared
    turn.caravan.extra[FORTUNES_KEY] = turn.extra.pop(FORTUNES_KEY, list(DEFAULT_FORTUNES))


def move_ruins(ctx: Ctx, seat: int, n: int) -> None:
    """Move the ruins marker ``n`` spaces: the Private Concern gains 1 upgraded good (1 good +
    1 blazing quartz), whatever the space shows."""
    b = ctx.game.board
    b.ruins = (b.ruins + n) % len(RUINS_SPACES)
    ctx.emit("ruins_moved", seat, steps=n, space=RUINS_SPACES[b.ruins])
    gain_goods(ctx, seat, 1, upgraded=True, source="ruins of yin")


def move_dark_market(ctx: Ctx, seat: int, n: int, south: str | None) -> None:
    """Move the dark market marker ``n`` spaces: north, east or west give the Private Concern
    2 goods; south gives the card's noted action (``south``), else the creator chooses a
    commission or a deed for it."""
    b = ctx.game.board
    b.dark_market = (b.dark_market + n) % len(DARK_MARKET_SPACES)
    name = DARK_MARKET_SPACES[b.dark_market]
    ctx.emit("dark_market_moved", seat, steps=n, space=name)
    if name != "south":
        gain_goods(ctx, seat, len(ctx.content.dark_market.get(name, ())) or 2, source="dark market")
    elif south is not None:
        verb, _, arg = south.partition(":")
        if verb == "commission":
            take_commission(ctx, seat, arg, "dark market")
        else:
            take_deed(ctx, seat, arg, "dark market")
    else:
        ask(ctx, seat, "effect", effect_options(ctx, ["commission", "deed"]),
            "a commission or a deed from the dark market", source="dark market")


def take_commission(ctx: Ctx, seat: int, noted: str, source: str) -> None:
    """The Trader's commission rule with a card: the town it holds most heroes + commissions
    for; a tie (or none) goes to the noted town, or the next town after it in the tie."""
    tied, decided = commission_candidates(ctx, seat)
    if tied:
        town = tied[0] if decided else anchor(tied, list(ctx.content.towns), noted)
        ctx.resolve_effect(seat, f"commission:{town}", source)


def take_deed(ctx: Ctx, seat: int, where: str, source: str) -> None:
    """The deed its card notes (``courtyard:<slot>`` or ``deck``), gained as the rulebook gives
    a deed (the courtyard's with its banner's bonus). An empty courtyard slot falls back to the
    other slot, then to the deck."""
    b = ctx.game.board
    wanted = int(where.split(":")[1]) if where.startswith("courtyard") else None
    order = [wanted] + [i for i in range(len(b.courtyard)) if i != wanted] if wanted is not None else []
    slot = next((i for i in order if i is not None and i < len(b.courtyard) and b.courtyard[i]), None)
    if slot is not None:
        ctx.resolve_effect(seat, f"deed:courtyard:{slot}", source)
    elif b.deed_deck:
        ctx.resolve_effect(seat, "deed:deck", source)


# -- deliveries -------------------------------------------------------------------------------------


def visit(ctx: Ctx, seat: int, towns: Sequence[str]) -> None:
    """Deliver in the town of ``towns`` with most heroes + commissions, then most commissions;
    still tied: the creator chooses. Nothing for any of them: visit no town."""
    tied = best_towns(ctx, seat, towns)
    if not tied:
        ctx.emit("town_visited", seat, town=None)
        return
    ask(ctx, seat, "deliver", town_options(ctx, tied, "deliver"), "the town it delivers to")


def deliver_at(ctx: Ctx, seat: int, town: str) -> None:
    """Deliver every hero for ``town``, then its commissions in the order taken, each with as
    many goods as it requests while goods last (1/3/6 prestige for 1/2/3 goods).

    Through the core's deliveries (``deliver_hero``, ``deliver_commission``), as a player's:
    the same events and the same hooks (``darkroad_hero_delivered``,
    ``darkroad_commission_delivered``); only the goods are its own, a count
    (:func:`spend_goods`). The goods it hands over for a commission are basic goods of the
    types the commission requests, in the order requested (docs/private-concern.md)."""
    p, c = ctx.player(seat), ctx.content
    concern = state(ctx.game, seat)
    ctx.emit("town_visited", seat, town=town)
    for h in [h for h in p.heroes if c.heroes[h].town == town]:
        deliver_hero(ctx, seat, h, "delivery")
    for m in [m for m in p.commissions if c.commissions[m].town == town]:
        requests = c.commissions[m].requests
        n = min(len(requests), concern["goods"], len(COMMISSION_PRESTIGE) - 1)
        if n == 0:
            break
        deliver_commission(ctx, seat, m, list(requests[:n]))


def spend_goods(ctx: Ctx, seat: int, goods: Sequence[str], source: str) -> None:
    """Its goods handed over for a delivery: the count goes down by as many."""
    add_goods(ctx, seat, -len(goods), source)


# -- scoring and views ------------------------------------------------------------------------------


def score(ctx: Ctx, seat: int) -> ScoreLine:
    """min(coins, prestige) + 1 VP per good, illuminated die, blazing quartz and deed (its
    deeds are not scored by their criteria)."""
    p = ctx.player(seat)
    goods = state(ctx.game, seat)["goods"]
    base = min(p.coins, p.prestige)
    illuminated, deeds = len(p.special), len(p.deeds)
    return ScoreLine(
        seat=seat, coins=p.coins, prestige=p.prestige, base=base, deed_vp=deeds, illuminated_vp=illuminated,
        goods_vp=goods, quartz_vp=p.quartz, total=base + deeds + illuminated + goods + p.quartz,
        discarded=max(p.coins, p.prestige), gifts=0, commissions_delivered=len(p.delivered_commissions),
        heroes_delivered=len(p.delivered_heroes),
        details=[f"{goods} goods, {p.quartz} blazing quartz, {illuminated} illuminated dice, {deeds} deeds: 1 VP each"],
    )


def public(p: Player) -> dict[str, Any]:
    """The Private Concern's public state for a view (its deck order stays secret)."""
    c = concern_of(p)
    return {"goods": c["goods"], "deck": len(c["deck"]), "discard": list(c["discard"])}
