"""The PettingZoo environment: :class:`raw_env`, an AEC (agent-environment cycle) game of
darkroad, and :func:`env`, the wrapped one, as PettingZoo's classic board games are.

Agents ``seat_<n>`` are the seats the agents play (the human seats: an automated seat, the
Private Concern's, plays inside the environment). The agent to act is the first seat the game
awaits; in a decision several seats answer at once (the caravan's deliveries), they act one
after the other. docs/agents.md has the action catalogue and the observation's layout.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from darkroad.core import Action, Engine, Game

from .match import MAX_STEPS, Match

ObsDict = dict[str, npt.NDArray[Any]]


def env(players: int = 2, seed: int | None = None, options: Mapping[str, Any] | None = None,
        render_mode: str | None = None, **kwargs: Any) -> AECEnv[str, ObsDict, int]:
    """A darkroad game as a PettingZoo AEC environment, wrapped as PettingZoo's classic games
    are: an action out of range is an error, and so is acting out of order; an illegal action
    ends the game with -1 for the agent that played it. ``players``: 1 (solo against the
    Private Concern) to 4; ``seed``: the first game's seed (later resets without a seed draw
    the next from it); ``options``: game settings (``buildings``, ``random_buildings``,
    ``variants``, ``companions``, ``options``); the other keywords are :class:`raw_env`'s."""
    raw = raw_env(players=players, seed=seed, options=options, render_mode=render_mode, **kwargs)
    return _OrderEnforcing(_AssertOutOfBounds(_TerminateIllegal(raw, illegal_reward=-1)))


def _read(name: str, checked: bool = False) -> property:
    """The raw environment's attribute ``name``, read directly; ``checked``: an AttributeError
    before ``reset``, as OrderEnforcingWrapper makes it."""

    def read(self: Any) -> Any:
        if checked and not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    return property(read)


class _Direct:
    """PettingZoo's wrappers, reading the game's bookkeeping (the agent to act, rewards,
    terminations...) straight from the raw environment, where it lives (the wrappers write it
    there too, through ``env.unwrapped``). A PettingZoo wrapper finds an attribute it does not
    define by ``__getattr__`` on the wrapper inside it, one call per layer: three layers made
    those reads most of what the wrapped environment added to a step (benchmarks/env.py)."""

    _raw: raw_env
    agent_selection = _read("agent_selection")
    agents = _read("agents")
    rewards = _read("rewards")
    terminations = _read("terminations")
    truncations = _read("truncations")
    infos = _read("infos")
    _cumulative_rewards = _read("_cumulative_rewards")
    possible_agents = _read("possible_agents")


class _TerminateIllegal(_Direct, wrappers.TerminateIllegalWrapper):  # type: ignore[misc]
    def __init__(self, env: raw_env, illegal_reward: float) -> None:
        self._raw = env
        super().__init__(env, illegal_reward)


class _AssertOutOfBounds(_Direct, wrappers.AssertOutOfBoundsWrapper):  # type: ignore[misc]
    def __init__(self, env: _TerminateIllegal) -> None:
        self._raw = env._raw
        super().__init__(env)
        self._size = env._raw.match.catalogue.size

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._raw.action_spaces[agent]

    def step(self, action: int | None) -> None:
        # Discrete.contains makes a NumPy integer of the action on every call (most of this
        # wrapper's cost): a Python int in range is checked here, anything else by the space.
        if type(action) is int and 0 <= action < self._size:
            self.env.step(action)
        else:
            super().step(action)


