"""The Trader's rules: how the Private Concern plays (docs/private-concern.md).

The published solo booklet is not available; the rules here are the prototype rulebook's
"SOLO PLAY" section (the Trader), renamed: crowns = deeds, crystals = blazing quartz,
horses = steeds, contracts = commissions, leader bonus = good fortune, lower = dark market.
docs/private-concern.md documents the rules, every ruling where the text is silent, and the
10 action cards (content data: ``private_concern_cards`` in a content pack, :mod:`.cards`).

* Its state is ``Player.extra["concern"]`` (:class:`Concern`): goods as a count and its deck
  of action cards.
* Its turn is the automatic step ``concern_turn`` (draw a card: planning section, then the
  first district action whose requirement it meets), followed by the normal Rest.
* :func:`intercept` (the seat kind's) resolves every effect or decision that reaches its seat
  by its own rules (goods as a count, no limits, highest travel die, follow rule, deliveries
  by goods count, good fortunes from its card). A decision the rules leave to "the player"
  becomes a ``concern_choice`` decision of the creator's seat (the first player's seat), so
  the game never waits for the Private Concern.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypedDict, cast

from darkroad.core import (
    COMMISSION_PRESTIGE,
    DARK_MARKET_SPACES,
    EFFECT_RESOURCE,
    HUMAN,
    RUINS_SPACES,
    Choice,
    Content,
    Ctx,
    Game,
    Option,
    Player,
    ScoreLine,
    Step,
    Task,
    deliver_commission,
    deliver_hero,
    describe_effect,
    roll_ruins_die,
    shortcut_cost,
)
from darkroad.core import resolve_effect as resolve_core_effect

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
FORTUNES_KEY = "concern_fortunes"
"""Its key of the caravan's ``extra`` (and of ``game.turn.extra`` until its route is declared):
the good fortunes its action card lets it take."""
DEFAULT_FORTUNES = ("coins", "illuminated")
EFFECT_VERBS = frozenset({*EFFECT_RESOURCE, "good", "lose_good", "upgrade_good", "downgrade_good", "hero",
                          "lose_hero", "deliver_hero", "commission", "deed", "illuminated", "ruins", "dark_market",
                          "ruins_die", "illuminated_reroll", "nothing"})


class Concern(TypedDict):
    """The Private Concern's own state (``Player.extra["concern"]``): goods as a count (no
    tiles, no storage grid) and its deck of action cards (index 0 is the top; the deck is
    secret, the discard pile public)."""

    goods: int
    deck: list[str]
    discard: list[str]


# -- seats --------------------------------------------------------------------------------------


def creator(game: Game) -> int:
    """The seat that decides where the Trader rules say "player's choice": the first player's seat."""
    return next(p.seat for p in game.players if p.kind == HUMAN)


def is_solo(game: Game) -> bool:
    """One player against the Private Concern (2 seats)."""
    return len(game.players) == 2


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


# -- setup --------------------------------------------------------------------------------------


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


# -- counted resources --------------------------------------------------------------------------


def add(ctx: Ctx, seat: int, resource: str, n: int, source: str = "") -> int:
    """Gain or lose a counted resource (``goods`` too), never below 0 and with no limit."""
    concern = state(ctx.game, seat)
    p = ctx.player(seat)
    have: int = concern["goods"] if resource == "goods" else getattr(p, resource)
    new = max(0, have + n)
    if new == have:
        return 0
    if resource == "goods":
        concern["goods"] = new
    else:
        setattr(p, resource, new)
    ctx.emit("gained" if n > 0 else "lost", seat, private=resource == "coins", resource=resource,
             amount=abs(new - have), source=source)
    return new - have


def gain_goods(ctx: Ctx, seat: int, n: int, upgraded: bool = False, source: str = "") -> None:
    """Goods are a count; an upgraded good is 1 good and 1 blazing quartz."""
    add(ctx, seat, "goods", n, source)
    if upgraded:
        add(ctx, seat, "quartz", n, source)


