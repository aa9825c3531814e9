"""A test plugin that implements every darkroad hook (in the manner of datasette's tests/plugins).

Register it only in tests that ask for it, on an engine of their own::

    Table.new(players=2, seed=1, plugins=[("recorder", recorder_plugin)])
    Engine.load(extra=[("recorder", recorder_plugin)])

Every implementation logs its calls in :data:`CALLS` (hook, arguments, its own return
value): a record that does not depend on how the engine calls hooks (:func:`calls`).

Registration hooks always contribute:

* a content pack with one commission, ``"test_commission"`` for Northbreak;
* the fan building ``"test_tower"`` (activating it pushes the ``"test_tower_bell"``
  decision), the loyal fan companion ``"test_familiar"`` (one card,
  ``"test_familiar-1"``: gain 3 coins / gain 1 prestige, each for 1 blazing quartz that
  stays on the card) and the deed ``"test_deed"``;
* the step ``"test_tower_bell"``;
* the bot ``"test_first"`` (always the first legal action);
* the seat kind ``"test_peddler"`` (game option ``test_peddler: true``): an automated seat
  whose turn is its own step ``"test_peddler_turn"`` (gain 2 coins, emit
  ``"test_peddler_sold"``), which answers every decision awaiting it with its first option
  and scores its coins only; the event type ``"test_peddler_sold"`` is documented, and so is
  its API surface (its request field ``test_peddler`` and its seat's view block ``peddler``).

Rule-point hooks answer only when the game asks them to: a hook answers when its name is
in ``ctx.game.board.extra["_test_hooks"]`` (see :func:`ask`). A game that does not ask
plays as it would without the plugin, apart from the extra cards in its decks. What the
hooks see at the moment they are called is kept in ``board.extra["_test_seen"]`` (the
leading ``_`` keeps it out of views).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import attrs

from darkroad.core import (
    Action,
    Bot,
    Choice,
    Component,
    Ctx,
    EventType,
    Game,
    InfoState,
    Option,
    Player,
    ScoreLine,
    SeatKind,
    Step,
    Task,
    ViewBlock,
    hookimpl,
)

__version__ = "0.0.1"

TOWER = "test_tower"
FAMILIAR = "test_familiar"
FAMILIAR_CARD = f"{FAMILIAR}-1"
DEED = "test_deed"
COMMISSION = "test_commission"
BELL = "test_tower_bell"
PEDDLER = "test_peddler"
PEDDLER_TURN = "test_peddler_turn"
PEDDLER_SOLD = "test_peddler_sold"
PEDDLER_COINS = 2
MARKER = "_test_hooks"
SEEN = "_test_seen"
SOURCE = "test_recorder"

FAMILIAR_ABILITIES = (["coins:3"], ["prestige:1"])
"""Effects of the familiar's two abilities, by ability index."""

F = TypeVar("F", bound=Callable[..., Any])


@attrs.define
class Call:
    """One call of one of this plugin's hook implementations."""

    hook: str
    kwargs: dict[str, Any]
    result: Any = None


CALLS: list[Call] = []
"""Every call of this plugin's implementations, in the order they returned (clear it
before a test)."""


def recorded(fn: F) -> F:
    """Log every call of ``fn`` in :data:`CALLS` (the signature stays visible to pluggy)."""
    names = tuple(inspect.signature(fn).parameters)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        result = fn(*args, **kwargs)
        CALLS.append(Call(fn.__name__, {**dict(zip(names, args, strict=False)), **kwargs}, result))
        return result

    return wrapper  # type: ignore[return-value]


def calls(hook: str, game: Game | None = None) -> list[Call]:
    """The logged calls of ``hook`` (about ``game`` only, when given)."""
    return [c for c in CALLS if c.hook == hook and (game is None or (
        "ctx" in c.kwargs and c.kwargs["ctx"].game is game))]

# Recognisable answers of the rule-point hooks when asked.
SLOT_ACTION_COINS = 10
MOVEMENT = 4
BAZAAR_DISCOUNT = 1
RUINS_DIE_COST = 2
SHORTCUT_COST = 1
TRAVEL_DIE_BONUS = 2
STORAGE_ANY_SLOTS = 1
CAPACITY = 1
UPGRADE_LIMIT = 2
DEED_VP = 7
WAVE = f"x:{TOWER}:wave"
SKIP = f"x:{TOWER}:skip"


