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
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from darkroad.core import Action, Engine

from .match import MAX_STEPS, OnAMatch

ObsDict = dict[str, npt.NDArray[Any]]


def env(players: int = 2, seed: int | None = None, options: Mapping[str, Any] | None = None,
        render_mode: str | None = None, **kwargs: Any) -> AECEnv[str, ObsDict, int]:
    """A darkroad game as a PettingZoo AEC environment, wrapped as PettingZoo's classic games
    are: an action out of range is an error, and so is acting out of order; an illegal action
    ends the game with -1 for the agent that played it. ``players``: 1 (solo against the
    Private Concern) to 4; ``seed``: the first game's seed (later resets without a seed draw
    the next from it); ``options``: game settings (``buildings``, ``random_buildings``,
    ``variants``, ``companions``, ``options``); the other keywords are :class:`raw_env`'s."""
    return _Classic(raw_env(players=players, seed=seed, options=options, render_mode=render_mode, **kwargs),
                    illegal_reward=-1)


def _read(name: str) -> property:
    """The raw environment's attribute ``name``, read directly; an AttributeError before
    ``reset``, as OrderEnforcingWrapper makes it."""

    def read(self: Any) -> Any:
        o = self._o
        if not o.has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(o.raw, name)

    return property(read)


def _kept(name: str) -> property:
    """The wrapper's attribute kept in its :class:`_Order` as ``name`` (read and written there)."""

    def read(self: Any) -> Any:
        return getattr(self._o, name)

    def write(self: Any, value: Any) -> None:
        setattr(self._o, name, value)

    return property(read, write)