def gain_illuminated(ctx: Ctx, seat: int, source: str = "") -> None:
    value = ctx.roll() - 1
    ctx.player(seat).special.append(value)
    ctx.emit("gained", seat, resource="illuminated", amount=1, value=value, source=source)


def gain_hero(ctx: Ctx, seat: int, hero: str, source: str = "") -> None:
    """A hero joins (no limit) and gives its lantern or horseshoe at once."""
    ctx.player(seat).heroes.append(hero)
    ctx.emit("hero_joined", seat, hero=hero, source=source)
    hero_bonus(ctx, seat, hero)


def hero_bonus(ctx: Ctx, seat: int, hero: str) -> None:
    bonus = ctx.content.heroes[hero].bonus
    if bonus == "lantern":
        add(ctx, seat, "lanterns", 1, f"hero:{hero}")
    elif bonus == "horseshoe":
        add(ctx, seat, "horseshoes", 1, f"hero:{hero}")


def gain_commission(ctx: Ctx, seat: int, town: str, source: str = "") -> None:
    stack = ctx.game.board.commission_stacks.get(town)
    if stack:
        commission = stack.pop(0)
        ctx.player(seat).commissions.append(commission)
        ctx.emit("commission_gained", seat, commission=commission, source=source)


def gain_deed(ctx: Ctx, seat: int, where: str, source: str = "") -> None:
    """``where``: ``courtyard:<slot>`` (with the banner's bonus) or ``deck``. An empty
    courtyard slot falls back to the other slot, then to the deck."""
    b = ctx.game.board
    wanted = int(where.split(":")[1]) if where.startswith("courtyard") else None
    order = [wanted] + [i for i in range(len(b.courtyard)) if i != wanted] if wanted is not None else []
    slot = next((i for i in order if i is not None and i < len(b.courtyard) and b.courtyard[i]), None)
    bonus: Sequence[str] = ()
    if slot is not None:
        deed, b.courtyard[slot] = b.courtyard[slot], None
        assert deed is not None  # the slot was chosen for holding a deed
        if slot < len(ctx.content.courtyard_banners):
            bonus = ctx.content.courtyard_banners[slot]
    elif b.deed_deck:
        deed = b.deed_deck.pop(0)
    else:
        return
    ctx.player(seat).deeds.append(deed)
    ctx.emit("deed_gained", seat, source=source)
    ctx.emit("deed_gained_private", seat, private=True, deed=deed)
    ctx.gain_effects(seat, bonus, source="courtyard banner")


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


def _anchor(candidates: Sequence[Any], order: Sequence[Any], start: Any) -> Any:
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
    prompt = "choose for the Private Concern"
    logs_answer = True  # its concern_choice event names the answer
    inside_gain = True  # part of the Private Concern's action: the creator's abilities wait

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        return [(o, label) for o, label in task.data["options"]]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        ctx.emit("concern_choice", seat, concern=task.data["concern"], what=task.data["what"], option=option)
        CHOICES[task.data["what"]](ctx, task.data["concern"], option, task.data)

    def describe(self, ctx: Ctx, task: Task) -> str:
        return f"choose for the Private Concern: {task.data['prompt']}"


def _choose_effect(ctx: Ctx, seat: int, option: str, data: Mapping[str, Any]) -> None:
    resolve_effect(ctx, seat, option, data.get("source", ""))


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


def _effect_options(ctx: Ctx, seat: int, effects: Sequence[str]) -> list[Option]:
    return [(e, f"the Private Concern: {describe_effect(ctx, e)}") for e in effects]


def _town_options(ctx: Ctx, towns: Sequence[str], verb: str) -> list[Option]:
    return [(f"town:{t}", f"the Private Concern {verb} {ctx.content.towns[t].name}") for t in towns]


# -- effects ------------------------------------------------------------------------------------------