def ask(game: Game, *hooks: str) -> None:
    """Make the rule-point ``hooks`` answer in ``game`` (test helper)."""
    asked = game.board.extra.setdefault(MARKER, [])
    asked.extend(h for h in hooks if h not in asked)


def asked(ctx: Ctx, hook: str) -> bool:
    return hook in ctx.game.board.extra.get(MARKER, ())


def seen(ctx: Ctx, hook: str, **facts: Any) -> None:
    """Keep what ``hook`` saw when it was called (one entry per call)."""
    ctx.game.board.extra.setdefault(SEEN, {}).setdefault(hook, []).append(facts)


def seen_in(game: Game, hook: str) -> list[dict[str, Any]]:
    """What ``hook`` saw, one entry per call (test helper)."""
    return list(game.board.extra.get(SEEN, {}).get(hook, []))


# -- registration ------------------------------------------------------------------------


class TowerBell(Choice):
    """The Test Tower's decision: ring the bell (gain 1 coin) or leave."""

    kind = BELL
    prompt = "Test Tower: ring the bell?"

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        return [("ring", "ring the bell: gain 1 coin"), ("leave", "leave the bell alone")]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        if option == "ring":
            ctx.gain_effects(seat, ["coins:1"], source=TOWER)


@hookimpl
@recorded
def darkroad_content() -> Mapping[str, Any] | None:
    return {"commissions": [{"id": COMMISSION, "town": "northbreak", "requests": ["potion", "book", "staff"]}]}


@hookimpl
@recorded
def darkroad_components() -> Sequence[Component] | None:
    abilities = [{"id": "0", "text": "Gain 3 coins.", "gift": "quartz"},
                 {"id": "1", "text": "Gain 1 prestige.", "gift": "quartz"}]
    return [
        Component("building", TOWER, "Test Tower", "Ring the bell: gain 1 coin."),
        Component("companion", FAMILIAR, "Test Familiar", "Gain 3 coins. / Gain 1 prestige.",
                  {"loyalty": "loyal", "copies": 1, "abilities": abilities}),
        Component("deed", DEED, "Test Deed", "At the end of the game, if the test asks: gain 7 VP.",
                  {"reward": "vp", "amount": DEED_VP}),
    ]


class PeddlerTurn(Step):
    """The test peddler's whole turn: it sells its wares (gain 2 coins)."""

    kind = PEDDLER_TURN

    def run(self, ctx: Ctx, task: Task) -> None:
        ctx.gain_effects(task.seat, [f"coins:{PEDDLER_COINS}"], source=PEDDLER)
        ctx.player(task.seat).extra[PEDDLER]["turns"] += 1
        ctx.emit(PEDDLER_SOLD, task.seat, coins=PEDDLER_COINS)


@hookimpl
@recorded
def darkroad_steps() -> Sequence[Step] | None:
    return [TowerBell(), PeddlerTurn()]


class FirstBot(Bot):
    """Always the first legal action (a predictable bot for tests)."""

    id = "test_first"
    name = "First"
    text = "Always answers with the first legal action."

    def decide(self, state: InfoState) -> Action:
        return state.legal[0]


@hookimpl
@recorded
def darkroad_bots() -> Sequence[Bot] | None:
    return [FirstBot()]


