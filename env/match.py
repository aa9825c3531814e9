"""What both environments share: the engine, the game's configuration, the action catalogue,
the observation encoder, the rewards and the text table (``render_mode="ansi"``)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from darkroad.core import Action, Engine, Game, GameConfig, IllegalAction

from .catalogue import ActionCatalogue
from .observation import Encoder, Layout

REWARDS = ("win", "score")
"""``win``: +1 shared among the winners and -1 among the others at the end, 0 before;
``score``: after each action, the change of the seat's score difference (its score minus the
best other seat's: the base score, the lower of coins and prestige, during the game; the final
score at the end), so an episode's rewards add up to the final score difference."""
MAX_STEPS = 20_000
"""Actions after which an episode is truncated (a game of random play takes a few hundred)."""
OBSERVATION_HIGH = 100.0
"""The observation space's bound: a count divided by its scale (observation.SCALE) stays far below."""
CONFIG_KEYS = frozenset({"buildings", "random_buildings", "variants", "companions", "options"})
"""What ``options`` of an environment may set of the game's :class:`GameConfig`."""


def solo_options(engine: Engine) -> dict[str, Any]:
    """The game options of the solo game: the one installed seat kind that plays a seat of a
    2-seat game (the base game's Private Concern)."""
    kinds = sorted((k for k in engine.seat_kinds.values() if 2 in k.players), key=lambda k: k.id)
    if len(kinds) != 1:
        raise ValueError(f"a solo game needs exactly one installed seat kind that plays solo, "
                         f"found {[k.id for k in kinds] or 'none'}")
    return dict(kinds[0].game_options())


_INT8 = np.dtype(np.int8)
"""The mask's type (NumPy reads a type given as an instance faster than as a class)."""