def resolve_effect(ctx: Ctx, seat: int, effect: str, source: str = "") -> None:
    """Resolve an effect string (see :mod:`effects`) for the Private Concern."""
    verb, _, arg = effect.partition(":")
    b = ctx.game.board
    p = ctx.player(seat)
    if verb in EFFECT_RESOURCE:
        add(ctx, seat, EFFECT_RESOURCE[verb], int(arg), source)
    elif verb == "good":
        gain_goods(ctx, seat, 1, upgraded=arg.endswith("+"), source=source)
    elif verb == "lose_good":
        add(ctx, seat, "goods", -1, source)
    elif verb == "upgrade_good":
        if state(ctx.game, seat)["goods"]:
            add(ctx, seat, "quartz", 1, source)  # its good becomes an upgraded one
    elif verb == "downgrade_good":
        add(ctx, seat, "quartz", -1, source)
    elif verb == "hero":
        if arg == "deck":
            hero = ctx.draw_hero()
            if hero:
                gain_hero(ctx, seat, hero, source)
        elif arg:
            i = int(arg.split(":")[1])
            if i in inn_slots(ctx):  # not when empty, or engaged by a sale at the Ringway Inn
                hero, b.inn[i] = b.inn[i], None
                assert hero is not None
                gain_hero(ctx, seat, hero, source)
        else:
            # The inn hero matching most of its heroes + commissions; a tie (or no match:
            # then the deck's top hero is a candidate too) is the creator's choice.
            slots, decided = inn_candidates(ctx, seat)
            opts = [f"hero:inn:{i}" for i in slots]
            if not decided and b.hero_deck and not _matching(ctx, seat, slots):
                opts.append("hero:deck")
            ask(ctx, seat, "effect", _effect_options(ctx, seat, opts), "which hero it gains", source=source)
    elif verb in ("lose_hero", "deliver_hero"):
        if arg:
            if arg in p.heroes:
                if verb == "lose_hero":
                    p.heroes.remove(arg)
                    ctx.return_hero(arg)
                    ctx.emit("hero_lost", seat, hero=arg, source=source)
                else:
                    deliver_hero(ctx, seat, arg, source)
        else:
            what = "loses" if verb == "lose_hero" else "delivers"
            ask(ctx, seat, "effect", _effect_options(ctx, seat, [f"{verb}:{h}" for h in p.heroes]),
                f"which hero it {what}", source=source)
    elif verb == "commission":
        if arg:
            gain_commission(ctx, seat, arg, source)
        else:
            tied, decided = commission_candidates(ctx, seat)
            ask(ctx, seat, "effect", _effect_options(ctx, seat, [f"commission:{t}" for t in tied]),
                "which commission it takes", source=source)
    elif verb == "deed":
        if arg:
            gain_deed(ctx, seat, arg, source)
        else:
            opts = [f"deed:courtyard:{i}" for i, d in enumerate(b.courtyard) if d]
            opts += ["deed:deck"] if b.deed_deck else []
            ask(ctx, seat, "effect", _effect_options(ctx, seat, opts), "which deed it takes", source=source)
    elif verb == "illuminated":
        gain_illuminated(ctx, seat, source)
    elif verb == "ruins":
        move_ruins(ctx, seat, int(arg) if arg else 1)
    elif verb == "dark_market":
        move_dark_market(ctx, seat, int(arg), south=None)
    elif verb == "ruins_die":
        roll_ruins_die(ctx, seat)
    elif verb == "illuminated_reroll":
        roll_ruins_die(ctx, seat, rerolling=True)
    elif verb == "nothing":
        return
    else:  # an effect a plugin defines: the core resolves it (its decisions are relayed)
        resolve_core_effect(ctx, seat, effect, source)


def _matching(ctx: Ctx, seat: int, slots: Sequence[int]) -> bool:
    counts = town_counts(ctx, seat)
    inn = inn_slots(ctx)
    return any(counts[ctx.content.heroes[inn[i]].town][0] for i in slots if i in inn)


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
            gain_deed(ctx, seat, arg, "dark market")
    else:
        ask(ctx, seat, "effect", _effect_options(ctx, seat, ["commission", "deed"]),
            "a commission or a deed from the dark market", source="dark market")