class Peddler(SeatKind):
    """A test seat kind: sells its wares every turn, answers every decision with its first
    option, scores its coins."""

    id = PEDDLER
    name = "Test Peddler"
    text = "Gains 2 coins every turn; scores its coins."
    tiebreakers = ("discarded",)
    request_text = "Seat the Test Peddler, who sells its wares every turn, in the last seat"
    view_blocks = (
        ViewBlock("peddler", {"title": "PeddlerView", "type": "object", "required": ["turns"],
                              "properties": {"turns": {"type": "integer", "minimum": 0}}},
                  "The peddler's public state (its seat only): the turns it played."),
    )
    score_notes = {"base": "its coins"}

    def setup(self, ctx: Ctx, seat: int) -> None:
        ctx.player(seat).extra[PEDDLER] = {"turns": 0}

    def turn(self, ctx: Ctx, seat: int) -> Sequence[tuple[str, dict[str, Any]]]:
        return [(PEDDLER_TURN, {})]

    def intercept(self, ctx: Ctx, task: Task, step: Step, seat: int) -> bool:
        if not step.decision:
            return False  # its automatic steps run as a player's
        ctx.game.stack.pop()
        options = step.options(ctx, task, seat)
        if options:
            step.choose(ctx, task, seat, options[0][0])
        return True

    def public(self, player: Player) -> Mapping[str, Any]:
        return {"peddler": {"turns": player.extra[PEDDLER]["turns"]}}

    def score(self, ctx: Ctx, seat: int) -> ScoreLine:
        p = ctx.player(seat)
        return ScoreLine(seat=seat, coins=p.coins, prestige=p.prestige, base=p.coins, deed_vp=0, illuminated_vp=0,
                         total=p.coins, discarded=p.coins, gifts=0, commissions_delivered=0, heroes_delivered=0,
                         details=[f"{p.coins} coins"])


@hookimpl
@recorded
def darkroad_seat_kinds() -> Sequence[SeatKind] | None:
    return [Peddler()]


@hookimpl
@recorded
def darkroad_event_types() -> Mapping[str, EventType] | None:
    return {PEDDLER_SOLD: EventType("The test peddler sold its wares.", {"coins": {"type": "integer"}})}


# -- setup ---------------------------------------------------------------------------------


@hookimpl
@recorded
def darkroad_setup(ctx: Ctx) -> None:
    # Always observed (nothing can ask before the game exists); it changes nothing.
    g = ctx.game
    seen(ctx, "darkroad_setup", players=len(g.players), round=g.round, buildings=list(g.board.buildings),
         deeds=[list(p.deeds) for p in g.players], stack=[t.kind for t in g.stack],
         started=any(e.type == "game_started" for e in ctx.events))


# -- plan / move / activate ------------------------------------------------------------------


@hookimpl
@recorded
def darkroad_slot_action(ctx: Ctx, seat: int, slot: int, last_rounds: bool) -> bool | None:
    if not asked(ctx, "darkroad_slot_action"):
        return None
    ctx.gain_effects(seat, [f"coins:{SLOT_ACTION_COINS}"], source=SOURCE)
    return True


@hookimpl
@recorded
def darkroad_movement_options(ctx: Ctx, seat: int) -> Sequence[int] | None:
    return [MOVEMENT] if asked(ctx, "darkroad_movement_options") else None


@hookimpl
@recorded
def darkroad_building_targets(ctx: Ctx, seat: int, connected: str | None) -> Sequence[str] | None:
    return [TOWER] if asked(ctx, "darkroad_building_targets") else None


@hookimpl
@recorded
def darkroad_activate_building(ctx: Ctx, seat: int, building: str) -> bool | None:
    if building != TOWER:
        return None
    ctx.push(BELL, seat)
    return True


@hookimpl
@recorded
def darkroad_bazaar_discount(ctx: Ctx, seat: int) -> int | None:
    return BAZAAR_DISCOUNT if asked(ctx, "darkroad_bazaar_discount") else None


@hookimpl
@recorded
def darkroad_excursion(ctx: Ctx, seat: int, choice: str) -> None:
    if not asked(ctx, "darkroad_excursion"):
        return
    p = ctx.player(seat)
    seen(ctx, "darkroad_excursion", choice=choice, top=ctx.game.stack[-1].kind, ruins=ctx.game.board.ruins,
         companions=len(p.companions), caravan=ctx.game.turn.caravan is not None)
    ctx.gain_effects(seat, ["coins:1"], source=SOURCE)


@hookimpl
@recorded
def darkroad_ruins_die_cost(ctx: Ctx, seat: int) -> int | None:
    return RUINS_DIE_COST if asked(ctx, "darkroad_ruins_die_cost") else None


# -- caravans ------------------------------------------------------------------------------


