"""A testing kit for rules and plugin authors (in the manner of pytest's ``pytester``).

>>> t = Table.new(players=2, seed=3, buildings=["my_building", ...], plugins=[("mine", my_module)])
>>> t.setup_wagon(0, coins=5, goods=["potion", "book+"])
>>> t.activate_building(0, "my_building")      # seat 0 is activating it now
>>> t.choose("my_decision", "pay:coins")        # answer the pending decision
>>> t.refuses("my_decision", "pay:quartz")       # not a legal answer now (and nothing changes)
>>> t.calls("darkroad_activate_building")       # every recorded hook call

Everything goes through the real engine: ``choose`` submits a legal action exactly as
a client would.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import attrs

from .actions import Action
from .bots import Bot, BotError
from .context import Ctx
from .engine import Engine
from .errors import IllegalAction
from .hooks import is_bool
from .state import CONFIG_FIELDS, CompanionCard, Event, Game, GameConfig


@attrs.define
class HookCall:
    name: str
    kwargs: dict[str, Any]
    result: Any = None


class HookRecorder:
    """Records every rule-point hook call of an engine, with its result (for firstresult
    hooks the result, else the list of non-None results)."""

    def __init__(self, engine: Engine) -> None:
        self.calls: list[HookCall] = []

        def monitor(name: str, kwargs: dict[str, Any], result: Any) -> None:
            self.calls.append(HookCall(name, dict(kwargs), result))

        engine.monitors.append(monitor)
        self.undo = lambda: engine.monitors.remove(monitor)

    def named(self, name: str) -> list[HookCall]:
        return [c for c in self.calls if c.name == name]


class Table:
    """One game on the table, driven through the real engine."""

    def __init__(self, engine: Engine, game: Game, events: list[Event], record: bool = True) -> None:
        self.engine = engine
        self.game = game
        self.events = list(events)
        self.recorder = HookRecorder(engine) if record else None

    @classmethod
    def new(
        cls,
        players: int = 2,
        seed: int = 0,
        buildings: Iterable[str] = (),
        plugins: Iterable[tuple[str, Any]] = (),
        exclude: Iterable[str] = (),
        engine: Engine | None = None,
        companions: Iterable[str] = (),
        **options: Any,
    ) -> Table:
        """A new game. Pass a shared ``engine`` to save the plugin load (hook calls are
        then not recorded: a recorder is only attached to an engine of its own)."""
        own = engine is None
        engine = engine or Engine.load(exclude=exclude, extra=plugins)
        recorder = HookRecorder(engine) if own else None
        # Keywords naming a GameConfig field set it (random_buildings, ...), those naming an option
        # of an installed seat kind set that option (`<kind id>=True`); others are variants.
        seat_options = {o for kind in engine.seat_kinds.values() for o in kind.options}
        config = {k: v for k, v in options.items() if k in CONFIG_FIELDS}
        config["options"] = {**{k: v for k, v in options.items() if k in seat_options}, **config.get("options", {})}
        variants = {k: v for k, v in options.items() if k not in CONFIG_FIELDS and k not in seat_options}
        game, events = engine.create(GameConfig(players=players, seed=seed, buildings=list(buildings),
                                                companions=list(companions), variants=variants, **config))
        table = cls(engine, game, events, record=False)
        table.recorder = recorder
        return table

    # -- reading -------------------------------------------------------------------
    @property
    def awaiting(self) -> list[int]:
        return self.engine.awaiting(self.game)

    @property
    def decision(self) -> str | None:
        return self.game.stack[-1].kind if self.game.stack else None

    def legal(self, seat: int | None = None) -> list[Action]:
        seat = self.awaiting[0] if seat is None else seat
        return self.engine.legal_actions(self.game, seat)

    def options(self, seat: int | None = None) -> list[str]:
        return [a.option for a in self.legal(seat)]

    def calls(self, name: str) -> list[HookCall]:
        if self.recorder is None:
            raise RuntimeError("hook calls are recorded only for a Table with an engine of its own")
        return self.recorder.named(name)

    def events_of(self, type: str) -> list[Event]:
        return [e for e in self.events if e.type == type]

    # -- acting ----------------------------------------------------------------------
    def choose(self, type: str | None = None, option: str | None = None, seat: int | None = None,
               startswith: str | None = None) -> list[Event]:
        """Submit the legal action matching ``type`` and ``option`` (or its prefix)."""
        seat = self.awaiting[0] if seat is None else seat
        legal = self.legal(seat)
        for a in legal:
            if (type is None or a.type == type) and (option is None or a.option == option) and (
                startswith is None or a.option.startswith(startswith)
            ):
                return self.apply(a)
        raise AssertionError(f"no legal action {type}/{option or startswith} for seat {seat}; "
                             f"legal: {[(a.type, a.option) for a in legal]}")

    def refuses(self, type: str, option: str, seat: int | None = None) -> IllegalAction:
        """Check that ``seat`` (default: the first awaited seat) cannot answer ``type`` /
        ``option`` now: the action is not among its legal actions, and submitting it raises
        :class:`IllegalAction` and changes nothing. Returns the error (``.reason`` says why)."""
        seat = self.awaiting[0] if seat is None else seat
        legal = self.legal(seat)
        if any(a.type == type and a.option == option for a in legal):
            raise AssertionError(f"{type}/{option} is a legal action of seat {seat}; "
                                 f"legal: {[(a.type, a.option) for a in legal]}")
        before = self.engine.dumps(self.game)
        try:
            self.apply(Action(type, seat, option))
        except IllegalAction as exc:
            if self.engine.dumps(self.game) != before:
                raise AssertionError(f"refusing {type}/{option} changed the game") from exc
            return exc
        raise AssertionError(f"{type}/{option} of seat {seat} was applied, not refused")

    def apply(self, action: Action) -> list[Event]:
        ev = self.engine.apply(self.game, action)
        self.events += ev
        return ev

    def play(self, until: Callable[[Table], bool] = lambda t: t.game.finished, seed: int = 0,
             policy: Callable[[list[Action], random.Random], Action] | None = None, limit: int = 100_000,
             bots: Sequence[Bot] = ()) -> None:
        """Play random (or ``policy``) legal actions until ``until(self)`` holds; with
        ``bots``, seat ``s`` plays ``bots[s % len(bots)]`` (e.g. ``engine.bots["greedy"]``),
        asked with :meth:`Engine.bot_choice` (an answer that is not legal fails the test)."""
        r = random.Random(seed)
        for _ in range(limit):
            if until(self) or self.game.finished:
                return
            seat = r.choice(self.awaiting)
            if bots:
                try:
                    action = self.engine.bot_choice(self.game, seat, bots[seat % len(bots)])
                except BotError as exc:
                    raise AssertionError(exc.reason) from exc
            else:
                legal = self.legal(seat)
                action = policy(legal, r) if policy else r.choice(legal)
            self.apply(action)
        raise AssertionError("play limit reached")

    # -- arranging -------------------------------------------------------------------
    def ctx(self) -> Ctx:
        return Ctx(self.engine, self.game)

    def setup_wagon(self, seat: int, **fields: Any) -> None:
        """Set fields of a player directly (coins, goods, heroes, lanterns, steeds, ...)."""
        p = self.game.players[seat]
        for k, v in fields.items():
            if not hasattr(p, k):
                raise AttributeError(f"Player has no field {k!r}")
            # Copy lists: the wagon must not alias the caller's list.
            setattr(p, k, list(v) if isinstance(v, list) else v)

    def give_companion(self, seat: int, card: str, gifts: Iterable[int] = ()) -> None:
        """Put companion card ``card`` (e.g. ``"snow_owl-1"``) on ``seat``'s wagon."""
        if card not in self.engine.content.companion_cards:
            raise KeyError(f"unknown companion card {card!r}")
        self.game.players[seat].companions.append(CompanionCard(card=card, gifts=list(gifts)))

    def push(self, kind: str, seat: int, **data: Any) -> None:
        """Put step ``kind`` for ``seat`` on top of the stack and run until a decision."""
        ctx = self.ctx()
        ctx.push(kind, seat, **data)
        self.engine._settle(ctx)
        self.events += ctx.events

    def run(self, fn: Callable[[Ctx], Any]) -> Any:
        """Run ``fn(ctx)`` (e.g. a gain) as the engine would, then settle."""
        ctx = self.ctx()
        out = fn(ctx)
        self.engine._settle(ctx)
        self.events += ctx.events
        return out

    def activate_building(self, seat: int, building: str) -> None:
        """Make ``seat`` the active seat, activating ``building`` now."""
        self.game.active = seat
        self.game.phase = "activate"

        def go(ctx: Ctx) -> None:
            if not ctx.first("darkroad_activate_building", is_bool, seat=seat, building=building):
                raise AssertionError(f"no plugin resolves building {building!r}")

        self.run(go)

    def district(self, seat: int, district: str) -> None:
        """Make ``seat`` the active seat, activating ``district`` now."""
        self.game.active = seat
        self.game.phase = "activate"
        self.push(district, seat)