class Match:
    """A game of darkroad as an environment sees it: seats, masks, observations, rewards."""

    def __init__(self, players: int, options: Mapping[str, Any] | None, reward: str, engine: Engine | None,
                 max_steps: int) -> None:
        if not 1 <= players <= 4:
            raise ValueError(f"players must be 1 to 4 (1: solo against the Private Concern), got {players}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        extra = dict(options or {})
        unknown = sorted(set(extra) - CONFIG_KEYS)
        if unknown:
            raise ValueError(f"options {unknown} are not game settings; settings: {sorted(CONFIG_KEYS)}")
        self.engine = engine or Engine.load()
        if players == 1:
            extra["options"] = {**solo_options(self.engine), **dict(extra.get("options", {}))}
        self.settings = extra
        self.seats_total = max(players, 2)
        self.reward = reward
        self.max_steps = max_steps
        self.catalogue = ActionCatalogue(self.engine)
        kinds = list(dict.fromkeys(kind for kind, _ in self.catalogue.entries))
        self.layout = Layout(self.engine, kinds)
        self.encoder = Encoder(self.engine, self.layout)
        probe = self.config(0)
        self.engine.check_config(probe)
        automated = self.engine.seat_assignment(probe)
        self.seats = [s for s in range(self.seats_total) if s not in automated]
        """The seats the agents play (the others are automated: the engine plays them)."""
        self.action_space = spaces.Discrete(self.catalogue.size)
        self.observation_box = spaces.Box(low=0.0, high=OBSERVATION_HIGH, shape=(self.layout.size,), dtype=np.float32)
        self.mask_box = spaces.Box(low=0, high=1, shape=(self.catalogue.size,), dtype=np.int8)
        self.game: Game | None = None
        self.steps = 0
        self.seeds = random.Random()

    def config(self, seed: int) -> GameConfig:
        return GameConfig(players=self.seats_total, seed=seed, **self.settings)

    def new_game(self, seed: int | None) -> Game:
        """Start a game: of ``seed``, or of the next seed of the environment's own sequence."""
        if seed is not None:
            self.seeds.seed(seed)
        game, _ = self.engine.create(self.config(self.seeds.randrange(2**31)))
        self.game = game
        self.steps = 0
        return game

    def replace(self, game: Game) -> None:
        """Play ``game`` from now on instead of the game under way (``env.unwrapped.game = ...``)."""
        if self.game is None:
            raise RuntimeError("no game yet: call reset() first")
        if len(game.players) != self.seats_total:
            raise ValueError(f"the environment plays {self.seats_total} seats, the game has {len(game.players)}")
        automated = self.engine.automated(game)
        if [s for s in range(self.seats_total) if s not in automated] != self.seats:
            raise ValueError(f"the environment's agents play seats {self.seats}; the game's automated seats "
                             f"are {sorted(automated)}")
        self.game = game

    # -- what a seat sees and may do ---------------------------------------------------------
    # Nothing of the game is kept between calls: a game edited by hand, or another game put in
    # its place (``env.unwrapped.game = copy``), is read as it is now. An agent's step asks the
    # engine for the legal actions once (its mask), as the engine's random player does: the
    # action is applied by its catalogued (type, option), which the engine checks as it checks
    # any answer, so the step needs no second listing.
    def legal(self, seat: int) -> list[Action]:
        assert self.game is not None
        return self.engine.legal_actions(self.game, seat)

    def offered(self, seat: int) -> tuple[list[int], list[Action]]:
        """``seat``'s legal actions now and their indices (in the engine's order)."""
        legal = self.legal(seat)
        return self.catalogue.indices(legal), legal

    def mask(self, seat: int) -> npt.NDArray[np.int8]:
        """1 at the index of each of ``seat``'s legal actions now, else 0 (a new array)."""
        assert self.game is not None
        # Listed as option ids by type (Engine.legal_options): a mask reads which answers are
        # legal, not their words (a fifth of the listing's work) nor an Action each.
        return np.frombuffer(self.catalogue.mask(self.engine.legal_options(self.game, seat), seat), _INT8)

    def observe(self, seat: int) -> dict[str, npt.NDArray[Any]]:
        """``seat``'s observation and action mask now (:meth:`observation` and :meth:`mask`,
        in one call: what an AEC environment's ``observe`` returns)."""
        game = self.game
        assert game is not None
        engine = self.engine
        mask = self.catalogue.mask(engine.legal_options(game, seat), seat)
        return {"observation": self.encoder.encode(game, seat, engine.awaiting(game)),
                "action_mask": np.frombuffer(mask, _INT8)}

    def awaiting(self) -> list[int]:
        """The seats the game awaits now."""
        assert self.game is not None
        return self.engine.awaiting(self.game)

    def observation(self, seat: int) -> npt.NDArray[np.float32]:
        """``seat``'s observation now (:meth:`Encoder.encode`), a new array."""
        game = self.game
        assert game is not None
        return self.encoder.encode(game, seat, self.engine.awaiting(game))

    def action_of(self, seat: int, index: int) -> Action:
        """The engine action index ``index`` stands for, for ``seat`` now. :class:`ValueError`
        for an overflow slot no legal action of ``seat`` takes now."""
        entry = self.catalogue.entry(int(index))
        if entry is not None:
            for action in self.legal(seat):
                if (action.type, action.option) == entry:
                    return action
            return Action(entry[0], seat, entry[1])
        legal = self.legal(seat)
        for action, i in zip(legal, self.catalogue.indices(legal), strict=True):
            if i == index:
                return action
        raise ValueError(f"overflow index {index} stands for no legal action of seat {seat} now")

    def index_of(self, action: Action) -> int:
        """The index of ``action``: its catalogued index, or its overflow slot now."""
        found = self.catalogue.index(action)
        if found is not None:
            return found
        legal = self.legal(action.seat)
        for other, i in zip(legal, self.catalogue.indices(legal), strict=True):
            if (other.type, other.option) == (action.type, action.option):
                return i
        raise ValueError(f"{action} has no catalogued index and is not a legal action now")

    def play(self, seat: int, index: int) -> None:
        """Apply ``seat``'s action ``index``: :class:`ValueError` when it is not legal now (the
        game is then left as it was)."""
        game = self.game
        assert game is not None
        catalogue = self.catalogue
        if not 0 <= index < catalogue.size:
            raise ValueError(f"action {index} is out of the action space (0-{catalogue.size - 1})")
        entries = catalogue.entries  # (ActionCatalogue.entry, read here: once an agent's step)
        entry = entries[index] if index < len(entries) else None
        if entry is not None:
            action = Action(entry[0], seat, entry[1])  # its label is words for a reader: not read
        else:  # an overflow slot: the legal action that takes it now (the first, of two)
            indices, legal = self.offered(seat)
            if index not in indices:
                raise ValueError(f"action {index} is not legal for seat {seat} now (mask it with action_mask)")
            action = legal[indices.index(index)]
        try:
            # an environment's game is never undone; the engine checks the answer as it checks
            # any client's, and leaves the game as it was when it is not legal
            self.engine.apply(game, action, track_undo=False)
        except IllegalAction:
            raise ValueError(f"action {index} is not legal for seat {seat} now (mask it with action_mask)") from None
        self.steps += 1

    # -- rewards -------------------------------------------------------------------------------
    def outcome(self) -> dict[int, float]:
        """At the end: +1 shared among the winners, -1 shared among the others (every seat)."""
        assert self.game is not None
        winners = set(self.game.winners)
        losers = [s for s in range(self.seats_total) if s not in winners]
        return {s: (1.0 / len(winners) if s in winners else -1.0 / len(losers))
                for s in range(self.seats_total)}

    def standing(self) -> dict[int, float]:
        """Each seat's score difference: its score minus the best other seat's."""
        assert self.game is not None
        if self.game.finished:
            scores = {line.seat: float(line.total) for line in self.game.score}
        else:
            scores = {p.seat: float(min(p.coins, p.prestige)) for p in self.game.players}
        return {s: v - max(w for t, w in scores.items() if t != s) for s, v in scores.items()}

    # -- the text table ------------------------------------------------------------------------
    def render_text(self) -> str:
        """The game as a spectator sees it (no seat's secrets), as text."""
        assert self.game is not None
        v = self.engine.view(self.game, None)
        b = v["board"]
        decision = v.get("decision") or {}
        lines = [f"round {v['round']}  phase {v['phase']}  status {v['status']}  active seat {v['active_seat']}",
                 f"decision: {decision.get('prompt', '-')} (seats {decision.get('seats', [])})",
                 f"ringway: {' '.join(b['ringway'])}   buildings: {', '.join(b['buildings'])}",
                 f"market dice: {b['market']['dice']}   inn: {', '.join(h or '-' for h in b['inn'])}",
                 f"{'seat':<6}{'kind':<18}{'prestige':>9}{'coins':>7}{'lanterns':>9}  goods / heroes / commissions"]
        for p in v["players"]:
            coins = "?" if p.get("coins") is None else str(p["coins"])
            lines.append(f"{p['seat']:<6}{p['kind']:<18}{p['prestige']:>9}{coins:>7}{p['lanterns']:>9}  "
                         f"{','.join(p['goods']) or '-'} / {','.join(p['heroes']) or '-'} / "
                         f"{','.join(p['commissions']) or '-'}")
        if self.game.finished:
            lines.append("final scores: " + ", ".join(f"seat {s.seat}: {s.total}" for s in self.game.score)
                         + f"; winners {list(self.game.winners)}")
        return "\n".join(lines) + "\n"


class OnAMatch:
    """What both environments (``aec.raw_env``, ``single.SingleSeatEnv``) show of their
    :class:`Match`: the engine, and the game under way, which a position may replace."""

    match: Match
    metadata: dict[str, Any]
    render_mode: str | None

    def _new_match(self, render_mode: str | None, seed: int | None, players: int, options: Mapping[str, Any] | None,
                   reward: str, engine: Engine | None, max_steps: int) -> None:
        """Check ``render_mode`` against the environment's ``metadata``, then make its match
        (whose sequence of seeds starts from ``seed``, when given)."""
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.render_mode = render_mode
        self.match = Match(players, options, reward, engine, max_steps)
        if seed is not None:
            self.match.seeds.seed(seed)

    @property
    def engine(self) -> Engine:
        """The engine the game runs on."""
        return self.match.engine

    @property
    def game(self) -> Game:
        """The game under way (the real one, with every secret: for inspection, not for agents).

        Set it to a position to play from (a copy, a game edited by hand, a stored one), after
        ``reset()``: it takes the place of the game under way and play goes on from it as after
        a reset (the agent to act is the seat it awaits; a single-seat environment's bots play
        until its seat is awaited)."""
        if self.match.game is None:
            raise RuntimeError("no game yet: call reset() first")
        return self.match.game

    @game.setter
    def game(self, game: Game) -> None:
        self.match.replace(game)
        self._go_on()

    def _go_on(self) -> None:
        """Play on from the game just started or put in place, up to an agent's decision."""
        raise NotImplementedError