@hookimpl
@recorded
def darkroad_shortcut_cost(ctx: Ctx, seat: int) -> int | None:
    return SHORTCUT_COST if asked(ctx, "darkroad_shortcut_cost") else None


@hookimpl
@recorded
def darkroad_travel_die_bonus(ctx: Ctx, seat: int) -> Sequence[int] | None:
    return [TRAVEL_DIE_BONUS] if asked(ctx, "darkroad_travel_die_bonus") else None


@hookimpl
@recorded
def darkroad_commission_delivered(ctx: Ctx, seat: int, commission: str, goods: Sequence[str]) -> None:
    if not asked(ctx, "darkroad_commission_delivered"):
        return
    p = ctx.player(seat)
    seen(ctx, "darkroad_commission_delivered", prestige=p.prestige, goods=list(p.goods),
         delivered=list(p.delivered_commissions), commissions=list(p.commissions))
    ctx.gain_effects(seat, ["coins:1"], source=SOURCE)


@hookimpl
@recorded
def darkroad_hero_delivered(ctx: Ctx, seat: int, hero: str) -> None:
    if not asked(ctx, "darkroad_hero_delivered"):
        return
    p = ctx.player(seat)
    seen(ctx, "darkroad_hero_delivered", coins=p.coins, prestige=p.prestige, heroes=list(p.heroes),
         delivered=list(p.delivered_heroes))
    ctx.gain_effects(seat, ["quartz:1"], source=SOURCE)


# -- effects and gains ----------------------------------------------------------------------

GLOW = "test_glow"
"""A verb of its own: ``test_glow:N`` gains N lanterns (always resolved by this plugin)."""


@hookimpl
@recorded
def darkroad_resolve_effect(ctx: Ctx, seat: int, verb: str, arg: str, source: str) -> bool | None:
    if verb == GLOW:
        ctx.add(seat, "lanterns", int(arg), source)
        return True
    if verb == "coins" and asked(ctx, "darkroad_resolve_effect"):  # asked: coins come as prestige
        ctx.add(seat, "prestige", int(arg), source)
        return True
    return None


@hookimpl
@recorded
def darkroad_gain_hero(ctx: Ctx, seat: int, hero: str, bonus: bool, source: str) -> bool | None:
    if not asked(ctx, "darkroad_gain_hero"):
        return None
    ctx.player(seat).heroes.append(hero)  # no limit, and a coin for a bonus
    ctx.emit("hero_joined", seat, hero=hero, source=source)
    if bonus:
        ctx.add(seat, "coins", 1, SOURCE)
    return True


@hookimpl
@recorded
def darkroad_limit_applies(ctx: Ctx, seat: int, kind: str) -> bool | None:
    return False if asked(ctx, "darkroad_limit_applies") else None


# -- automated seats --------------------------------------------------------------------------


@hookimpl
@recorded
def darkroad_caravan_join(ctx: Ctx, seat: int) -> bool | None:
    return False if asked(ctx, "darkroad_caravan_join") else None  # asked: it stays home


@hookimpl
@recorded
def darkroad_travel_die(ctx: Ctx, seat: int) -> int | None:
    caravan = ctx.game.turn.caravan
    if not asked(ctx, "darkroad_travel_die") or caravan is None or not caravan.dice:
        return None
    return max(caravan.dice)


@hookimpl
@recorded
def darkroad_deliveries(ctx: Ctx, seat: int, towns: Sequence[str]) -> bool | None:
    if not asked(ctx, "darkroad_deliveries"):
        return None
    seen(ctx, "darkroad_deliveries", seat=seat, towns=list(towns))
    ctx.emit("town_visited", seat, town=None)  # it visits no town
    return True


@hookimpl
@recorded
def darkroad_good_fortune(ctx: Ctx, seat: int, count: int) -> bool | None:
    if not asked(ctx, "darkroad_good_fortune"):
        return None
    for _ in range(count):
        ctx.emit("good_fortune", seat, choice="coins")
        ctx.add(seat, "coins", 1, SOURCE)
    return True


# -- wagon ---------------------------------------------------------------------------------