def take_commission(ctx: Ctx, seat: int, noted: str, source: str) -> None:
    """The Trader's commission rule with a card: the town it holds most heroes + commissions
    for; a tie (or none) goes to the noted town, or the next town after it in the tie."""
    tied, decided = commission_candidates(ctx, seat)
    if not tied:
        return
    town = tied[0] if decided else _anchor(tied, list(ctx.content.towns), noted)
    gain_commission(ctx, seat, town, source)


# -- deliveries -------------------------------------------------------------------------------------


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
    add(ctx, seat, "goods", -len(goods), source)


def visit(ctx: Ctx, seat: int, towns: Sequence[str]) -> None:
    """Deliver in the town of ``towns`` with most heroes + commissions, then most commissions;
    still tied: the creator chooses. Nothing for any of them: visit no town."""
    tied = best_towns(ctx, seat, towns)
    if not tied:
        ctx.emit("town_visited", seat, town=None)
        return
    ask(ctx, seat, "deliver", _town_options(ctx, tied, "delivers in"), "the town it delivers to")


# -- the turn ------------------------------------------------------------------------------------------


class ConcernTurn(Step):
    """The Trader's turn: draw the top action card (reshuffle the discards when the deck is
    out), move the wagon to the card's space and gain its planning reward (the illuminated-die
    option returns one of its illuminated dice instead, when it holds one); then
    ``concern_action`` performs the card's first district action whose requirement it meets."""

    kind = "concern_turn"

    def run(self, ctx: Ctx, task: Task) -> None:
        seat, g = task.seat, ctx.game
        p, concern = ctx.player(seat), state(g, seat)
        g.phase = "activate"
        for card in p.companions:  # a stray passed to it: it does not collect companions
            g.board.companion_deck.append(card.card)
            ctx.emit("companion_returned", seat, card=card.card)
        p.companions = []
        if not concern["deck"]:
            concern["deck"], concern["discard"] = concern["discard"], []
            ctx.shuffle(concern["deck"])
            ctx.emit("concern_deck_shuffled", seat, cards=len(concern["deck"]))
        card_id = concern["deck"].pop(0)
        concern["discard"].append(card_id)
        action_card = cards(ctx.content)[card_id]
        plan = action_card["planning"]
        ctx.emit("concern_card", seat, card=card_id, name=action_card.get("name", card_id))
        old, p.position = p.position, int(plan["space"])
        ctx.emit("moved", seat, steps=(p.position - old) % SPACES, position=p.position)
        ctx.push("concern_action", seat, card=card_id)
        if plan.get("illuminated") and p.special:
            p.special.pop(0)
            ctx.emit("illuminated_returned", seat)
            ctx.gain_effects(seat, plan["illuminated"], source=f"planning:{card_id}")
        else:
            ctx.gain_effects(seat, plan["reward"], source=f"planning:{card_id}")


class ConcernAction(Step):
    """Check the card's district actions top to bottom; perform the first whose requirement
    the Private Concern meets (and that can be done now)."""

    kind = "concern_action"

    def run(self, ctx: Ctx, task: Task) -> None:
        seat, card_id = task.seat, task.data["card"]
        for i, action in enumerate(cards(ctx.content)[card_id]["actions"]):
            if meets(ctx, seat, action):
                ctx.emit("concern_action", seat, card=card_id, index=i, action=action["action"],
                         district=DISTRICT_OF[action["action"]])
                PERFORM[action["action"]](ctx, seat, action)
                return
        ctx.emit("concern_action", seat, card=card_id, index=None, action=None, district=None)


def meets(ctx: Ctx, seat: int, action: Mapping[str, Any]) -> bool:
    p = ctx.player(seat)
    goods = state(ctx.game, seat)["goods"]
    if goods > action.get("max_goods", goods) or goods < action.get("min_goods", goods):
        return False
    n = len(p.commissions)
    if n > action.get("max_commissions", n) or n < action.get("min_commissions", n):
        return False
    return FEASIBLE[action["action"]](ctx, seat, action)