class _Classic(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """What PettingZoo's classic games wrap their raw environment in, in one layer:
    ``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(raw, -1)))``.

    This is PettingZoo's OrderEnforcingWrapper (its checks of order, and its agent iterator),
    whose ``step`` and ``observe`` also do what the two inner wrappers do, as their code does
    it: an action out of the action space is an AssertionError; an illegal action (0 in the
    mask of the agent's last observation) ends the game for every agent, -1 for the agent that
    played it, with PettingZoo's warning. Written out here because the three layers, each
    calling the next and reading the game's bookkeeping through it, cost more than a sixth of
    the engine's work a step (benchmarks/env.py --instructions: 57,850 instructions a step
    against the bare engine's 306,455); ``tests/test_env.py`` plays the same games, illegal
    actions included, through both and compares every answer."""

    def __init__(self, env: raw_env, illegal_reward: float) -> None:
        self._o = _Order(env, env.match.catalogue.size, float(illegal_reward))
        super().__init__(env)
        self._raw = env

    # OrderEnforcingWrapper's own flags, kept in self._o
    _has_reset = _kept("has_reset")
    _has_updated = _kept("has_updated")

    agent_selection = _read("agent_selection")
    agents = _read("agents")
    rewards = _read("rewards")
    terminations = _read("terminations")
    truncations = _read("truncations")
    infos = _read("infos")

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return self._o.raw._cumulative_rewards

    @property
    def possible_agents(self) -> list[str]:
        return self._raw.possible_agents

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._raw.action_spaces[agent]

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._raw.observation_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._o.terminated = False
        self._o.prev_mask = None
        super().reset(seed=seed, options=options)

    def observe(self, agent: str) -> ObsDict:
        o = self._o
        if not o.has_reset:
            EnvLogger.error_observe_before_reset()
        obs = o.raw.observe(agent)
        if agent == o.raw.agent_selection:  # the mask the agent's step is checked against
            o.prev_mask = obs["action_mask"]
        return obs

    def last(self, observe: bool = True) -> tuple[ObsDict | None, float, bool, bool, dict[str, Any]]:
        o = self._o
        raw = o.raw
        if not o.has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        agent = raw.agent_selection
        obs = None
        if observe:  # the agent to act's observation: its mask is what its step is checked against
            obs = raw.observe(agent)
            o.prev_mask = obs["action_mask"]
        return obs, raw._cumulative_rewards[agent], raw.terminations[agent], raw.truncations[agent], raw.infos[agent]

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable[str, ObsDict, int]:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _Agents(self, max_iter)

    def step(self, action: int | None) -> None:
        o = self._o
        raw = o.raw
        if not o.has_reset:
            EnvLogger.error_step_before_reset()
        elif not raw.agents:
            o.has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        o.has_updated = True
        agent = raw.agent_selection
        done = raw.terminations[agent] or raw.truncations[agent]
        # AssertOutOfBoundsWrapper (a Python int in range needs no Discrete.contains, which
        # makes a NumPy integer of it)
        if not (type(action) is int and 0 <= action < o.size):
            assert (action is None and done) or raw.action_spaces[agent].contains(action), \
                "action is not in action space"
        # TerminateIllegalWrapper
        mask = o.prev_mask
        if mask is None:
            mask = raw.observe(agent)["action_mask"]
        o.prev_mask = None
        if o.terminated and done:
            raw._was_dead_step(action)
        elif not done and not mask[action]:
            EnvLogger.warn_on_illegal_move()
            raw._cumulative_rewards[agent] = 0
            raw.terminations = dict.fromkeys(raw.agents, True)
            raw.truncations = dict.fromkeys(raw.agents, True)
            raw.rewards = dict.fromkeys(raw.truncations, 0)
            raw.rewards[agent] = o.illegal_reward
            raw._accumulate_rewards()
            raw._deads_step_first()
            o.terminated = True
        elif done:
            raw.step(action)
        else:  # raw_env.step, whose checks of the agent are made above (an action in range)
            raw._act(agent, action)  # type: ignore[arg-type]


class _Order:
    """What :class:`_Classic`'s step, observe, last and agent iterator read, kept on an object
    of its own: the wrapper's class has PettingZoo's ``__getattr__`` (it forwards unknown names
    to the environment), and CPython does not specialise reads of attributes of an instance
    whose class has one: each is a generic look-up through the type's dictionaries. Read
    here, one such look-up a call instead of two to seven saves about a quarter of what the wrapper adds to
    raw_env's step (``benchmarks/env.py --instructions --games 4``)."""

    __slots__ = ("has_reset", "has_updated", "illegal_reward", "prev_mask", "raw", "size", "terminated")

    def __init__(self, raw: raw_env, size: int, illegal_reward: float) -> None:
        self.raw = raw
        self.size = size
        self.illegal_reward = illegal_reward
        self.prev_mask: npt.NDArray[Any] | None = None
        self.terminated = False  # by an illegal action
        self.has_reset = False
        self.has_updated = False


class _Agents(AECOrderEnforcingIterable):  # type: ignore[misc]
    """PettingZoo's ``agent_iter`` of an order-enforcing wrapper, reading the raw environment
    directly (its iterator reads the wrapper's properties, two calls more an agent)."""

    def __iter__(self) -> _AgentIterator:
        return _AgentIterator(self.env, self.max_iter)


class _AgentIterator(AECOrderEnforcingIterator):  # type: ignore[misc]
    def __init__(self, env: _Classic, max_iter: int) -> None:
        super().__init__(env, max_iter)
        self._o: _Order = env._o  # (read once: each read through the wrapper is a generic look-up)

    def __next__(self) -> str:
        o = self._o
        raw = o.raw
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert o.has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        o.has_updated = False
        agent: str = raw.agent_selection
        return agent


class raw_env(OnAMatch, AECEnv[str, ObsDict, int]):  # type: ignore[misc]  # PettingZoo ships no types; its name for the unwrapped class
    """A darkroad game as a PettingZoo AEC environment (unwrapped).

    ``reward``: ``"win"`` (+1 shared among the winners, -1 shared among the others, at the
    end) or ``"score"`` (dense: the change of each agent's score difference after every
    action); ``engine``: an :class:`Engine` to share (default: the installed plugins);
    ``max_steps``: actions after which an episode is truncated.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 1, "name": "darkroad_v0", "is_parallelizable": False}
    agent_selection: str

    def __init__(self, players: int = 2, seed: int | None = None, options: Mapping[str, Any] | None = None,
                 render_mode: str | None = None, reward: str = "win", engine: Engine | None = None,
                 max_steps: int = MAX_STEPS) -> None:
        super().__init__()
        self._new_match(render_mode, seed, players, options, reward, engine, max_steps)
        self.possible_agents = [f"seat_{s}" for s in self.match.seats]
        self._seat = {a: s for a, s in zip(self.possible_agents, self.match.seats, strict=True)}
        self._agent = {s: a for a, s in self._seat.items()}
        observation = spaces.Dict({"observation": self.match.observation_box, "action_mask": self.match.mask_box})
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation)
        self.action_spaces = dict.fromkeys(self.possible_agents, self.match.action_space)
        self.agents: list[str] = []

    # -- what PettingZoo asks -----------------------------------------------------------------
    def _go_on(self) -> None:
        if not self.game.finished:
            self._select()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> ObsDict:
        """``agent``'s observation (its view, encoded) and action mask (its legal actions)."""
        return self.match.observe(self._seat[agent])

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
        self._act(agent, action)

    def _act(self, agent: str, action: int) -> None:
        """:meth:`step` of ``agent``, the agent to act, whose game goes on: ``action`` played."""
        self._cumulative_rewards[agent] = 0.0
        match = self.match
        match.play(self._seat[agent], action)
        game = match.game
        assert game is not None
        if match.reward == "win" and not game.finished and match.steps < match.max_steps:
            # Most steps: the game goes on and nobody is rewarded (with "win" rewards every
            # reward is 0 until the end, so self.rewards is all zeros already).
            self.agent_selection = self._agent[match.engine.awaiting(game)[0]]
            return
        self.rewards = dict.fromkeys(self.agents, 0.0)
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
        self.agent_selection = self._agent[self.match.awaiting()[0]]