@hookimpl
@recorded
def darkroad_storage_extensions(ctx: Ctx, seat: int) -> Sequence[Mapping[str, Any]] | None:
    return [{"any_slots": STORAGE_ANY_SLOTS}] if asked(ctx, "darkroad_storage_extensions") else None


@hookimpl
@recorded
def darkroad_capacity(ctx: Ctx, seat: int, kind: str) -> int | None:
    return CAPACITY if asked(ctx, "darkroad_capacity") else None


@hookimpl
@recorded
def darkroad_upgrade_limit(ctx: Ctx, seat: int) -> int | None:
    return UPGRADE_LIMIT if asked(ctx, "darkroad_upgrade_limit") else None


@hookimpl
@recorded
def darkroad_upgrade_gained(ctx: Ctx, seat: int, upgrade: str) -> None:
    if not asked(ctx, "darkroad_upgrade_gained"):
        return
    seen(ctx, "darkroad_upgrade_gained", upgrades=list(ctx.player(seat).upgrades),
         stack=list(ctx.game.board.upgrades))
    ctx.gain_effects(seat, ["coins:1"], source=SOURCE)


# -- companions ------------------------------------------------------------------------------


def _familiar_ability(ctx: Ctx, seat: int, option: str) -> tuple[Any, int] | None:
    card_id, _, ability = option.partition(":")
    if card_id != FAMILIAR_CARD or ability not in ("0", "1"):
        return None
    card = next((c for c in ctx.player(seat).companions if c.card == card_id), None)
    return (card, int(ability)) if card is not None else None


@hookimpl
@recorded
def darkroad_companion_options(ctx: Ctx, seat: int) -> Sequence[tuple[str, str]] | None:
    # The familiar is this plugin's own component: it answers whenever its card is held,
    # like any companion (no need to be asked).
    if not ctx.player(seat).quartz:
        return None
    out = []
    for card in ctx.companion_cards(seat, FAMILIAR):
        for i, effects in enumerate(FAMILIAR_ABILITIES):
            if i not in card.gifts:
                out.append((f"{card.card}:{i}", f"Test Familiar (gift 1 blazing quartz): {', '.join(effects)}"))
    return out


@hookimpl
@recorded
def darkroad_companion_use(ctx: Ctx, seat: int, option: str) -> bool | None:
    found = _familiar_ability(ctx, seat, option)
    if found is None:
        return None
    card, ability = found
    ctx.pay(seat, "quartz", 1, f"companion:{card.card}")
    card.gifts.append(ability)
    ctx.emit("companion_used", seat, card=card.card, companion=FAMILIAR, ability=str(ability))
    ctx.gain_effects(seat, FAMILIAR_ABILITIES[ability], source=f"companion:{card.card}")
    return True


# -- any decision ------------------------------------------------------------------------------


@hookimpl
@recorded
def darkroad_decision_options(ctx: Ctx, task: Task, seat: int) -> Sequence[tuple[str, str]] | None:
    if not asked(ctx, "darkroad_decision_options"):
        return None
    return [(WAVE, "wave at the Test Tower (the decision stays)"), (SKIP, "skip this decision")]


@hookimpl
@recorded
def darkroad_decision_choose(ctx: Ctx, task: Task, seat: int, option: str) -> bool | None:
    if option == WAVE:
        ctx.emit("test_waved", seat, decision=task.kind)
        return True
    if option == SKIP:
        ctx.pop(task)
        ctx.emit("test_skipped", seat, decision=task.kind)
        return True
    return None


# -- game end ------------------------------------------------------------------------------------


@hookimpl
@recorded
def darkroad_deed_score(ctx: Ctx, seat: int, deed: str) -> Mapping[str, int] | None:
    if deed != DEED:
        return None
    return {"vp": DEED_VP if asked(ctx, "darkroad_deed_score") else 0}


@hookimpl
@recorded
def darkroad_game_end(ctx: Ctx) -> None:
    # Always observed; it changes nothing.
    g = ctx.game
    seen(ctx, "darkroad_game_end", phase=g.phase, scores=[s.total for s in g.score], winners=list(g.winners),
         finished=any(e.type == "game_finished" for e in ctx.events))