def _can_travel(ctx: Ctx, seat: int, action: Mapping[str, Any]) -> bool:
    """At least 1 commission, or 2 heroes for the same town."""
    p, c = ctx.player(seat), ctx.content
    if p.commissions:
        return True
    towns = [c.heroes[h].town for h in p.heroes]
    return any(towns.count(t) >= 2 for t in set(towns))


FEASIBLE: dict[str, Callable[[Ctx, int, Mapping[str, Any]], bool]] = {
    "bazaar": lambda ctx, seat, a: True,
    "commission": lambda ctx, seat, a: any(ctx.game.board.commission_stacks.values()),
    "travel": _can_travel,
    "ruins": lambda ctx, seat, a: True,
    "dark_market": lambda ctx, seat, a: ctx.player(seat).coins >= int(a["move"]),
    "inn": lambda ctx, seat, a: state(ctx.game, seat)["goods"] > 0 and bool(inn_slots(ctx)),
}


def do_bazaar(ctx: Ctx, seat: int, action: Mapping[str, Any]) -> None:
    """Rotate the wheel; take every market die showing one of the card's 3 goods, 1 good each,
    without paying (none: 1 good from the supply). The dice are rerolled in Rest."""
    b = ctx.game.board
    ctx.rotate_wheel(seat)
    taken = 0
    for kind in action["goods"]:
        i = ctx.content.good_index[kind]
        for _ in range(b.market[i]):
            ctx.emit("bought", seat, good=kind, cost=0)
        taken += b.market[i]
        b.set_aside += b.market[i]
        b.market[i] = 0
    gain_goods(ctx, seat, taken or 1, source="great bazaar")


def do_commission(ctx: Ctx, seat: int, action: Mapping[str, Any]) -> None:
    take_commission(ctx, seat, action["town"], "queen's commissions")


def do_travel(ctx: Ctx, seat: int, action: Mapping[str, Any]) -> None:
    """Discard the companion of the noted slot (the farthest brings its travel die), choose
    the destination, declare the route (shortcut with 3 lanterns) and lead the caravan."""
    g, b = ctx.game, ctx.game.board
    ctx.emit("excursion", seat, choice="caravan")
    slot = action["companion"]
    card = b.companion_row[slot]
    extra = False
    if card:
        b.companion_row[slot] = None
        b.companion_deck.append(card)  # it does not collect companions: under the deck
        extra = slot == COMPANION_SLOTS - 1
        ctx.emit("companion_discarded", seat, card=card, travel_die=extra)
    g.turn.extra_die = extra
    g.turn.extra[FORTUNES_KEY] = list(action.get("good_fortune") or DEFAULT_FORTUNES)
    tied = best_towns(ctx, seat, list(ctx.content.towns))
    ask(ctx, seat, "destination", _town_options(ctx, tied, "travels to"), "the destination of its caravan")


def declare(ctx: Ctx, seat: int, town: str) -> None:
    route = "shortcut" if ctx.player(seat).lanterns >= shortcut_cost(ctx, seat) else "dark_road"
    ctx.engine.steps["caravan_route"].choose(ctx, Task(kind="caravan_route", seat=seat), seat, f"{route}:{town}")
    turn = ctx.game.turn
    assert turn.caravan is not None  # just declared
    turn.caravan.extra[FORTUNES_KEY] = turn.extra.pop(FORTUNES_KEY, list(DEFAULT_FORTUNES))


def do_ruins(ctx: Ctx, seat: int, action: Mapping[str, Any]) -> None:
    """Move the ruins marker the card's number of spaces (1 good + 1 blazing quartz); then,
    with a lantern, return it and roll the ruins die."""
    move_ruins(ctx, seat, int(action["move"]))
    if ctx.player(seat).lanterns:
        add(ctx, seat, "lanterns", -1, "ruins die")
        roll_ruins_die(ctx, seat)


