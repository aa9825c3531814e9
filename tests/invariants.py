"""The rules' invariants, checked after every action of random games (tests/test_properties.py).

:class:`Checker` follows one game. After each action it checks:

* **wagon limits** (rulebook p. 18, "Wagon Overview"): heroes, commissions, inventory
  (blazing quartz + horseshoes) and lanterns within their slots, at most 2 illuminated dice,
  the goods fit the storage, at most 1 wagon upgrade (more with Velvet). A gain beyond a limit is allowed only while the discard for that
  very gain is pending: the overflow discard of that seat is the decision on top of the stack
  (an overflow is settled at once), and the next action is that discard. A seat's limits are
  recomputed whenever its wagon changes (the capacity and storage hooks of the base game and
  the example fan pack read only the seat's own wagon and components);
* **card conservation**: every hero, commission, deed, companion, event card, wagon upgrade
  and steed is in exactly one place (deck, offer, stack, wagon, merchant's log, the draft,
  a pending choice), or, for what setup returns to the box (starting heroes, steeds, the
  solo game's upgrades), in at most one;
* **no count negative**: coins, prestige, lanterns, blazing quartz, horseshoes, the Private
  Concern's goods, dice piles, market dice; every die value on its faces;
* **versions**: every action adds exactly 1 to ``game.version``;
* **replay**: :func:`check_replay` replays the actions from the config through a
  serialise/deserialise round trip at every action (as the API stores a game between
  requests) and compares the state after every action with the one recorded while playing.

Everything here reads the state only; a broken invariant raises :class:`Broken` naming the
game's config, the action and what broke, so a failing seed can be replayed.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from darkroad.core import HUMAN, CompanionCard, Engine, Game, GameConfig, Player, upgrade_limit
from darkroad.core.actions import Action
from darkroad.core.context import Ctx

NIGHT_DICE = 7
MARKET_DICE = 5
MAX_PER_SECTION = 2
DIE_FACES = range(6)
OVERFLOW_DISCARDS = {"heroes": "discard_hero", "commissions": "discard_commission",
                     "inventory": "discard_inventory", "goods": "discard_good"}
"""Limit -> the decision that settles an overflow of it (rulebook p. 18)."""
DISCARD_KINDS = frozenset(OVERFLOW_DISCARDS.values())
MAX_ACTIONS = 20_000


class Broken(AssertionError):
    """An invariant does not hold."""


class Checker:
    """The invariants of one game, checked after every action (cheap: no copy of the game)."""

    def __init__(self, engine: Engine, game: Game) -> None:
        self.engine = engine
        self.config = game.config
        c = engine.content
        self.normal_heroes = frozenset(h for h, card in c.heroes.items() if not card.starting)
        self.starting_heroes = frozenset(h for h, card in c.heroes.items() if card.starting)
        self.commissions = frozenset(c.commissions)
        self.deeds = frozenset(d.id for d in c.of_kind("deed"))
        self.companions = frozenset(engine.companion_deck(game.config))
        self.events = frozenset(c.events)
        self.upgrades = frozenset(u.id for u in c.of_kind("upgrade"))
        self.steeds = frozenset(s.id for s in c.of_kind("steed"))
        self.goods = frozenset(c.good_ids) | frozenset(g + "+" for g in c.good_ids)
        self.solo = any(p.kind != HUMAN for p in game.players) and len(game.players) == 2
        self.version = game.version
        self.over: dict[int, list[str]] = {}
        """Seat -> limits it was over after the last action (its discard must come next)."""
        self.wagons: dict[int, tuple[tuple[Any, ...], list[str]]] = {}
        """Seat -> (its wagon, the limits it is over): limits are recomputed when the wagon
        changes (the capacity and storage hooks read the seat's own components)."""
        self.check(game)

    # -- per action -----------------------------------------------------------------------
    def before(self, game: Game, action: Action) -> None:
        """An action about to be applied: while a seat is over a limit, only that seat's
        overflow discard may be answered."""
        if self.over and not (action.type in DISCARD_KINDS and action.seat in self.over):
            self.fail(game, f"{action.type}/{action.option} by seat {action.seat} while an overflow discard is "
                            f"pending ({self.over})")

    def after(self, game: Game) -> None:
        if game.version != self.version + 1:
            self.fail(game, f"version went from {self.version} to {game.version}")
        self.check(game)

    def check(self, game: Game) -> None:
        self.version = game.version
        self.counts(game)
        self.cards(game)
        self.limits(game)
        broken = self.engine.broken_invariants(game)  # the engine's own (checked in play for fan plugins only)
        if broken:
            self.fail(game, broken)

    def fail(self, game: Game, what: str) -> None:
        raise Broken(f"{what} (config {self.config}, version {game.version}, round {game.round}, "
                     f"stack {[t.kind for t in game.stack][-6:]})")

    # -- no count negative, dice on their faces --------------------------------------------
    def counts(self, game: Game) -> None:
        b = game.board
        market = b.market
        if sum(market) + b.set_aside != MARKET_DICE or min(market) < 0 or max(market) > MAX_PER_SECTION \
                or b.set_aside < 0:
            self.fail(game, f"market dice {market} + {b.set_aside} set aside")
        goods = self.goods
        for p in game.players:
            values = [p.coins, p.prestige, p.lanterns, p.quartz, p.horseshoes, p.spent, p.removed]
            if "concern" in p.extra:  # the Private Concern's goods, a count
                values.append(p.extra["concern"]["goods"])
            for v in values:
                if type(v) is not int or v < 0:
                    self.fail(game, f"seat {p.seat} has a negative or non-integer count: coins, prestige, lanterns, "
                                    f"quartz, horseshoes, spent, removed (, goods) = {values}")
            night = p.spent + p.removed + len(p.reserve)
            for v in p.locked:
                if v is not None:
                    night += 1
                    if not 0 <= v <= 5:
                        self.fail(game, f"seat {p.seat} has a locked die showing {v}")
            for v in p.reserve:
                if not 0 <= v <= 5:
                    self.fail(game, f"seat {p.seat} has a reserve die showing {v}")
            for v in p.special:
                if not 0 <= v <= 5:
                    self.fail(game, f"seat {p.seat} has an illuminated die showing {v}")
            for d in p.pool:
                if not 0 <= d.value <= 5:
                    self.fail(game, f"seat {p.seat} has a pool die showing {d.value}")
                if d.kind == "night":
                    night += 1
            if p.kind == "human" and night != NIGHT_DICE:
                self.fail(game, f"seat {p.seat} has {night} night dice")
            for g in p.goods:
                if g not in goods:
                    self.fail(game, f"seat {p.seat} holds an unknown good {g!r}")

    # -- card conservation -------------------------------------------------------------------
    def cards(self, game: Game) -> None:
        """Each kind's cards gathered from every place into one list: no card twice, none
        missing, none unknown (a failure is explained by :meth:`explain`)."""
        b = game.board
        heroes = b.hero_deck + [h for h in b.inn if h]
        commissions: list[str] = []
        for stack in b.commission_stacks.values():
            commissions += stack
        deeds = b.deed_deck + [d for d in b.courtyard if d]
        companions = b.companion_deck + [c for c in b.companion_row if c]
        events: list[str] = []
        for deck in b.events.values():
            events += deck
        upgrades = list(b.upgrades)
        steeds: list[str] = []
        for p in game.players:
            heroes += p.heroes
            heroes += p.delivered_heroes
            commissions += p.commissions
            commissions += p.delivered_commissions
            deeds += p.deeds
            companions += [c.card for c in p.companions]
            upgrades += p.upgrades
            steeds += p.steeds
        draft = b.extra.get("draft")
        for steed, hero in draft or ():
            if steed:
                steeds.append(steed)
                heroes.append(hero)
        for t in game.stack:
            if t.kind == "choose_starting_deed":
                deeds += t.data["deeds"]
        self.conserved(game, "hero", heroes, self.normal_heroes, self.starting_heroes)
        self.conserved(game, "commission", commissions, self.commissions)
        self.conserved(game, "deed", deeds, self.deeds)
        self.conserved(game, "companion", companions, self.companions)
        self.conserved(game, "event", events, self.events)
        if self.solo:
            self.conserved(game, "upgrade", upgrades, frozenset(), self.upgrades)
            if len(upgrades) != 1:
                self.fail(game, f"the solo game has {len(upgrades)} wagon upgrades, not 1")
        else:
            self.conserved(game, "upgrade", upgrades, self.upgrades)
        self.conserved(game, "steed", steeds, frozenset(), self.steeds)
        starting = len(self.starting_heroes.intersection(heroes))
        dealt = len(game.players) + (1 if draft else 0)
        if starting != dealt:
            self.fail(game, f"{starting} starting heroes in play, {dealt} dealt")

    def conserved(self, game: Game, kind: str, seen: list[str], once: frozenset[str],
                  at_most_once: frozenset[str] = frozenset()) -> None:
        """Every card of ``once`` in exactly one place, of ``at_most_once`` in one or none
        (the rest is in the box), and no other card."""
        found = set(seen)
        if len(found) == len(seen) and once <= found and (found <= once or found <= once | at_most_once):
            return
        for card, n in Counter(seen).items():
            if n > 1:
                self.fail(game, f"{kind} {card!r} is in {n} places")
        missing = once - found
        if missing:
            self.fail(game, f"{kind}(s) {sorted(missing)} are nowhere")
        self.fail(game, f"unknown {kind}(s) {sorted(found - once - at_most_once)}")

    # -- wagon limits ----------------------------------------------------------------------------
    def limits(self, game: Game) -> None:
        over: dict[int, list[str]] = {}
        ctx: Ctx | None = None
        for p in game.players:
            if p.kind != "human":
                continue  # the Private Concern has no limits (its goods are a count)
            s = p.seat
            wagon = (p.lanterns, p.quartz, p.horseshoes, tuple(p.heroes), tuple(p.commissions), tuple(p.goods),
                     tuple(p.special), tuple(d.kind for d in p.pool), tuple(p.upgrades), tuple(p.steeds),
                     tuple(c.card for c in p.companions))
            cached = self.wagons.get(s)
            if cached is not None and cached[0] == wagon:
                limits = cached[1]
            else:
                ctx = ctx or Ctx(self.engine, game)
                limits = self.seat_limits(game, ctx, p)
                self.wagons[s] = (wagon, limits)
            if limits:
                over[s] = limits
        if over:
            # The overflow discards on top of the stack: the decisions that come next.
            top = set()
            for t in reversed(game.stack):
                if t.kind not in DISCARD_KINDS:
                    break
                top.add((t.kind, t.seat))
            for s, limits in over.items():
                for limit in limits:
                    if (OVERFLOW_DISCARDS[limit], s) not in top:
                        self.fail(game, f"seat {s} is over its {limit} limit and its discard is not the next "
                                        f"decision")
        self.over = over

    def seat_limits(self, game: Game, ctx: Ctx, p: Player) -> list[str]:
        """The limits ``p`` is over (lanterns and illuminated dice never: their excess is
        discarded at once)."""
        s = p.seat
        if p.lanterns > ctx.capacity(s, "lanterns"):
            self.fail(game, f"seat {s} holds {p.lanterns} lanterns (an extra lantern is discarded at once)")
        held = len(p.special) + sum(d.kind == "illuminated" for d in p.pool)
        if held > ctx.capacity(s, "illuminated"):
            self.fail(game, f"seat {s} holds {held} illuminated dice")
        if len(p.upgrades) > upgrade_limit(ctx, s):  # "You may only have 1 wagon upgrade per game" (p. 19)
            self.fail(game, f"seat {s} holds {len(p.upgrades)} wagon upgrades {p.upgrades} (limit "
                            f"{upgrade_limit(ctx, s)})")
        limits = []
        if len(p.heroes) > ctx.capacity(s, "heroes"):
            limits.append("heroes")
        if len(p.commissions) > ctx.capacity(s, "commissions"):
            limits.append("commissions")
        if p.quartz + p.horseshoes > ctx.capacity(s, "inventory"):
            limits.append("inventory")
        if not ctx.fits(s, p.goods):
            limits.append("goods")
        return limits


# -- random games ------------------------------------------------------------------------------

RANDOM_GAMES_SECONDS = 15.0
"""CPU seconds the invariant suite (tests/test_properties.py) spends on random games by default,
in chunks that pytest-xdist spreads over its workers: a game costs about 87 ms of CPU with its
checks and its replay, so about 170 games here. CI's games are a regression net, not the proof:
an error that shows in 1% of games escapes them with a probability of about 18%. The proof is a
count of games (issue 38: 0 violations over 5,000), run when the rules change::

    python -m pytest tests/test_properties.py -n 2 --random-games 5000

A budget rather than a count, so that the suite's time does not grow as the rules do;
``--full-properties`` spends :data:`FULL_RANDOM_GAMES_SECONDS` (about 460 games: 1%),
``--random-games N`` plays exactly N games instead."""
FULL_RANDOM_GAMES_SECONDS = 40.0
"""The invariant suite's budget with ``--full-properties``: CI's before that option existed."""



def random_config(r: random.Random, seed: int) -> GameConfig:
    """A mixed configuration: 2-4 players, solo, the Private Concern in a 3-4 player game,
    drafting, advanced deeds, random or first-game buildings."""
    players = r.choice((2, 2, 3, 3, 4, 4, 4))
    concern = r.random() < 0.3
    variants: dict[str, Any] = {}
    if r.random() < 0.3:
        variants["drafting"] = True
    if r.random() < 0.3:
        variants["advanced_deeds"] = True
    seat = r.randrange(players) if concern and r.random() < 0.3 else None
    options = {"private_concern": True} | ({} if seat is None else {"private_concern_seat": seat}) if concern else {}
    return GameConfig(players=players, seed=seed, random_buildings=r.random() < 0.7, variants=variants,
                      options=options)


def choose(r: random.Random, legal: Sequence[Action], abilities: float = 0.5) -> Action:
    """A random legal action; companion abilities, when offered, are taken at least with
    probability ``abilities`` (half the time by default: they are where the rules interleave
    most)."""
    companions = [a for a in legal if a.type == "companion"]
    if companions and len(companions) < len(legal) and r.random() < abilities:
        return r.choice(companions)
    return r.choice(legal)


def play_checked(engine: Engine, seed: int, config: GameConfig | None = None) -> tuple[Game, list[Action], list[bytes]]:
    """Play a random game of a random configuration, checking every invariant after every
    action. Returns the game, its actions and the state after each action."""
    r = random.Random(seed)
    config = config or random_config(r, seed)
    game, _ = engine.create(config)
    checker = Checker(engine, game)
    actions: list[Action] = []
    states: list[bytes] = []
    while not game.finished:
        if len(actions) >= MAX_ACTIONS:
            checker.fail(game, f"no end after {MAX_ACTIONS} actions")
        awaiting = engine.awaiting(game)
        if not awaiting:
            checker.fail(game, "the game waits for nobody")
        seat = r.choice(awaiting)
        legal = engine.legal_actions(game, seat)
        if not legal:
            checker.fail(game, f"seat {seat} is awaited and has no legal action")
        action = choose(r, legal)
        checker.before(game, action)
        engine.apply(game, action)
        checker.after(game)
        actions.append(action)
        states.append(engine.dumps(game))
    if not (game.round == 13 and game.score and game.winners):
        checker.fail(game, "the game finished without 13 rounds and a final scoring")
    return game, actions, states


def check_replay(engine: Engine, config: GameConfig, actions: Iterable[Action], states: Sequence[bytes]) -> None:
    """Replay ``actions`` from ``config``, storing and reloading the game between actions as
    the API does; the state after every action must be the one recorded while playing."""
    game, _ = engine.create(GameConfig(**{**engine.serde.unstructure(config), "plugins": {}}))
    stored = engine.dumps(game)
    for i, action in enumerate(actions):
        game = engine.loads(stored)  # what the last action left (each state is serialised once)
        engine.apply(game, action)
        stored = engine.dumps(game)
        if stored != states[i]:
            raise Broken(f"replay differs after action #{i} {action.type}/{action.option} (config {config})")


# -- every ability tried at every decision -------------------------------------------------------

BRANCH_ACTIONS = 40
"""How far a branch plays on after the ability it tries: enough for the pending choice (and what
it set in motion) to resolve."""


def at_any_time(action: Action, pending: str) -> bool:
    """An action usable at any time rather than an answer of the pending decision: a companion
    ability, or a plugin's extra option."""
    return action.type != pending or action.option.startswith("x:")


def try_abilities(engine: Engine, game: Game, r: random.Random, seat: int,
                  legal: Sequence[Action]) -> tuple[int, int]:
    """Before the pending choice of ``seat`` resolves, try each companion ability (and every
    other action usable at any time) it is offered, each in a copy of the game: apply it, then
    play on at random until the pending choice and everything it set in motion resolved (or
    :data:`BRANCH_ACTIONS` actions), checking every invariant after each action. Returns how
    many abilities were tried and how many actions were checked."""
    pending = game.stack[-1].kind
    depth = len(game.stack)
    tried = checked = 0
    for action in legal:
        if not at_any_time(action, pending):
            continue
        tried += 1
        branch = engine.copy(game)
        checker = Checker(engine, branch)
        checker.before(branch, action)
        engine.apply(branch, action)
        checker.after(branch)
        checked += 1
        for _ in range(BRANCH_ACTIONS):
            if branch.finished or len(branch.stack) < depth:
                break
            s = r.choice(engine.awaiting(branch))
            nxt = choose(r, engine.legal_actions(branch, s))
            checker.before(branch, nxt)
            engine.apply(branch, nxt)
            checker.after(branch)
            checked += 1
    return tried, checked


COMPANIONS_DEALT = 3
KEEP_ABILITIES = 0.0
"""The main line of :func:`play_trying_abilities` takes an ability only as often as any other
answer: abilities kept for later reach more decisions (every one is tried in a branch)."""
"""Companion cards each player starts with in :func:`play_trying_abilities`."""


def deal_companions(game: Game, r: random.Random) -> None:
    """Give every player :data:`COMPANIONS_DEALT` cards of the companion deck and 2 blazing
    quartz to give them, so that abilities are offered often (random play takes few
    companions): the cards move, none is made (card conservation holds)."""
    deck = game.board.companion_deck
    for p in game.players:
        if p.kind != HUMAN:
            continue
        for _ in range(min(COMPANIONS_DEALT, len(deck))):
            p.companions.append(CompanionCard(card=deck.pop(r.randrange(len(deck)))))
        p.quartz = max(p.quartz, min(2, 3 - p.horseshoes))


def play_trying_abilities(engine: Engine, seed: int,
                          config: GameConfig | None = None) -> tuple[Game, int, int]:
    """A random game (as :func:`play_checked`, invariants checked after every action) whose
    players start with companions (:func:`deal_companions`) and that, at every decision, first
    tries each offered ability in a branch (:func:`try_abilities`). Returns the game, how many
    abilities were tried and how many actions were checked in all."""
    r = random.Random(seed)
    config = config or random_config(r, seed)
    game, _ = engine.create(config)
    deal_companions(game, r)
    checker = Checker(engine, game)
    tried = checked = 0
    while not game.finished:
        if checked >= MAX_ACTIONS * 10:
            checker.fail(game, "no end")
        seat = r.choice(engine.awaiting(game))
        legal = engine.legal_actions(game, seat)
        t, c = try_abilities(engine, game, r, seat, legal)
        tried, checked = tried + t, checked + c
        action = choose(r, legal, abilities=KEEP_ABILITIES)
        checker.before(game, action)
        engine.apply(game, action)
        checker.after(game)
        checked += 1
    return game, tried, checked