class _OrderEnforcing(_Direct, wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's OrderEnforcingWrapper: its bookkeeping attributes, before ``reset``, are an
    AttributeError as it makes them."""

    def __init__(self, env: _AssertOutOfBounds) -> None:
        self._raw = env._raw
        super().__init__(env)

    agent_selection = _read("agent_selection", checked=True)
    agents = _read("agents", checked=True)
    rewards = _read("rewards", checked=True)
    terminations = _read("terminations", checked=True)
    truncations = _read("truncations", checked=True)
    infos = _read("infos", checked=True)

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._raw.action_spaces[agent]

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._raw.observation_spaces[agent]



class raw_env(AECEnv[str, ObsDict, int]):  # type: ignore[misc]  # PettingZoo ships no types; its name for the unwrapped class
    """A darkroad game as a PettingZoo AEC environment (unwrapped).

    ``reward``: ``"win"`` (+1 shared among the winners, -1 shared among the others, at the
    end) or ``"score"`` (dense: the change of each agent's score difference after every
    action); ``engine``: an :class:`Engine` to share (default: the installed plugins);
    ``max_steps``: actions after which an episode is truncated.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "name": "darkroad_v0", "is_parallelizable": False}

    def __init__(self, players: int = 2, seed: int | None = None, options: Mapping[str, Any] | None = None,
                 render_mode: str | None = None, reward: str = "win", engine: Engine | None = None,
                 max_steps: int = MAX_STEPS) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.render_mode = render_mode
        self.match = Match(players, options, reward, engine, max_steps)
        if seed is not None:
            self.match.seeds.seed(seed)
        self.possible_agents = [f"seat_{s}" for s in self.match.seats]
        self._seat = {a: s for a, s in zip(self.possible_agents, self.match.seats, strict=True)}
        self._agent = {s: a for a, s in self._seat.items()}
        observation = spaces.Dict({"observation": self.match.observation_box, "action_mask": self.match.mask_box})
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation)
        self.action_spaces = dict.fromkeys(self.possible_agents, self.match.action_space)
        self.agents: list[str] = []

    # -- what PettingZoo asks -----------------------------------------------------------------
    @property
    def engine(self) -> Engine:
        """The engine the game runs on."""
        return self.match.engine

    @property
    def game(self) -> Game:
        """The game under way (the real one, with every secret: for inspection, not for agents)."""
        if self.match.game is None:
            raise RuntimeError("no game yet: call reset() first")
        return self.match.game

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> ObsDict:
        """``agent``'s observation (its view, encoded) and action mask (its legal actions)."""
        seat = self._seat[agent]
        return {"observation": self.match.observation(seat), "action_mask": self.match.mask(seat)}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.match.new_game(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._standing = self.match.standing() if self.match.reward == "score" else {}
        self._select()

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must act: None is only for an agent whose game ended")
        self._cumulative_rewards[agent] = 0.0
        self.match.play(self._seat[agent], action)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        game = self.game
        if game.finished:
            if self.match.reward == "win":
                self._give(self.match.outcome())
            self.terminations = dict.fromkeys(self.agents, True)
        elif self.match.steps >= self.match.max_steps:
            self.truncations = dict.fromkeys(self.agents, True)
        if self.match.reward == "score":
            now = self.match.standing()
            self._give({s: now[s] - self._standing[s] for s in now})
            self._standing = now
        if not game.finished:
            self._select()
        self._accumulate_rewards()

    def render(self) -> str | None:
        """``render_mode="ansi"``: the game as a spectator sees it, as text."""
        if self.render_mode is None:
            return None
        return self.match.render_text()

    def close(self) -> None:
        pass

    # -- darkroad's own ------------------------------------------------------------------------
    def action_of(self, agent: str, index: int) -> Action:
        """The engine :class:`Action` index ``index`` stands for, for ``agent``."""
        return self.match.action_of(self._seat[agent], index)

    def index_of(self, action: Action) -> int:
        """The index of an engine :class:`Action` in the action space."""
        return self.match.index_of(action)

    def _give(self, rewards: dict[int, float]) -> None:
        for seat, r in rewards.items():
            agent = self._agent.get(seat)
            if agent is not None and agent in self.rewards:
                self.rewards[agent] += r

    def _select(self) -> None:
        awaiting = self.engine.awaiting(self.game)
        self.agent_selection = self._agent[awaiting[0]]