def do_dark_market(ctx: Ctx, seat: int, action: Mapping[str, Any]) -> None:
    """Pay the card's number of coins to move the marker that many spaces (only the bazaar is
    free for it); north, east, west: 2 goods; south: the card's noted commission or deed."""
    n = int(action["move"])
    ctx.pay(seat, "coins", n, "dark market")
    move_dark_market(ctx, seat, n, south=action["south"])


def do_inn(ctx: Ctx, seat: int, action: Mapping[str, Any]) -> None:
    """Sell to the inn hero matching its heroes + commissions (a tie or none: the noted slot,
    or the next one after it): up to the card's number of goods, one per request, for the
    current values of the hero's most valuable requests; the hero joins with its bonus."""
    b = ctx.game.board
    tied, decided = inn_candidates(ctx, seat)
    slot = tied[0] if decided else _anchor(tied, list(range(INN_SLOTS)), int(action["hero"]))
    hero = b.inn[slot]
    assert hero is not None
    requests = ctx.content.heroes[hero].requests
    n = min(int(action["sell"]), len(requests), state(ctx.game, seat)["goods"])
    coins = sum(sorted((ctx.value(r) for r in requests), reverse=True)[:n])
    add(ctx, seat, "goods", -n, "sold at the ringway inn")
    ctx.emit("concern_sold", seat, hero=hero, goods_count=n, coins=coins)
    add(ctx, seat, "coins", coins, "ringway inn")
    b.inn[slot] = None
    gain_hero(ctx, seat, hero, "ringway inn")


PERFORM: dict[str, Callable[[Ctx, int, Mapping[str, Any]], None]] = {
    "bazaar": do_bazaar,
    "commission": do_commission,
    "travel": do_travel,
    "ruins": do_ruins,
    "dark_market": do_dark_market,
    "inn": do_inn,
}


# -- the engine's hand-off: steps that reach the Private Concern's seat --------------------------------


def intercept(ctx: Ctx, task: Task, step: Step, seat: int) -> bool:
    """Resolve ``task`` (the top of the stack), a step that reached the Private Concern's
    ``seat``, by its rules: an effect or a hero's bonus of its seat, or any decision awaiting it
    (the seat kind's :meth:`~darkroad.core.SeatKind.intercept`)."""
    if not step.decision:
        auto = AUTOMATIC.get(task.kind)
        if auto is None:
            return False  # any other automatic step runs as for a player
        ctx.game.stack.pop()
        auto(ctx, task)
        return True
    DECISIONS.get(task.kind, _relay)(ctx, task, step, seat)
    return True


def _auto_effect(ctx: Ctx, task: Task) -> None:
    resolve_effect(ctx, task.seat, task.data["e"], task.data.get("source", ""))


def _auto_hero_bonus(ctx: Ctx, task: Task) -> None:
    if task.data["hero"] in ctx.player(task.seat).heroes:
        hero_bonus(ctx, task.seat, task.data["hero"])


AUTOMATIC: dict[str, Callable[[Ctx, Task], None]] = {"effect": _auto_effect, "hero_bonus": _auto_hero_bonus}


def _join(ctx: Ctx, task: Task, step: Step, seat: int) -> None:
    """It follows when it has heroes or commissions for the caravan's region, or a lantern."""
    ctx.game.stack.pop()
    c, p = ctx.game.turn.caravan, ctx.player(seat)
    assert c is not None  # a join decision: a caravan under way
    region = set(ctx.content.region_towns(c.town))
    follows = p.lanterns > 0 or any(ctx.content.heroes[h].town in region for h in p.heroes) or any(
        ctx.content.commissions[m].town in region for m in p.commissions)
    step.choose(ctx, task, seat, "yes" if follows else "no")


