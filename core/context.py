"""``Ctx``: what a rule (core or plugin) may do to the game while an action resolves.

One ``Ctx`` lives for one ``Engine.apply`` (or setup). It holds the game, the engine
(content, hooks, steps) and the events emitted so far. Every gain goes through here so
that capacity limits and storage fit are always enforced the same way: a gain beyond a
limit calls for the overflow decision the rulebook gives (:meth:`Ctx.overflow`), which the
engine settles before anything else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from . import hooks, rng
from .goods import good_type, is_upgraded
from .i18n import locale_now as _locale
from .state import CompanionCard, Event, Game, Player, Task

if TYPE_CHECKING:
    from .content import Content
    from .engine import Engine
    from .storage import StorageSpec
    from .wording import Words

MARKET_VALUES = (5, 4, 3, 2, 1, 1)
"""Values of the six wheel positions, clockwise from the $5 position."""
MAX_PER_SECTION = 2
BASE_CAPACITY = {"lanterns": 4, "inventory": 3, "heroes": 3, "commissions": 3, "illuminated": 2}
EFFECT_RESOURCE = {"coins": "coins", "prestige": "prestige", "lantern": "lanterns", "quartz": "quartz",
                   "horseshoe": "horseshoes"}


class Ctx:
    """The game being changed and every operation a rule may use: the plugin author's API.

    The engine makes one for each action (and for the setup of a game) and passes it to
    every rule-point hook and step as ``ctx``. Read the game through it (``ctx.game``,
    ``ctx.player(seat)``, ``ctx.owns``, ``ctx.in_play``), change it through it (gains,
    payments, steps, events, dice) so that limits, storage and the event log stay right
    for the core and for plugins alike. docs/plugins.md ("The ``Ctx`` object") tables it.

    Attributes: ``game`` (the :class:`Game`), ``engine``, ``content`` (the merged card
    data and components), ``events`` (the events of this action so far).
    """

    # Its own attributes in slots: the kernel makes a Ctx for every call. ``__dict__`` keeps the
    # freedom to set any other (made only when one is set), ``__weakref__`` weak references.
    __slots__ = ("engine", "game", "content", "events", "answered", "overflows", "checkpoints",
                 "__dict__", "__weakref__")

    def __init__(self, engine: Engine, game: Game) -> None:
        self.engine = engine
        self.game = game
        self.content: Content = engine.content
        self.events: list[Event] = []
        self.answered: set[str] = set()
        """Plugins whose hooks or steps answered during this action (for blame)."""
        self.overflows: list[tuple[str, int]] = []
        """Overflow discards called for by the step resolving now: ``(step kind, seat)``."""
        self.checkpoints: list[str] = []
        """Why this action was declared a checkpoint (:meth:`checkpoint`)."""

    @property
    def words(self) -> Words:
        """The engine's words (:class:`~darkroad.core.wording.Words`): effects, cards, goods and
        sources in plain words, in the language of the call, for labels and prompts (none
        where words are not read: :func:`~darkroad.core.i18n.set_wordless`)."""
        return self.engine.words if _locale() else self.engine.no_words

    # -- hooks -----------------------------------------------------------------------
    def call(self, name: str, check: Callable[[Any], bool] | None = None, **kwargs: Any) -> list[Any]:
        """Call rule-point hook ``name`` (``ctx`` is passed for you); the non-None results,
        each checked with ``check``. A failure raises :class:`PluginError` naming the plugin."""
        return hooks.call(self, name, check, False, kwargs)

    def first(self, name: str, check: Callable[[Any], bool] | None = None, **kwargs: Any) -> Any:
        """Call a firstresult hook: the first non-None result, or None."""
        got = hooks.call(self, name, check, True, kwargs)
        return got[0] if got else None

    def call_others(self, impl: Callable[..., Any], name: str, check: Callable[[Any], bool] | None = None,
                    **kwargs: Any) -> list[Any]:
        """Like :meth:`call`, but leaving out ``impl``, the hook implementation that asks: for
        an answer built on the other plugins' answers (Threy Cat's +1/+2 stacks on Whisper's
        +1), which asking itself would never finish."""
        impls = [i for i in self.engine.hook_impls[name] if i[1] != impl]
        return hooks.call(self, name, check, False, kwargs, impls)

    # -- stack ---------------------------------------------------------------------
    def push(self, kind: str, seat: int = -1, **data: Any) -> Task:
        """Push a step; the last pushed resolves first."""
        if kind not in self.engine.steps:
            raise KeyError(f"unknown step kind {kind!r}")
        task = Task(kind=kind, seat=seat, data=data)
        self.game.stack.append(task)
        return task

    def push_many(self, seat: int, kinds_data: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """Push steps so that they resolve in the given order."""
        for kind, data in reversed(kinds_data):
            self.push(kind, seat, **data)

    def pop(self, task: Task) -> None:
        """Remove ``task`` from the stack (plugins resolving an extra option)."""
        for i in range(len(self.game.stack) - 1, -1, -1):
            if self.game.stack[i] is task:
                del self.game.stack[i]
                return

    # -- events --------------------------------------------------------------------
    def emit(self, type: str, seat: int | None = None, private: bool = False, **data: Any) -> None:
        """Record an event; ``private`` events are only seen by ``seat``."""
        g = self.game
        self.events.append(Event(n=g.events, type=type, seat=seat, private_to=seat if private else None, data=data))
        g.events += 1

    def checkpoint(self, why: str) -> None:
        """Declare the action resolving now a checkpoint: its seat cannot undo it, nor
        anything before it (core/undo.py). The engine finds chance, private events and
        revealed cards itself; this is for what only a plugin knows (a secret it keeps in
        a form the engine does not look at). ``why`` is for the logs of the plugin author."""
        self.checkpoints.append(why)

    # -- randomness ----------------------------------------------------------------
    def roll(self, sides: int = 6) -> int:
        """Roll a die of ``sides`` faces with the game's own RNG: 1..sides."""
        return rng.roll(self.game.rng, sides)

    def randbelow(self, n: int) -> int:
        """A random int in 0..n-1 from the game's own RNG (``random`` would break replays)."""
        return rng.randbelow(self.game.rng, n)

    def shuffle(self, seq: list[Any]) -> None:
        """Shuffle ``seq`` in place with the game's own RNG."""
        rng.shuffle(self.game.rng, seq)

    # -- components ----------------------------------------------------------------
    def player(self, seat: int) -> Player:
        """The :class:`Player` at ``seat`` (coins, prestige, goods, heroes, steeds, companions, ...)."""
        return self.game.players[seat]

    def owns(self, seat: int, component: str) -> bool:
        """Whether ``seat`` holds the steed, upgrade, deed or companion ``component``."""
        p = self.game.players[seat]
        # By the component's kind: rule-point hooks ask this on every storage and capacity check.
        comp = self.content.components.get(component)
        kind = comp.kind if comp is not None else None
        if kind == "steed":
            return component in p.steeds
        if kind == "upgrade":
            return component in p.upgrades
        if kind == "deed":
            return component in p.deeds
        if kind is None and (component in p.steeds or component in p.upgrades or component in p.deeds):
            return True
        cards = self.content.companion_cards
        return any(cards.get(c.card) == component for c in p.companions)

    def companion_cards(self, seat: int, component: str) -> list[CompanionCard]:
        """``seat``'s cards of companion ``component`` (``card.card`` is the card id such as
        ``"phoenix-2"``, ``card.gifts`` the indexes of the abilities already triggered)."""
        owner = self.content.companion_cards
        out = []
        for c in self.game.players[seat].companions:
            if owner.get(c.card) == component:
                out.append(c)
        return out

    def engaged(self) -> set[str]:
        """Cards engaged by pending steps (``Step.engages``): not available to anything else
        (the hero being sold to at the Ringway Inn cannot be gained another way meanwhile)."""
        steps = self.engine.steps
        out = set()
        for t in self.game.stack:
            for key in steps[t.kind].engages:
                card = t.data.get(key)
                if card:
                    out.add(card)
        return out

    def in_play(self, building: str) -> bool:
        """Whether ``building`` is on one of the board's building spaces in this game."""
        return building in self.game.board.buildings

    def capacity(self, seat: int, kind: str) -> int:
        """``seat``'s limit of ``kind`` (``"lanterns"``, ``"inventory"``, ``"heroes"``,
        ``"commissions"``, ``"illuminated"``): the rulebook's plus every ``darkroad_capacity`` answer."""
        extra: int = sum(self.call("darkroad_capacity", hooks.is_int, seat=seat, kind=kind))
        return BASE_CAPACITY[kind] + extra

    # -- market ----------------------------------------------------------------------
    def value(self, kind: str) -> int:
        """Current market value of good type ``kind``."""
        return MARKET_VALUES[(self.content.good_index[kind] - self.game.board.wheel_offset) % 6]

    def goods_of_value(self, value: int) -> list[str]:
        """The good types at market value ``value`` now (1..5)."""
        return [g for g in self.content.good_ids if self.value(g) == value]

    def rotate_wheel(self, seat: int | None) -> None:
        """Rotate the market wheel one space clockwise: every good drops one position."""
        self.game.board.wheel_offset = (self.game.board.wheel_offset - 1) % 6
        self.emit("wheel_rotated", seat, at_5=self.goods_of_value(5)[0])

    def not_on_wheel(self) -> list[str]:
        """The good types with no market die on their wheel section."""
        return [g for i, g in enumerate(self.content.good_ids) if self.game.board.market[i] == 0]

    # -- resources -------------------------------------------------------------------
    def add(self, seat: int, resource: str, n: int, source: str = "") -> int:
        """Gain (n > 0) or lose (n < 0) a counted resource; losses take what there is.

        Returns the amount actually changed. Lanterns and inventory over capacity
        trigger the rulebook's overflow handling.
        """
        p = self.game.players[seat]
        have: int = getattr(p, resource)
        new = max(0, have + n)
        if new == have:
            return 0
        setattr(p, resource, new)
        private = resource == "coins"
        self.emit("gained" if n > 0 else "lost", seat, private=private, resource=resource, amount=abs(new - have),
                  source=source)
        if n > 0:
            if resource == "lanterns":
                cap = self.capacity(seat, "lanterns")
                if p.lanterns > cap and self.limited(seat, "lanterns"):
                    self.emit("discarded", seat, resource="lanterns", amount=p.lanterns - cap, reason="no lantern slot")
                    p.lanterns = cap
            elif resource in ("quartz", "horseshoes"):
                self.check_inventory(seat)
        return new - have

    def pay(self, seat: int, resource: str, n: int, source: str = "") -> None:
        """Spend exactly ``n`` (the caller checked it can)."""
        p = self.game.players[seat]
        have = getattr(p, resource)
        if have < n:
            raise ValueError(f"seat {seat} cannot pay {n} {resource} (has {have})")
        setattr(p, resource, have - n)
        if n:
            self.emit("paid", seat, private=resource == "coins", resource=resource, amount=n, source=source)

    def check_inventory(self, seat: int) -> None:
        """Call for the rulebook's discard decision when ``seat``'s blazing quartz and horseshoes
        exceed its inventory slots (``ctx.add`` does it for you)."""
        p = self.game.players[seat]
        if p.quartz + p.horseshoes > self.capacity(seat, "inventory") and self.limited(seat, "inventory"):
            self.overflow("discard_inventory", seat)

    # -- overflow ----------------------------------------------------------------------
    def limited(self, seat: int, kind: str) -> bool:
        """Whether the rulebook's limit of ``kind`` (a :meth:`capacity` kind, or ``"storage"``)
        binds ``seat``: yes, unless a plugin's ``darkroad_limit_applies`` says not (a seat kind
        with no such limit). Asked once ``seat`` is beyond the limit."""
        return self.first("darkroad_limit_applies", hooks.is_bool, seat=seat, kind=kind) is not False

    def overflow(self, kind: str, seat: int) -> None:
        """Call for overflow discard ``kind`` of ``seat`` (rulebook p. 18: a gain beyond a
        limit is discarded, or something else is discarded to make room).

        An overflow is settled at once: the engine pushes the discard when the step that
        caused it has resolved, on top of everything that step pushed (:meth:`settle_overflows`),
        so it is the very next decision, and no ability or other action can come between
        the gain and its discard."""
        if (kind, seat) not in self.overflows:
            self.overflows.append((kind, seat))

    def settle_overflows(self) -> None:
        """Push the overflow discards called for (the last called on top), except one that is
        already waiting on top of the stack."""
        stack, steps = self.game.stack, self.engine.steps
        for kind, seat in self.overflows:
            waiting = False
            for t in reversed(stack):
                if not steps[t.kind].settles_overflow:
                    break
                if t.kind == kind and t.seat == seat:
                    waiting = True
                    break
            if not waiting:
                self.push(kind, seat)
        self.overflows.clear()

    # -- goods -----------------------------------------------------------------------
    def storage_spec(self, seat: int) -> StorageSpec:
        """``seat``'s storage: the 6x5 grid plus what heroes and ``darkroad_storage_extensions``
        add (slots for any good, extra grids, fixed tiles)."""
        return self.engine.storage_spec(self, seat)

    def fits(self, seat: int, goods: Iterable[str]) -> bool:
        """Whether the good tokens ``goods`` (``"potion"``, ``"potion+"``) fit ``seat``'s storage
        together (an exact packing of their shapes)."""
        return self.engine.packer.fits(goods, self.storage_spec(seat))

    def gain_good(self, seat: int, good: str, source: str = "") -> None:
        """Store ``good``; if it does not fit, the player discards goods until it does."""
        p = self.game.players[seat]
        p.goods.append(good)
        self.emit("gained", seat, good=good, source=source)
        self.check_storage(seat)

    def check_storage(self, seat: int) -> None:
        """Call for the rulebook's discard decision when ``seat``'s goods no longer fit its
        storage (``ctx.gain_good`` does it for you; call it after taking storage away)."""
        if not self.fits(seat, self.game.players[seat].goods) and self.limited(seat, "storage"):
            self.overflow("discard_good", seat)

    def lose_good(self, seat: int, good: str, reason: str = "") -> None:
        """Return the good token ``good`` (which ``seat`` holds) to the supply, with an event."""
        self.game.players[seat].goods.remove(good)
        self.emit("lost", seat, good=good, source=reason)

    def most_valuable(self, seat: int) -> list[str]:
        """The goods tied for the highest current value (upgraded beats basic on a tie)."""
        goods = self.game.players[seat].goods
        if not goods:
            return []
        key = {g: (self.value(good_type(g)), is_upgraded(g)) for g in goods}
        best = max(key.values())
        return sorted({g for g in goods if key[g] == best})

    # -- cards -------------------------------------------------------------------------
    def gain_hero(self, seat: int, hero: str, bonus: bool = True, source: str = "") -> None:
        """A hero joins ``seat``'s wagon, with its bonus when ``bonus``; over 3 heroes the
        player discards one (the new hero's bonus is lost when it is the one discarded). The
        rulebook's way, or a plugin's for its seats (``darkroad_gain_hero``)."""
        if not self.first("darkroad_gain_hero", hooks.is_bool, seat=seat, hero=hero, bonus=bonus, source=source):
            raise RuntimeError("no plugin made a hero join (the rulebook's rulebook.overflow is missing)")

    def gain_commission(self, seat: int, commission: str, source: str = "") -> None:
        """A commission card joins ``seat``'s wagon; over its limit (3) the player discards one."""
        p = self.game.players[seat]
        p.commissions.append(commission)
        self.emit("commission_gained", seat, commission=commission, source=source)
        if len(p.commissions) > self.capacity(seat, "commissions") and self.limited(seat, "commissions"):
            self.overflow("discard_commission", seat)

    def gain_illuminated(self, seat: int, source: str = "") -> None:
        """Roll an illuminated die into ``seat``'s special reserve, unless it already holds as
        many as it may (2): then the die is discarded, with an event."""
        p = self.game.players[seat]
        held = len(p.special) + sum(1 for d in p.pool if d.kind == "illuminated")
        if held >= self.capacity(seat, "illuminated") and self.limited(seat, "illuminated"):
            self.emit("discarded", seat, resource="illuminated", amount=1, reason="max illuminated dice held")
            return
        value = self.roll() - 1
        p.special.append(value)
        self.emit("gained", seat, resource="illuminated", amount=1, value=value, source=source)

    def draw_hero(self) -> str | None:
        """Take the top card of the hero deck (``None`` when the deck is empty)."""
        deck = self.game.board.hero_deck
        return deck.pop(0) if deck else None

    def return_hero(self, hero: str) -> None:
        """A discarded hero goes to the bottom of the hero deck."""
        self.game.board.hero_deck.append(hero)

    def return_commission(self, commission: str) -> None:
        """A discarded commission goes to the bottom of its town's stack."""
        town = self.content.commissions[commission].town
        self.game.board.commission_stacks.setdefault(town, []).append(commission)

    # -- effects -----------------------------------------------------------------------
    def resolve_effect(self, seat: int, effect: str, source: str = "") -> None:
        """Resolve one effect string at once (a concrete one; an abstract one pushes its
        choice): the rulebook's way, or a plugin's (``darkroad_resolve_effect``). An effect no
        plugin knows raises ``ValueError``."""
        verb, _, arg = effect.partition(":")
        if not self.first("darkroad_resolve_effect", hooks.is_bool, seat=seat, verb=verb, arg=arg, source=source):
            raise ValueError(f"unknown effect {effect!r}")

    def gain_effects(self, seat: int, effects: Sequence[str], source: str = "") -> None:
        """Resolve effect strings in order (see :mod:`.rulebook.effects`), pushing choices as needed."""
        for e in reversed(effects):
            if e != "nothing":
                self.push("effect", seat, e=e, source=source)
