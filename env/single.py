"""The Gymnasium environment for one seat: :func:`single`. The other seats are installed bots,
asked through :meth:`Engine.bot_choice` like everywhere else (so they know what their seats
know and no more); automated seats (the Private Concern's) play inside the environment.

The observation is the seat's encoded view (a ``Box``); the legal actions are the mask that
:meth:`SingleSeatEnv.action_masks` returns (what sb3-contrib's ``MaskablePPO`` asks for) and
``info["action_mask"]`` carries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt

from darkroad.core import Action, Bot, Engine

from .match import MAX_STEPS, OnAMatch

Obs = npt.NDArray[np.float32]


def single(players: int = 2, opponents: str | Bot | Sequence[str | Bot] = "greedy", seed: int | None = None,
           options: Mapping[str, Any] | None = None, render_mode: str | None = None, **kwargs: Any) -> SingleSeatEnv:
    """A darkroad game for one agent as a :class:`gymnasium.Env`; ``opponents``: one bot (an
    installed bot's id, or a :class:`Bot`) for every other seat, or one per other seat in seat
    order. The other arguments are :class:`SingleSeatEnv`'s (and :func:`darkroad.env.env`'s)."""
    return SingleSeatEnv(players=players, opponents=opponents, seed=seed, options=options,
                         render_mode=render_mode, **kwargs)


class SingleSeatEnv(OnAMatch, gymnasium.Env[Obs, np.int64]):
    """One seat of a darkroad game (``seat``, default the first the agents play); the others
    played by ``opponents``. An illegal action ends the episode with -1. ``reward``: ``"win"`` (+1 shared among the winners, -1 shared
    among the others, at the end) or ``"score"`` (the change of the seat's score difference
    after each of its steps, the bots' moves included)."""

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(self, players: int = 2, opponents: str | Bot | Sequence[str | Bot] = "greedy",
                 seed: int | None = None, options: Mapping[str, Any] | None = None, render_mode: str | None = None,
                 reward: str = "win", engine: Engine | None = None, seat: int | None = None,
                 max_steps: int = MAX_STEPS) -> None:
        self._new_match(render_mode, seed, players, options, reward, engine, max_steps)
        self.seat = self.match.seats[0] if seat is None else seat
        if self.seat not in self.match.seats:
            raise ValueError(f"seat {self.seat} is not one the agents play; they play {self.match.seats}")
        others = [s for s in self.match.seats if s != self.seat]
        self.bots = dict(zip(others, self._bots(opponents, len(others)), strict=True))
        """The bot of each other seat the agents would play."""
        self.observation_space = self.match.observation_box
        self.action_space = self.match.action_space
        self._standing = 0.0

    def _bots(self, opponents: str | Bot | Sequence[str | Bot], n: int) -> list[Bot]:
        chosen = [opponents] * n if isinstance(opponents, (str, Bot)) else list(opponents)
        if len(chosen) != n:
            raise ValueError(f"give one opponent for all or one for each of the {n} other seats, got {len(chosen)}")
        out = []
        for bot in chosen:
            if isinstance(bot, str):
                if bot not in self.engine.bots:
                    raise ValueError(f"unknown bot {bot!r}; installed bots: {', '.join(sorted(self.engine.bots))}")
                bot = self.engine.bots[bot]
            out.append(bot)
        return out

    def _go_on(self) -> None:
        self._play_others()
        self._standing = self.match.standing()[self.seat]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Obs, dict[str, Any]]:
        super().reset(seed=seed)
        self.match.new_game(seed)
        self._go_on()
        return self.match.observation(self.seat), self._info()

    def step(self, action: np.int64 | int) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        """Play ``action``, then the bots until the seat is awaited again or the game ends. An
        action that is not legal (its mask is 0) ends the episode with a reward of -1, as
        PettingZoo's classic games do (``info["illegal"]``); the game stays as it was."""
        try:
            self.match.play(self.seat, int(action))  # the engine checks it: no listing of the legal actions
        except ValueError:
            return self.match.observation(self.seat), -1.0, True, False, {**self._info(), "illegal": True}
        self._play_others()
        game = self.game
        reward = 0.0
        if self.match.reward == "score":
            now = self.match.standing()[self.seat]
            reward, self._standing = now - self._standing, now
        elif game.finished:
            reward = self.match.outcome()[self.seat]
        truncated = not game.finished and self.match.steps >= self.match.max_steps
        return self.match.observation(self.seat), reward, game.finished, truncated, self._info()

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions of the seat now (``True`` at their indices): sb3-contrib's
        ``MaskablePPO`` calls this."""
        return self.match.mask(self.seat).astype(bool)

    def action_of(self, index: int) -> Action:
        """The engine :class:`Action` index ``index`` stands for."""
        return self.match.action_of(self.seat, index)

    def index_of(self, action: Action) -> int:
        """The index of an engine :class:`Action` in the action space."""
        return self.match.index_of(action)

    def render(self) -> str | None:
        return None if self.render_mode is None else self.match.render_text()

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.match.mask(self.seat)}

    def _play_others(self) -> None:
        """The bots play until the seat is awaited or the game ends."""
        game = self.game
        while not game.finished and self.match.steps < self.match.max_steps:
            awaiting = self.match.awaiting()
            if self.seat in awaiting:
                return
            other = awaiting[0]
            self.engine.apply(game, self.engine.bot_choice(game, other, self.bots[other]), track_undo=False)
            self.match.steps += 1