def _travel_die(ctx: Ctx, task: Task, step: Step, seat: int) -> None:
    """The highest die; it never rerolls."""
    ctx.game.stack.pop()
    c = ctx.game.turn.caravan
    assert c is not None and c.dice  # a travel die decision: dice rolled
    step.choose(ctx, task, seat, f"take:{max(c.dice)}")


def _deliveries(ctx: Ctx, task: Task, step: Step, seat: int) -> None:
    """Its part of the simultaneous deliveries: the leader in the declared town, a follower in
    a town of the region, the final travel in any town (:func:`visit`)."""
    ctx.game.stack.pop()
    data = {**task.data, "town": dict(task.data["town"]), "pending": [s for s in task.data["pending"] if s != seat]}
    if data["pending"]:
        ctx.push(task.kind, task.seat, **data)
    if data["final"]:
        towns = list(ctx.content.towns)
    else:
        c = ctx.game.turn.caravan
        assert c is not None  # a caravan's deliveries
        towns = [c.town] if seat == c.leader else ctx.content.region_towns(c.town)
    visit(ctx, seat, towns)


def _good_fortune(ctx: Ctx, task: Task, step: Step, seat: int) -> None:
    """The good fortune(s) listed on the card it travelled with: the first on the dark road,
    both on the shortcut."""
    ctx.game.stack.pop()
    c = ctx.game.turn.caravan
    fortunes = list((c.extra.get(FORTUNES_KEY) if c is not None else None) or DEFAULT_FORTUNES)
    for fortune in (fortunes * 2)[: task.data.get("left", 1)]:
        take_fortune(ctx, seat, fortune)


def take_fortune(ctx: Ctx, seat: int, fortune: str) -> None:
    b = ctx.game.board
    ctx.emit("good_fortune", seat, choice=fortune.partition(":")[0])
    if fortune == "coins":
        first, later = ctx.content.good_fortune_coins
        add(ctx, seat, "coins", first if b.five_coins else later, "good fortune")
        b.five_coins = False
    elif fortune == "illuminated":
        gain_illuminated(ctx, seat, "good fortune")
    else:
        gain_deed(ctx, seat, fortune.partition(":")[2], "good fortune")


def _no_limit(ctx: Ctx, task: Task, step: Step, seat: int) -> None:
    """It has no limit on heroes, commissions, lanterns or inventory: nothing to discard."""
    ctx.game.stack.pop()


def _choose_effect_step(ctx: Ctx, task: Task, step: Step, seat: int) -> None:
    """A choice of effects pushed for its seat (by a plugin's effect): the creator picks, and
    the pick resolves by its rules (goods as a count)."""
    ctx.game.stack.pop()
    opts = [(o, f"the Private Concern: {label}") for o, label in step.options(ctx, task, seat)]
    ask(ctx, seat, "effect", opts, step.describe(ctx, task), source=task.data.get("source", ""))


def _relay(ctx: Ctx, task: Task, step: Step, seat: int) -> None:
    """Any other decision of its seat (a plugin's): the creator chooses among its options."""
    ctx.game.stack.pop()
    opts = list(step.options(ctx, task, seat))
    if len(opts) == 1:
        step.choose(ctx, task, seat, opts[0][0])
    elif opts:
        ask(ctx, seat, "relay", [(o, f"the Private Concern: {label}") for o, label in opts],
            step.describe(ctx, task), task={"kind": task.kind, "seat": task.seat, "data": task.data})


DECISIONS: dict[str, Callable[[Ctx, Task, Step, int], None]] = {
    "caravan_join": _join,
    "travel_die": _travel_die,
    "deliveries": _deliveries,
    "good_fortune": _good_fortune,
    "choose_effect": _choose_effect_step,
    "discard_good": _no_limit,
    "discard_hero": _no_limit,
    "discard_commission": _no_limit,
    "discard_inventory": _no_limit,
}


# -- scoring and views ------------------------------------------------------------------------------------


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


STEPS: list[Step] = [ConcernTurn(), ConcernAction(), ConcernChoice()]
