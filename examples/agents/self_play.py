"""A short self-play loop to start from: one linear softmax policy over the masked actions plays
every seat of darkroad's PettingZoo environment and learns by REINFORCE (Williams, 1992) from
the end-of-game reward (+1 shared among the winners, -1 among the others); then it plays the
one-seat Gymnasium environment against the ``random`` bot to see what it learnt.

    pip install -e ".[rl]"
    python examples/agents/self_play.py --episodes 20

A linear policy learns little in 20 games: swap in your network (the observation is a float32
vector, the action mask an int8 vector over the fixed action space) and your algorithm.
"""

from __future__ import annotations

import argparse

import numpy as np
import numpy.typing as npt

import darkroad.env


class LinearPolicy:
    """Logits ``W @ observation`` over the legal actions only (the mask's ones)."""

    def __init__(self, actions: int, features: int, seed: int) -> None:
        self.w = np.zeros((actions, features), dtype=np.float32)
        self.rng = np.random.default_rng(seed)

    def act(self, observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> tuple[int, npt.NDArray[np.intp],
                                                                                            npt.NDArray[np.float64]]:
        legal = np.flatnonzero(mask)
        logits = self.w[legal] @ observation
        p = np.exp(logits - logits.max())
        p /= p.sum()
        k = int(self.rng.choice(len(legal), p=p))
        return int(legal[k]), legal, p

    def learn(self, steps: list[tuple[npt.NDArray[np.float32], npt.NDArray[np.intp], npt.NDArray[np.float64], int]],
              ret: float, lr: float) -> None:
        """REINFORCE: raise the log-probability of each action taken by ``ret`` (the return)."""
        for observation, legal, p, taken in steps:
            grad = -p
            grad[taken] += 1.0  # d log softmax / d logits
            self.w[legal] += (lr * ret) * np.outer(grad, observation).astype(np.float32)


def self_play(policy: LinearPolicy, players: int, episodes: int, seed: int, lr: float) -> None:
    env = darkroad.env.env(players=players, seed=seed)
    for episode in range(episodes):
        env.reset()
        trajectory: dict[str, list[tuple[npt.NDArray[np.float32], npt.NDArray[np.intp], npt.NDArray[np.float64], int]]]
        trajectory = {agent: [] for agent in env.possible_agents}
        returns = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            observation, reward, termination, truncation, _ = env.last()
            returns[agent] += reward
            if termination or truncation:
                env.step(None)
                continue
            action, legal, p = policy.act(observation["observation"], observation["action_mask"])
            trajectory[agent].append((observation["observation"], legal, p, int(np.searchsorted(legal, action))))
            env.step(action)
        for agent, steps in trajectory.items():
            policy.learn(steps, returns[agent], lr)
        print(f"episode {episode + 1}: returns {({a: round(r, 2) for a, r in returns.items()})}")


def evaluate(policy: LinearPolicy, games: int, seed: int) -> float:
    """The policy's mean reward in one seat against the ``random`` bot."""
    env = darkroad.env.single(players=2, opponents="random", seed=seed)
    total = 0.0
    for _ in range(games):
        observation, info = env.reset()
        done = False
        while not done:
            action, _, _ = policy.act(observation, env.action_masks().astype(np.int8))
            observation, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        total += reward
    return total / games


def main() -> None:
    parser = argparse.ArgumentParser(description="self-play REINFORCE on darkroad, to start from")
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--eval-games", type=int, default=5)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    probe = darkroad.env.raw_env(players=args.players)
    policy = LinearPolicy(probe.match.catalogue.size, probe.match.layout.size, args.seed)
    self_play(policy, args.players, args.episodes, args.seed, args.lr)
    print(f"mean reward against random in one seat: {evaluate(policy, args.eval_games, args.seed + 1):.2f}")


if __name__ == "__main__":
    main()
